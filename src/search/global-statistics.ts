// The BM25 statistics of a mirror split across databases: each database's FTS5 index knows only
// its own papers (rows, tokens, each word's document frequency), so a sharded search reads them
// from every shard and sums them, and rescores the shards' hits with the sums (search/rescore.ts's
// textScorer): the scores are the ones one database holding every paper would give.
import type { CorpusStats } from "./bm25.ts";
import { type Phrase, phraseKey, toMatch } from "./expression.ts";
import { isSingleToken } from "./phrase-kinds.ts";
import { readStats } from "./rank-statistics.ts";
import type { D1Reader } from "./rank-types.ts";

export interface ShardStatistics {
  stats: CorpusStats;
  /** Each phrase's document frequency, in the order asked. */
  df: number[];
}

/**
 * One shard's totals and its frequencies of these phrases, in one batch. A single word's
 * frequency is read as the ranker reads it (its ranking-table count, else FTS5's); a phrase of
 * several words or a prefix is counted by FTS5.
 */
export async function shardStatistics(db: D1Reader, phrases: readonly Phrase[]): Promise<ShardStatistics> {
  const singles = phrases.filter(isSingleToken);
  const others = phrases.filter((p) => !isSingleToken(p));
  const results = await db.batch<Record<string, unknown>>([
    db.prepare("SELECT block FROM arxiv_papers_fts_data WHERE id = 1"),
    db
      .prepare(
        `SELECT coalesce((SELECT docs FROM arxiv_rank_terms WHERE term = w.value ->> 0 AND col = w.value ->> 1),
                   (SELECT count(*) FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH w.value ->> 2)) AS n
         FROM json_each(?) w ORDER BY w.key`,
      )
      .bind(JSON.stringify(singles.map((p) => [p.stems[0], p.column ?? -1, toMatch(p)]))),
    ...others.map((p) =>
      db.prepare("SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?").bind(toMatch(p)),
    ),
  ]);
  const byPhrase = new Map<Phrase, number>();
  for (const [i, p] of singles.entries()) byPhrase.set(p, Number(results[1]!.results[i]?.n ?? 0));
  for (const [i, p] of others.entries()) byPhrase.set(p, Number(results[2 + i]!.results[0]?.n ?? 0));
  return { stats: readStats(results[0]!.results[0]?.block), df: phrases.map((p) => byPhrase.get(p)!) };
}

/** The shards' statistics summed: what one database holding all their papers would read. */
export function sumStatistics(
  phrases: readonly Phrase[],
  shards: readonly ShardStatistics[],
): { stats: CorpusStats; df: Map<string, number> } {
  const stats = { rows: 0, tokens: 0 };
  const df = new Map<string, number>(phrases.map((p) => [phraseKey(p), 0]));
  for (const shard of shards) {
    stats.rows += shard.stats.rows;
    stats.tokens += shard.stats.tokens;
    for (const [i, p] of phrases.entries()) df.set(phraseKey(p), df.get(phraseKey(p))! + shard.df[i]!);
  }
  return { stats, df };
}
