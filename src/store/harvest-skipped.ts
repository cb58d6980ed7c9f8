// The arXiv harvest's unreadable records (arxiv_harvest_skipped): the one module that writes them.
// A record a page could not read is kept here with why; a later read of it (in a page, or by
// GetRecord in the run's skipped step) marks it recovered or deleted. /status counts them.

export interface SkippedRecord {
  identifier: string;
  paperId: string | null;
  problem: string;
}

/** Keeps every unreadable record of a page (a record seen again keeps its first_seen). */
export function skippedStatements(
  db: D1Database,
  runId: string,
  page: number,
  skipped: readonly SkippedRecord[],
  now: string,
): D1PreparedStatement[] {
  const insert = db.prepare(
    `INSERT INTO arxiv_harvest_skipped (identifier, paper_id, run_id, page, reason, first_seen, status) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (identifier) DO UPDATE SET run_id = excluded.run_id, page = excluded.page, reason = excluded.reason,
       status = CASE WHEN arxiv_harvest_skipped.status = 'unreadable' THEN 'unreadable' ELSE 'open' END`,
  );
  return skipped.map((record) =>
    insert.bind(
      record.identifier.slice(0, 200),
      record.paperId,
      runId,
      page,
      record.problem.slice(0, 500),
      now,
      record.paperId === null ? "unreadable" : "open",
    ),
  );
}

/** A record read correctly (in a page or by GetRecord) is no longer unreadable. */
export function recoveredStatement(db: D1Database, paperIds: readonly string[]): D1PreparedStatement | null {
  if (paperIds.length === 0) return null;
  // json_each keeps this one statement (and one bound parameter) whatever the page size.
  return db
    .prepare(
      "UPDATE arxiv_harvest_skipped SET status = 'recovered' WHERE status = 'open' AND paper_id IN (SELECT value FROM json_each(?))",
    )
    .bind(JSON.stringify(paperIds));
}

/** The next unreadable record this run has not retried yet. */
export async function nextSkippedToRetry(
  db: D1Database,
  runId: string,
): Promise<{ identifier: string; paper_id: string } | null> {
  return db
    .prepare(
      `SELECT identifier, paper_id FROM arxiv_harvest_skipped WHERE status = 'open' AND paper_id IS NOT NULL
         AND (last_tried_run IS NULL OR last_tried_run != ?) ORDER BY identifier LIMIT 1`,
    )
    .bind(runId)
    .first<{ identifier: string; paper_id: string }>();
}

export function skippedTriedStatement(
  db: D1Database,
  identifier: string,
  runId: string,
  outcome: { status: "open" | "recovered" | "deleted"; reason?: string },
): D1PreparedStatement {
  return db
    .prepare(
      "UPDATE arxiv_harvest_skipped SET tries = tries + 1, last_tried_run = ?, status = ?, reason = " +
        "coalesce(?, reason) WHERE identifier = ?",
    )
    .bind(runId, outcome.status, outcome.reason ?? null, identifier);
}

export async function skippedTriedThisRun(db: D1Database, runId: string): Promise<number> {
  const row = await db
    .prepare("SELECT count(*) AS n FROM arxiv_harvest_skipped WHERE last_tried_run = ?")
    .bind(runId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}
