// The rows a status report is made of, read from D1 (the report itself, what it shows and how,
// is src/mcp/status-report.ts, beside what serves it). Reads only; every read is one batch.
import { drizzle } from "drizzle-orm/d1";
import type { MirrorShard } from "./arxiv-shards";
import { harvestState } from "./schema";

export type HarvestStateRow = typeof harvestState.$inferSelect;

/** A database's ranking build row and its change log's length (counted up to a bound). */
export interface RankingRows {
  build: { built_at: string; changed_since: number; refreshed_at: string | null; full_requested: number } | undefined;
  waiting: number;
}

/** The arXiv harvest's run detail: its datestamp windows, the records kept aside, the ranking tables. */
export interface ArxivHarvestRows {
  windowsDone: number;
  currentWindow:
    | { idx: number; from_date: string | null; until_date: string | null; pages: number; restarts: number }
    | undefined;
  skipped: Map<string, number>;
  ranking: RankingRows;
}

/** What D1 says of one database: its size after a statement, and for a mirror shard, its papers and ranking tables. */
export interface DatabaseProbe {
  sizeAfter: number | null;
  arxivRecords: number;
  ranking?: RankingRows;
}

/** Every source's harvest state row. */
export function readHarvestStates(db: D1Database): Promise<HarvestStateRow[]> {
  return drizzle(db).select().from(harvestState).all();
}

export async function readArxivHarvestRows(db: D1Database, runId: string | null): Promise<ArxivHarvestRows> {
  const [windows, current, skipped, build, waiting] = await db.batch([
    db.prepare("SELECT count(*) AS done FROM arxiv_harvest_windows WHERE run_id = ? AND status = 'done'").bind(runId),
    db
      .prepare(
        "SELECT idx, from_date, until_date, pages, restarts FROM arxiv_harvest_windows WHERE run_id " +
          "= ? AND status = 'listing' ORDER BY idx DESC LIMIT 1",
      )
      .bind(runId),
    db.prepare("SELECT status, count(*) AS n FROM arxiv_harvest_skipped GROUP BY status"),
    ...rankingStatements(db),
  ]);
  return {
    windowsDone: (windows!.results[0] as { done: number } | undefined)?.done ?? 0,
    currentWindow: current!.results[0] as ArxivHarvestRows["currentWindow"],
    skipped: new Map((skipped!.results as { status: string; n: number }[]).map((row) => [row.status, row.n])),
    ranking: rankingRows(build!, waiting!),
  };
}

/** One database's size as D1 reports it after any statement (meta.size_after); a mirror shard's papers and ranking too. */
export async function probeDatabase(db: D1Database, shard?: MirrorShard): Promise<DatabaseProbe> {
  const [probe, build, waiting] = await db.batch([
    db.prepare("SELECT records FROM harvest_state WHERE source = 'arxiv'"),
    ...(shard ? rankingStatements(db) : []),
  ]);
  return {
    sizeAfter: typeof probe!.meta.size_after === "number" ? probe!.meta.size_after : null,
    arxivRecords: (probe!.results[0] as { records: number } | undefined)?.records ?? 0,
    ...(shard ? { ranking: rankingRows(build!, waiting!) } : {}),
  };
}

function rankingStatements(db: D1Database): [D1PreparedStatement, D1PreparedStatement] {
  return [
    db.prepare("SELECT built_at, changed_since, refreshed_at, full_requested FROM arxiv_rank_build WHERE id = 1"),
    // Counted up to a bound: the log of a cold re-harvest can hold millions.
    db.prepare("SELECT count(*) AS n FROM (SELECT 1 FROM arxiv_rank_changes LIMIT 1000000)"),
  ];
}

function rankingRows(build: D1Result, waiting: D1Result): RankingRows {
  return {
    build: build.results[0] as RankingRows["build"],
    waiting: (waiting.results[0] as { n: number } | undefined)?.n ?? 0,
  };
}
