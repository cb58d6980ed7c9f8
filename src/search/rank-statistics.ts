// The ranker's first round trip, one batch: the capped count of the hits, the corpus totals,
// each single word's frequency and what reading it costs, the impact lists of a many-word query's
// words (those this isolate holds are not sent again) and the hits of its words too rare for a
// list. A phrase's frequency is an FTS5 count over its words' doclists: read later, if needed.
import { type CorpusStats, corpusStats } from "./bm25.ts";
import { BM25_SQL } from "./bm25-sql.ts";
import { type Phrase, phraseKey, type TextQuery, toMatch } from "./expression.ts";
import { type HeldList, isolateImpactCache } from "./impact-cache.ts";
import { type DecodedImpacts, decodeImpactList } from "./impacts.ts";
import { isSingleToken } from "./phrase-kinds.ts";
import type { RANK_TUNING } from "./rank-tuning.ts";
import type { D1Reader, RankRequest, StageMark } from "./rank-types.ts";

export interface Statistics {
  counted: { scanned: number; matched: number };
  stats: CorpusStats;
  /** Each single word's document frequency, keyed as the query's phrases are. */
  df: Map<string, number>;
  /** What FTS5 reads to find each word's hits. */
  walk: Map<string, number>;
  impactLists: Map<string, DecodedImpacts>;
  /** Each rare word's hits, by its place in impactPhrases. */
  rareHitsOf: Map<number, { k: number; s: number }[]>;
}

/** What the batch is built from: the query's single words, the words summed, and the knobs. */
export interface StatisticsInput {
  singles: Phrase[];
  impactPhrases: Map<string, Phrase>;
  summing: boolean;
  tuning: typeof RANK_TUNING;
  mark: StageMark;
}

export async function readStatistics(db: D1Reader, request: RankRequest, input: StatisticsInput): Promise<Statistics> {
  const { singles, impactPhrases, summing, mark } = input;
  const reaches = reachesCap(request);
  // The lists this isolate holds, taken now: a concurrent request may evict them during the batch.
  const cache = request.impactCache ?? isolateImpactCache;
  const held = new Map<string, HeldList>();
  if (summing)
    for (const key of impactPhrases.keys()) {
      const list = cache.get(key);
      if (list !== undefined) held.set(key, list);
    }
  if (request.trace) request.trace.held_lists = held.size;
  const statements = statisticsStatements(db, request, input, reaches, held);
  const s0 = performance.now();
  const results = await db.batch<Record<string, unknown>>(statements);
  mark("stats", s0);
  const countRow = results[0]!.results[0] as { scanned: number; matched: number } | undefined;
  const counted = { scanned: countRow?.scanned ?? 0, matched: countRow?.matched ?? 0 };
  const stats = readStats(results[1]!.results[0]?.block);
  const singleRows = results[2]!.results as { n: number; walk: number | null }[];
  const df = new Map(singles.map((p, i) => [phraseKey(p), Number(singleRows[i]?.n ?? 0)]));
  // What FTS5 reads to find a phrase's hits: its words' whole doclists (a column filter is applied
  // while reading them), so a title-only phrase of a common word costs what the word costs.
  const walk = new Map(singles.map((p, i) => [phraseKey(p), Number(singleRows[i]?.walk ?? df.get(phraseKey(p)) ?? 0)]));
  // Keyed as the query's phrases are (column and stem).
  const impactLists = new Map<string, DecodedImpacts>(
    (results[3]!.results as { term: string; col: number; docs: number; stamp: number; postings: string | null }[]).map(
      (r) => {
        const key = `${r.col === -1 ? "*" : r.col}|${r.term}`;
        if (r.postings === null) return [key, held.get(key)!.list];
        const list = decodeImpactList(r.postings);
        cache.put(key, { docs: r.docs, chars: r.postings.length, stamp: r.stamp, list });
        return [key, list];
      },
    ),
  );
  // Each rare word's hits, by its place in impactPhrases.
  const rareRows = results[4]!.results as { word: number; k: number; s: number }[];
  const rareHitsOf = new Map<number, { k: number; s: number }[]>();
  for (const row of rareRows) {
    const hits = rareHitsOf.get(row.word) ?? [];
    if (hits.length === 0) rareHitsOf.set(row.word, hits);
    hits.push(row);
  }
  return { counted, stats, df, walk, impactLists, rareHitsOf };
}

export const readStats = (block: unknown): CorpusStats =>
  corpusStats(
    block instanceof Uint8Array ? block : new Uint8Array((block as ArrayBuffer | number[] | undefined) ?? []),
  );

/** The phrases whose every paper is a hit: the query itself, or an OR's children's. */
function sufficientWords(query: TextQuery): Phrase[] {
  if (query.kind === "phrase") return [query];
  if (query.kind === "or") return query.children.flatMap(sufficientWords);
  return [];
}

/**
 * The condition under which the count may skip its walk: a word whose every paper is a hit (a
 * word of an OR, as plain words are), held by more papers than the cap with room for papers
 * changed since the ranking tables were built, makes the count reach the cap (an OR of a
 * question's dozen words: about 3 ms).
 */
function reachesCap(request: RankRequest): { sql: string; binds: unknown[] } | undefined {
  const sufficient = sufficientWords(request.query).filter(isSingleToken);
  return sufficient.length > 0
    ? {
        sql:
          "EXISTS (SELECT 1 FROM json_each(?) w JOIN arxiv_rank_terms t ON t.term = w.value ->> 0 " +
          "AND t.col = w.value ->> 1 WHERE t.docs >= ?)",
        binds: [JSON.stringify(sufficient.map((p) => [p.stems[0], p.column ?? -1])), Math.ceil(request.countCap * 1.1)],
      }
    : undefined;
}

/** The batch's five statements, in the order readStatistics reads their answers. */
function statisticsStatements(
  db: D1Reader,
  request: RankRequest,
  { singles, impactPhrases, summing, tuning }: StatisticsInput,
  reaches: { sql: string; binds: unknown[] } | undefined,
  held: Map<string, HeldList>,
): D1PreparedStatement[] {
  return [
    request.count(reaches),
    db.prepare("SELECT block FROM arxiv_papers_fts_data WHERE id = 1"),
    // Every single word in one statement: [stem, column, MATCH] -> its frequency and what reading it costs.
    db
      .prepare(
        `SELECT coalesce((SELECT docs FROM arxiv_rank_terms WHERE term = w.value ->> 0 AND col = w.value ->> 1),
                   (SELECT count(*) FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH w.value ->> 2)) AS n,
          (SELECT docs FROM arxiv_rank_terms WHERE term = w.value ->> 0 AND col = -1) AS walk
   FROM json_each(?) w ORDER BY w.key`,
      )
      .bind(JSON.stringify(singles.map((p) => [p.stems[0], p.column ?? -1, toMatch(p)]))),
    // The impact lists of a many-word query's words (one word alone is served by its champions);
    // a list this isolate holds comes back as NULL while its count, length and stamp are unchanged.
    db
      .prepare(
        `SELECT i.term AS term, i.col AS col, i.docs AS docs, i.stamp AS stamp,
       CASE WHEN i.docs = w.value ->> 2 AND length(i.postings) = w.value ->> 3 AND i.stamp = w.value ->> 4
         THEN NULL ELSE i.postings END AS postings
     FROM json_each(?) w JOIN arxiv_rank_impacts i ON i.term = w.value ->> 0 AND i.col = w.value ->> 1 ORDER
       BY i.docs LIMIT ${tuning.impactLists}`,
      )
      .bind(
        JSON.stringify(
          summing
            ? [...impactPhrases].map(([key, p]) => {
                const list = held.get(key);
                return [p.stems[0], p.column ?? -1, list?.docs ?? null, list?.chars ?? null, list?.stamp ?? null];
              })
            : [],
        ),
      ),
    // ... and the hits of those words too rare for a list (held by under about 1,000 papers), read
    // whole with their bm25, in this batch rather than in a second round trip once their counts
    // are known. (A join: the NOT EXISTS is tested per word, before its hits are read.)
    db
      .prepare(
        `SELECT w.key AS word, arxiv_papers_fts.rowid AS k, -${BM25_SQL} AS s
     FROM json_each(?) w JOIN arxiv_papers_fts ON arxiv_papers_fts MATCH w.value ->> 2
     WHERE NOT EXISTS (SELECT 1 FROM arxiv_rank_impacts i WHERE i.term = w.value ->> 0 AND i.col = w.value ->> 1)
     ORDER BY w.key, arxiv_papers_fts.rowid LIMIT ${tuning.rareWordHits * Math.max(1, impactPhrases.size) + 1}`,
      )
      .bind(
        JSON.stringify(summing ? [...impactPhrases.values()].map((p) => [p.stems[0], p.column ?? -1, toMatch(p)]) : []),
      ),
  ];
}
