import { phraseKey, phrasesOf, type Phrase, type TextQuery } from "./expression.ts";
import { readStats } from "./rank-statistics.ts";
import type { D1Reader } from "./rank-types.ts";

/** The distinct phrases of several words in a query, per column (FTS5 walks each one's words' doclists with positions). */
const longPhrases = (query: TextQuery): Phrase[] => [
  ...new Map(
    phrasesOf(query)
      .filter((p) => !p.prefix && p.stems.join(" ").includes(" "))
      .map((p) => [phraseKey(p), p]),
  ).values(),
];

/**
 * The word positions FTS5 reads to match a phrase, from the papers holding each of its tokens
 * (`docs`, in order) among `rows`: it visits the rarest token's papers (it skips through the
 * others' doclists to them) and reads every token's positions there. A token held by a share p of
 * the papers occurs about -ln(1 - p) / p times in each (Poisson): "the", in 99.7% of the bench's
 * papers, about 6 times; "show", in a third, 1.2.
 */
export function phraseWork(docs: readonly number[], rows: number): number {
  if (docs.length === 0 || rows <= 0) return 0;
  const perPaper = (held: number) => {
    if (held <= 0) return 1;
    const share = Math.min(held / rows, 1 - 0.5 / rows);
    return -Math.log1p(-share) / share;
  };
  return Math.min(...docs) * docs.reduce((sum, held) => sum + perPaper(held), 0);
}

/** The reason for a phrase too broad to match, sent to arXiv's API. */
export const broadPhraseReason = (phrases: readonly Phrase[], work: number) =>
  `the quoted ${phrases.length === 1 ? `phrase "${phrases[0]!.words.join(" ")}" is` : "phrases are"} ` +
  `made of words held by so many papers that matching ${phrases.length === 1 ? "it" : "them"} would ` +
  `read about ${Math.round(work).toLocaleString("en-US")} of their word positions, more than the mirror reads for one search`;

/**
 * Why the mirror will not run a query with a broad prefix or a phrase of common words, or null.
 * FTS5 has no prefix index here: it merges the doclists of every term a prefix expands to, in
 * memory, before the first hit (at 3.2 million papers `quant*`, terms held by 3 million papers, ran
 * workerd's SQLite out of memory), and ranking a prefix scores every hit. A phrase reads its words'
 * doclists with their positions from the rarest word's papers on: at 3.2 million papers
 * `"of the" OR "in the" OR "to the" OR "on the"` took 6.6 s, and the database serves no other
 * search meanwhile (phraseWork). Both are counted from the ranking table's common terms (a word too
 * rare for it costs little), in one round trip that matches nothing, and only for a query that has
 * a prefix or a phrase of several words; the caller checks before any statement that matches it.
 */
export async function tooBroad(
  db: D1Reader,
  query: TextQuery,
  limits: { prefixDocs: number; phraseWork: number },
  /** What the mirror would do with a prefix's hits, for the reason. */
  use: "merges" | "ranks",
  /** Phrases left out of the check (a caller that checks them itself). */
  skipPhrases = false,
): Promise<string | null> {
  const prefixes = [
    ...new Map(
      phrasesOf(query)
        .filter((p) => p.prefix)
        .map((p) => [p.stems.join(" "), p]),
    ).values(),
  ];
  const phrases = skipPhrases ? [] : longPhrases(query);
  if (prefixes.length === 0 && phrases.length === 0) return null;
  const words = [...new Set(phrases.flatMap((p) => p.stems.join(" ").split(" ")))];
  const [terms, totals] = await db.batch<Record<string, unknown>>([
    db
      .prepare(
        `SELECT CASE w.value ->> 0 WHEN 'prefix'
         THEN (SELECT coalesce(sum(docs), 0) FROM arxiv_rank_terms WHERE col = -1 AND term >= w.value ->> 1
           AND term < (w.value ->> 1) || char(1114111))
         ELSE coalesce((SELECT docs FROM arxiv_rank_terms WHERE term = w.value ->> 1 AND col = -1), 0) END AS docs
       FROM json_each(?) w ORDER BY w.key`,
      )
      .bind(
        JSON.stringify([
          ...prefixes.map((p) => ["prefix", p.stems.join(" ").split(" ").at(-1)]),
          ...words.map((word) => ["word", word]),
        ]),
      ),
    db.prepare("SELECT block FROM arxiv_papers_fts_data WHERE id = 1"),
  ]);
  const docs = (terms!.results as { docs: number }[]).map((r) => Number(r.docs));
  const broad = prefixes.findIndex((_, i) => docs[i]! > limits.prefixDocs);
  if (broad >= 0) {
    const held =
      `the prefix ${prefixes[broad]!.words.at(-1)}* expands to index terms held by ` +
      `${docs[broad]!.toLocaleString("en-US")} papers`;
    return use === "ranks"
      ? `${held}, more than the mirror ranks by relevance quickly (it scores every hit of a prefix)`
      : `${held}, more than the mirror merges`;
  }
  const wordDocs = new Map(words.map((word, i) => [word, docs[prefixes.length + i]!]));
  const { rows } = readStats(totals!.results[0]?.block);
  const work = phrases.reduce(
    (sum, p) =>
      sum +
      phraseWork(
        p.stems
          .join(" ")
          .split(" ")
          .map((token) => wordDocs.get(token) ?? 0),
        rows,
      ),
    0,
  );
  return work > limits.phraseWork ? broadPhraseReason(phrases, work) : null;
}

/** A single quoted phrase of three or more words, which verifiedPhrase may rank without FTS5's phrase query. */
export const verifiable = (query: TextQuery): boolean =>
  query.kind === "phrase" && !query.prefix && query.stems.join(" ").split(" ").length >= 3;
