// biome-ignore-all lint/style/noExcessiveLinesPerFile: the ranker until issue 33 splits its candidate sources into modules
// Relevance ranking for the mirror at full arXiv scale: the field-weighted BM25 top k of a text
// query without scoring every hit. An exhaustive ORDER BY bm25() costs about 1 us per hit in
// SQLite, and common words hit most of the mirror (measured at 1,000,000 papers: "quantum"
// 317 ms, a research question in plain words 400-700 ms), so:
//
// 1. One batch reads the capped count (no walk when an OR's word alone reaches the cap), the
//    index's totals (FTS5's averages record), every word's document frequency (arxiv_rank_terms
//    for a common word, an FTS5 count for the rest), and for a query of several words their
//    impact lists (those this isolate holds unchanged are not sent again: impact-cache.ts) and
//    the hits of the words too rare for a list.
// 2. A search with fewer hits than the count cap is ranked exhaustively by FTS5 (exact), and so
//    is one of multi-word phrases only (no candidate source serves it), except a single quoted
//    phrase of three or more words whose rarest words few papers hold together: those papers
//    are checked for the phrase in TypeScript (verifiedPhrase; exact too).
// 3. Otherwise candidates come from bounded sources: for a query of several words, the best
//    partial sums over their impact lists (src/search/impacts.ts: each common word's papers where
//    it weighs most, about 1% of the mirror deep; the rarer words' hits read whole), which find
//    the papers holding several of the words; then, for the phrases those sums do not cover, the
//    rarest phrases' hits ranked by FTS5 on those phrases alone, papers holding two of the rarer
//    phrases, and the common words' champion lists (src/store/arxiv-rank-tables.ts); and for every
//    query the papers holding its rarest phrases together (a pasted title's paper).
// 4. The candidates are fetched, tokenized as the index tokenizes, checked against the whole
//    query and scored with every phrase by bm25 in TypeScript (src/search/bm25.ts: FTS5's
//    numbers), the known item (a paper whose whole title is the query) first; the page is cut
//    from that order.
// A page beyond the candidates, a worst-first order, or candidates that run out before the page
// is full are ranked exhaustively. docs/mirror.md#ranking-at-full-size gives the measured quality.
import { idf, scoreCounts } from "./bm25.ts";
import { phrase, phraseCounts, phraseKey, phrasesOf, toMatch, type Phrase, type TextQuery } from "./expression.ts";
import type { ImpactListCache } from "./impact-cache.ts";
import { BM25_SQL } from "./bm25-sql.ts";
import type { KeyFilters } from "./filters.ts";
import { ALL_TERMS_TUNING, allTerms } from "./sources/all-terms.ts";
import type { CandidatePart } from "./sources/candidate-part.ts";
import { CHAMPION_COLUMNS, CHAMPIONS_TUNING, champions } from "./sources/champions.ts";
import { IMPACT_SUMS_TUNING, impactSums } from "./sources/impact-sums.ts";
import { PAIRS_TUNING, pairs } from "./sources/pairs.ts";
import { RARE_PHRASES_TUNING, rarePhrases } from "./sources/rare-phrases.ts";
import { knownItemFirst } from "./known-item.ts";
import { readStatistics, readStats } from "./rank-statistics.ts";
import { rescoreCandidates } from "./rescore.ts";
import { flatOr, isSingleToken } from "./phrase-kinds.ts";
import { tokens } from "./tokenize.ts";

export { BM25_SQL, CHAMPION_COLUMNS, knownItemFirst };
export type { KeyFilters };

/** The ranker's knobs: each candidate source's own (in its module), and the ranker's. */
export const RANK_TUNING = {
  ...IMPACT_SUMS_TUNING,
  ...RARE_PHRASES_TUNING,
  ...ALL_TERMS_TUNING,
  ...PAIRS_TUNING,
  ...CHAMPIONS_TUNING,
  /** Papers the exhaustive ranking of an OR of words under the count cap would read (title words read every paper holding the word) above which the impact sums rank it, when they know every hit (about 3 us a paper). */
  exhaustiveWalk: 30_000,
  /** A prefix whose common expansions are held by more papers than this is never matched (FTS5 merges them in memory): arXiv's API answers. */
  prefixMaxDocs: 300_000,
  /** ... nor ranked by relevance above this many (every hit is scored: about 3 us a hit in SQLite, 30,000 in 70-100 ms). */
  prefixRankDocs: 30_000,
  /**
   * Phrases of several words whose walk would read more word positions than this are sent to
   * arXiv's API (phraseWork). Measured offline, 65-170 ns a position: at 3.2 million papers
   * "we show that" 5.2 million, 0.3-0.4 s; "in this paper we show that the" 10 million, 1.7 s; four
   * phrases of "the" with "of", "in", "to", "on" 101 million, 6.6 s; at 1,000,000 papers
   * all:"in the" 8.2 million, 0.5 s.
   */
  phraseMaxWork: 6_000_000,
  /** The deepest page end the candidates serve; deeper pages are ranked exhaustively. */
  rescored: 60,
  /** A quoted phrase whose rarest words are held together by at most this many papers is checked in TypeScript. */
  verifiedPhraseHits: 500,
};

export interface RankRequest {
  query: TextQuery;
  filters: KeyFilters;
  /**
   * Counts the hits (capped); its first row has scanned and matched. `reaches` (SQL and binds)
   * holds when the hits certainly reach the cap: the count may then skip its walk.
   */
  count: (reaches?: { sql: string; binds: unknown[] }) => D1PreparedStatement;
  /** The count's cap (exact below it). */
  countCap: number;
  /** Whether the count stopped at its cap (there are more hits than it says). */
  isLowerBound: (counted: { scanned: number; matched: number }) => boolean;
  /** Worst match first (arXiv allows it); ranked exhaustively. */
  ascending?: boolean;
  /** Columns of arxiv_papers p to return for each paper of the page. */
  select: string;
  start: number;
  limit: number;
  tuning?: Partial<typeof RANK_TUNING>;
  /** Filled with the time of each stage (ms), for the bench. */
  trace?: Record<string, number>;
  /** The impact lists held between requests (the isolate's by default). */
  impactCache?: ImpactListCache;
  /** Score every hit and keep plain BM25 order (no known-item rule): the bench's reference. */
  reference?: boolean;
}

export type RankMethod = "exhaustive" | "candidates" | "verified";

export type RankResult<Row> =
  | {
      rows: Row[];
      counted: { scanned: number; matched: number };
      method: RankMethod;
      candidates: number;
      live?: undefined;
    }
  /** A search the mirror does not run (the reason says why); arXiv's API answers it. */
  | { live: string; counted: { scanned: number; matched: number } };

/** A paper's text columns as the ranker fetches them to rescore. */
type StoredText = {
  paper_key: number;
  title: string;
  authors: string;
  abstract: string;
  comment: string | null;
  journal_ref: string | null;
};

/** What the ranker reads through: the database, or a D1 session (read replicas). */
export type D1Reader = Pick<D1Database, "prepare" | "batch">;

/** Document frequency of a phrase of several words, or a prefix: FTS5's count. */
function dfStatement(db: D1Reader, p: Phrase): D1PreparedStatement {
  return db.prepare("SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?").bind(toMatch(p));
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the ranker as one pipeline until issue 33 splits it into named stages (proved on the 1,000,000-paper bench)
export async function rankRelevance<Row extends { paper_key: number }>(
  db: D1Reader,
  request: RankRequest,
): Promise<RankResult<Row>> {
  const tuning = { ...RANK_TUNING, ...request.tuning };
  const mark = (stage: string, since: number) => {
    if (request.trace) request.trace[stage] = (request.trace[stage] ?? 0) + performance.now() - since;
  };
  const phrases = phrasesOf(request.query);
  const unique = [...new Map(phrases.map((p) => [phraseKey(p), p])).values()];
  // First batch: the capped count, the totals, and the single words' frequencies (index seeks).
  // A phrase's frequency is an FTS5 count over its words' doclists: read only if it is needed.
  const singles = unique.filter(isSingleToken);
  const prefixes = unique.filter((p) => p.prefix);
  // A filter thins every source: one word's impact list, read whole, still holds its filtered top.
  const filtered = request.filters("arxiv_papers_fts.rowid").clauses.length > 0;
  const phrasesOnly = singles.length === 0 && prefixes.length === 0 && !filtered;
  // Before any statement matches the query: FTS5 would merge a broad prefix's doclists in memory,
  // and read a phrase of common words' positions at length. A phrase that verifiedPhrase may
  // serve is checked there, with the frequencies it reads anyway (it may not need FTS5's walk).
  const broad = await tooBroad(
    db,
    request.query,
    { prefixDocs: Math.min(tuning.prefixMaxDocs, tuning.prefixRankDocs), phraseWork: tuning.phraseMaxWork },
    "ranks",
    request.reference === true || (phrasesOnly && verifiable(request.query)),
  );
  if (broad !== null) return { live: broad, counted: { scanned: 0, matched: 0 } };
  // Words in any column or the title that a hit may hold: their impact lists give the partial sums.
  const positiveKeys = new Set(positivePhrases(request.query).map(phraseKey));
  const impactPhrases = new Map(
    singles
      .filter((p) => (p.column === null || p.column === 0) && positiveKeys.has(phraseKey(p)))
      .map((p) => [phraseKey(p), p]),
  );
  if (phrasesOnly) return rankPhrasesOnly<Row>(db, request, tuning, mark);
  // A query of several words (or one under a filter) is served by the sums over its words' impact lists.
  const summing = (impactPhrases.size >= 2 || (impactPhrases.size === 1 && filtered)) && !request.reference;
  const { counted, stats, df, walk, impactLists, rareHitsOf } = await readStatistics(db, request, {
    singles,
    impactPhrases,
    summing,
    tuning,
    mark,
  });

  // An OR of words, each summed from a list that holds every paper with it (or every hit of a rare
  // word, read whole): the best sums then hold the best papers, as an exhaustive ranking would find
  // them, and the ranking's walk is worth avoiding when it reads many more papers than it scores.
  const sumsKnowEveryHit = () => {
    if (!summing || filtered || !flatOr(request.query) || !phrases.every(isSingleToken)) return false;
    let walked = 0;
    for (const [place, key] of [...impactPhrases.keys()].entries()) {
      const n = df.get(key) ?? 0;
      const list = impactLists.get(key);
      const rareHits = rareHitsOf.get(place)?.length ?? 0;
      if (list ? list.offsets.length < n : n > tuning.rareWordHits || rareHits !== n) return false;
      walked += walk.get(key) ?? n;
    }
    return impactPhrases.size === unique.length && walked > tuning.exhaustiveWalk;
  };

  const exhaustive = async (): Promise<RankResult<Row>> => {
    const s3 = performance.now();
    const rows = await exhaustivePage<Row>(db, request);
    mark("exhaustive", s3);
    return {
      rows: request.reference ? rows : knownItemFirst(request.query, rows),
      counted,
      method: "exhaustive",
      candidates: 0,
    };
  };
  const pageEnd = request.start + request.limit;
  // Few hits: score them all (exact, and cheap below the count cap), unless scoring them reads far
  // more than the hits (title words: FTS5 reads every paper holding the word, ti: or not) while
  // the impact sums know every hit's score.
  if (
    request.reference ||
    counted.matched === 0 ||
    (!request.isLowerBound(counted) && !sumsKnowEveryHit()) ||
    request.ascending ||
    pageEnd > tuning.rescored ||
    stats.rows === 0
  )
    return exhaustive();
  const others = unique.filter((p) => !isSingleToken(p));
  if (others.length > 0) {
    const s4 = performance.now();
    const more = await db.batch<{ n: number }>(others.map((p) => dfStatement(db, p)));
    for (const [i, p] of others.entries()) df.set(phraseKey(p), Number(more[i]!.results[0]?.n ?? 0));
    // A phrase's words' doclists are read whole: count it as the cost of a common word.
    for (const p of others) walk.set(phraseKey(p), stats.rows);
    mark("stats", s4);
  }

  // Candidate sources, each cheap (a bounded number of hits scored by FTS5, or index seeks), in
  // src/search/sources/. Candidates come from the phrases a hit must or may hold, never from a
  // NOT's (its papers are the ones left out).
  const byRarity = unique
    .filter((p) => positiveKeys.has(phraseKey(p)))
    .sort((a, b) => df.get(phraseKey(a))! - df.get(phraseKey(b))!);
  const filters = request.filters;
  const s7 = performance.now();
  const sums = impactSums({ phrases, impactPhrases, impactLists, rareHitsOf, df, stats, filters, filtered, tuning });
  if (impactLists.size > 0) mark("impacts", s7);
  const { summed } = sums;
  const rare = rarePhrases({ byRarity, summed, walk, filters, tuning });
  const parts = [
    sums.part,
    rare.part,
    allTerms({ byRarity, summed, df, stats, filters, tuning }),
    pairs({ byRarity, summed, df, walk, stats, filters, tuning }),
    champions({ query: request.query, byRarity, unique, rare: rare.rare, summed, filters, pageEnd, tuning }),
  ].filter((part): part is CandidatePart => part !== undefined && part !== null);
  if (parts.length === 0) return exhaustive();
  const page = await rescoreCandidates<Row>(db, request, parts, { phrases, stats, df, pageEnd, mark });
  return page ? { ...page, counted } : exhaustive();
}

/**
 * Only phrases of several words (a quoted title): no candidate source serves them (each phrase
 * reads its words' whole doclists), so they are ranked exhaustively, and one statement gives the
 * page and the count (the same intersection, read once), unless verifiedPhrase ranks them exactly
 * without FTS5's phrase walk.
 */
async function rankPhrasesOnly<Row extends { paper_key: number }>(
  db: D1Reader,
  request: RankRequest,
  tuning: typeof RANK_TUNING,
  mark: (stage: string, since: number) => void,
): Promise<RankResult<Row>> {
  const verified = await verifiedPhrase<Row>(db, request, tuning, mark);
  if (verified !== null) return verified;
  const s5 = performance.now();
  const { results } = await db
    .prepare(
      // bm25() cannot sit beside a window function: the hits are scored in a materialized CTE first.
      `WITH hits AS MATERIALIZED (SELECT rowid AS k, ${BM25_SQL} AS s FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?)
       SELECT p.paper_key AS paper_key, ${request.select}, t.total AS total FROM
         (SELECT k, s, count(*) OVER () AS total FROM hits ORDER BY s ${request.ascending ? "DESC" : "ASC"}, k ${request.ascending ? "ASC" : "DESC"} LIMIT ? OFFSET ?) t
       JOIN arxiv_papers p ON p.paper_key = t.k ORDER BY t.s ${request.ascending ? "DESC" : "ASC"}, t.k ${request.ascending ? "ASC" : "DESC"}`,
    )
    .bind(toMatch(request.query), request.limit, request.start)
    .all<Row & { total: number }>();
  mark("exhaustive", s5);
  // A page past the last hit has no row to carry the total: count it (a rare request).
  const total = results[0]?.total ?? (await request.count().first<{ matched: number }>())?.matched ?? 0;
  const rows = results.map(({ total: _total, ...row }) => row as unknown as Row);
  return {
    rows: request.reference ? rows : knownItemFirst(request.query, rows),
    counted: { scanned: total, matched: total },
    method: "exhaustive",
    candidates: 0,
  };
}

/**
 * A quoted phrase of three or more words (a quoted title), ranked exactly without FTS5's phrase
 * query: that query walks every word's doclist with its positions, and a title's common words
 * ("of", "the") are held by most of the mirror (a quoted title took 100-1,600 ms at 3.2 million
 * papers). Every paper holding the phrase holds its rarest words, so the papers holding those
 * together (an intersection of short doclists) are fetched, tokenized, and kept where the words
 * stand adjacent and in order; the hits, their count and their bm25 (the phrase's idf from that
 * count, as FTS5 takes it) are then exact. Null when those papers are more than `cap` (the
 * phrase's words are all common): the caller ranks it with FTS5.
 */
async function verifiedPhrase<Row extends { paper_key: number }>(
  db: D1Reader,
  request: RankRequest,
  tuning: typeof RANK_TUNING,
  mark: (stage: string, since: number) => void,
): Promise<RankResult<Row> | null> {
  const query = request.query;
  if (query.kind !== "phrase" || !verifiable(query) || request.reference) return null;
  const cap = tuning.verifiedPhraseHits;
  const started = performance.now();
  // Each distinct word as a phrase of its own (a word of several tokens, u(1), stays a phrase), in the phrase's column.
  const words = [...new Set(query.words)].map((word) => phrase([word], query.column));
  const [frequencies, totals] = await db.batch<Record<string, unknown>>([
    db
      .prepare(
        `SELECT coalesce((SELECT docs FROM arxiv_rank_terms WHERE term = w.value ->> 0 AND col = -1),
                (SELECT count(*) FROM (SELECT 1 FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH w.value ->> 1 LIMIT 100000))) AS n
         FROM json_each(?) w ORDER BY w.key`,
      )
      .bind(JSON.stringify(words.map((w) => [w.stems[0], toMatch({ ...w, column: null })]))),
    db.prepare("SELECT block FROM arxiv_papers_fts_data WHERE id = 1"),
  ]);
  const stats = readStats(totals!.results[0]?.block);
  const df = (frequencies!.results as { n: number }[]).map((r) => Number(r.n));
  // The rarest words, at least two, until the papers expected to hold them all are a handful.
  const byRarity = words.map((w, i) => ({ w, n: df[i]! })).sort((a, b) => a.n - b.n);
  const chosen: Phrase[] = [];
  let expected = stats.rows;
  for (const { w, n } of byRarity.slice(0, 4)) {
    if (chosen.length >= 2 && expected <= 5) break;
    chosen.push(w);
    expected = (expected * n) / Math.max(1, stats.rows);
  }
  if (stats.rows === 0) return null;
  if (expected > cap) {
    // FTS5 would walk the phrase: refused when its words are all common (tooBroad left it here).
    const tokenDocs = new Map(
      words.flatMap((w, i) =>
        w.stems
          .join(" ")
          .split(" ")
          .map((token) => [token, df[i]!]),
      ),
    );
    const work = phraseWork(
      query.stems
        .join(" ")
        .split(" ")
        .map((token) => tokenDocs.get(token) ?? 0),
      stats.rows,
    );
    return work > tuning.phraseMaxWork
      ? { live: broadPhraseReason([query], work), counted: { scanned: 0, matched: 0 } }
      : null;
  }
  const together = toMatch({ kind: "and", children: chosen });
  const [counted, fetched] = await db.batch<Record<string, unknown>>([
    db
      .prepare(
        `SELECT count(*) AS n FROM (SELECT 1 FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ? LIMIT ${cap + 1})`,
      )
      .bind(together),
    // The rows only when they are few (the same count, evaluated once).
    db
      .prepare(
        `SELECT p.paper_key AS paper_key, ${request.select} FROM arxiv_papers p
         WHERE p.paper_key IN (SELECT rowid FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?)
           AND (SELECT count(*) FROM (SELECT 1 FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ? LIMIT ${cap + 1})) <= ${cap}`,
      )
      .bind(together, together),
  ]);
  if (Number((counted!.results[0] as { n: number } | undefined)?.n ?? 0) > cap) return null;
  const hits: { row: Row; counts: number[]; length: number }[] = [];
  for (const row of fetched!.results as unknown as (Row & StoredText)[]) {
    const doc = [row.title, row.authors, row.abstract, row.comment ?? "", row.journal_ref ?? ""].map(tokens);
    const counts = phraseCounts(query, doc);
    if (counts.some((n) => n > 0))
      hits.push({ row, counts, length: doc.reduce((sum, column) => sum + column.length, 0) });
  }
  const phraseIdf = [idf(stats, hits.length)];
  const direction = request.ascending ? -1 : 1;
  const ranked = hits
    .map((hit) => ({ row: hit.row, score: scoreCounts(phraseIdf, [hit.counts], hit.length, stats) }))
    .sort((a, b) => direction * (b.score - a.score) || direction * (b.row.paper_key - a.row.paper_key))
    .map((hit) => hit.row);
  mark("verified phrase", started);
  return {
    rows: knownItemFirst(query, ranked).slice(request.start, request.start + request.limit),
    counted: { scanned: hits.length, matched: hits.length },
    method: "verified",
    candidates: hits.length,
  };
}

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
const broadPhraseReason = (phrases: readonly Phrase[], work: number) =>
  `the quoted ${phrases.length === 1 ? `phrase "${phrases[0]!.words.join(" ")}" is` : "phrases are"} made of words held by so many papers that matching ${phrases.length === 1 ? "it" : "them"} would read about ${Math.round(work).toLocaleString("en-US")} of their word positions, more than the mirror reads for one search`;

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
         THEN (SELECT coalesce(sum(docs), 0) FROM arxiv_rank_terms WHERE col = -1 AND term >= w.value ->> 1 AND term < (w.value ->> 1) || char(1114111))
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
    const held = `the prefix ${prefixes[broad]!.words.at(-1)}* expands to index terms held by ${docs[broad]!.toLocaleString("en-US")} papers`;
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
const verifiable = (query: TextQuery): boolean =>
  query.kind === "phrase" && !query.prefix && query.stems.join(" ").split(" ").length >= 3;

/** The phrases outside every NOT's right side: a hit holds some of them. */
function positivePhrases(query: TextQuery): Phrase[] {
  if (query.kind === "phrase") return [query];
  if (query.kind === "not") return positivePhrases(query.left);
  return query.children.flatMap(positivePhrases);
}

/** Every hit scored by FTS5, the page cut from that order (exact; cost grows with the hits). */
async function exhaustivePage<Row>(db: D1Reader, request: RankRequest): Promise<Row[]> {
  const { clauses, binds } = request.filters("arxiv_papers_fts.rowid");
  const sql = `SELECT p.paper_key AS paper_key, ${request.select} FROM arxiv_papers_fts JOIN arxiv_papers p ON p.paper_key = arxiv_papers_fts.rowid
    WHERE arxiv_papers_fts MATCH ?${clauses.map((c) => ` AND ${c}`).join("")} ORDER BY ${BM25_SQL} ${request.ascending ? "DESC" : "ASC"}, arxiv_papers_fts.rowid ${request.ascending ? "ASC" : "DESC"} LIMIT ? OFFSET ?`;
  const { results } = await db
    .prepare(sql)
    .bind(toMatch(request.query), ...binds, request.limit, request.start)
    .all<Row>();
  return results;
}
