// harvest_state and the arXiv harvest's checkpoint in D1: the one module that writes them (the
// arxiv row with its run's windows; the nber row; a failed run of either). Unreadable records: harvest-skipped.ts.
// The harvests call these; status pages read them through store/status.ts.
import { drizzle } from "drizzle-orm/d1";
import { z } from "zod";
import { harvestState } from "./schema";

/** Sets fields of a source's row (created when missing), stamped updated_at. */
export async function setHarvestState(
  db: D1Database,
  source: string,
  values: Partial<typeof harvestState.$inferInsert>,
): Promise<void> {
  const row = { source, ...values, updatedAt: new Date().toISOString() };
  await drizzle(db).insert(harvestState).values(row).onConflictDoUpdate({ target: harvestState.source, set: row });
}

/** A run that stops for good: status error with its reason (the papers already stored keep serving). */
export async function markHarvestFailed(db: D1Database, source: string, reason: string): Promise<void> {
  const now = new Date().toISOString();
  await setHarvestState(db, source, { status: "error", lastError: reason, finishedAt: now });
}

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const windowSchema = z.object({ idx: z.number().int().min(0), from: date.nullable(), until: date.nullable() });
/** A failing step's retry bookkeeping, carried by the retried message. */
const retryFields = { attempt: z.number().int().min(1).optional(), failing_since: z.number().int().min(0).optional() };
const step = z.number().int().min(1);

export const cursorSchema = z.discriminatedUnion("kind", [
  /** One page of one window: a resumption token, or (token null) the window's first page. */
  z.object({
    kind: z.literal("list"),
    step,
    window: windowSchema,
    token: z.string().max(5000).nullable(),
    window_pages: z.number().int().min(0),
    ...retryFields,
  }),
  /**
   * A rebalance run (a shard added): the papers of one shard that its key range does not hold,
   * moved to their shards a batch per step (src/store/arxiv-shard-move.ts). `after`: the last key moved.
   */
  z.object({
    kind: z.literal("move"),
    step,
    shard: z.number().int().min(0),
    after: z.number().int(),
    moved: z.number().int().min(0),
    ...retryFields,
  }),
  /** End of the run: retry one unreadable record with GetRecord (or finish when none is left). */
  z.object({ kind: z.literal("skipped"), step, ...retryFields }),
  /** The post-run verify, one slice per step. */
  z.object({
    kind: z.literal("verify"),
    step,
    phase: z.enum(["papers", "categories", "totals"]),
    /** papers: the last paper key checked; categories: the category and the last key in it. */
    after: z.number().int(),
    category: z.string().max(100).nullable(),
    counts: z.object({
      papers: z.number().int().min(0),
      missing: z.number().int().min(0),
      fts_missing: z.number().int().min(0),
      fts_orphans: z.number().int().min(0),
      orphans: z.number().int().min(0),
      category_rows: z.number().int().min(0),
      /** Papers outside their shard's key range. */
      misplaced: z.number().int().min(0).optional(),
    }),
    /** The shard being checked (ARXIV_MIRROR_SHARDS order; absent: the first). */
    shard: z.number().int().min(0).optional(),
    /** Rows per slice, set at the first step from the mirror's size (absent: the default). */
    slice: z.number().int().min(1).optional(),
    ...retryFields,
  }),
  /**
   * After the verify: the ranking tables (src/store/ranking/refresh.ts). No phase: the plan
   * (or, with `after` set, a full rebuild begun before phases existed); clear then full: the
   * whole vocabulary, a slice per step; floors (once, for lists built before floors were kept),
   * stage, then merge: the run's changed papers, then the terms they touched. `after` is the last term (or, staging, paper key) done.
   */
  z.object({
    kind: z.literal("rank"),
    step,
    phase: z.enum(["clear", "full", "floors", "stage", "merge"]).optional(),
    after: z.string().max(200),
    terms: z.number().int().min(0),
    /** Changed papers staged so far. */
    papers: z.number().int().min(0).optional(),
    /** The shard whose tables are refreshed (ARXIV_MIRROR_SHARDS order; absent: the first). */
    shard: z.number().int().min(0).optional(),
    ...retryFields,
  }),
]);
export type Cursor = z.infer<typeof cursorSchema>;
export type ListCursor = Extract<Cursor, { kind: "list" }>;
export type VerifyCursor = Extract<Cursor, { kind: "verify" }>;
export type RankCursor = Extract<Cursor, { kind: "rank" }>;
export type MoveCursor = Extract<Cursor, { kind: "move" }>;

export interface ArxivState {
  status: "idle" | "running" | "done" | "error";
  run_id: string | null;
  mode: string | null;
  step: number;
  enqueued_step: number;
  next_cursor: string | null;
  next_attempt_at: string | null;
  started_at: string | null;
  updated_at: string | null;
  watermark: string | null;
  complete_at: string | null;
  /** The mirror's papers, every shard's. */
  records: number;
}

export async function readArxivState(db: D1Database): Promise<ArxivState | null> {
  return db
    .prepare(
      `SELECT status, run_id, mode, step, enqueued_step, next_cursor, next_attempt_at, started_at,
        updated_at, watermark, complete_at, records + shard_records AS records
       FROM harvest_state WHERE source = 'arxiv'`,
    )
    .first<ArxivState>();
}

export function parseCursor(text: string | null): Cursor | null {
  if (text === null) return null;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A new run: every per-run field reset, its first step queued (the caller sends it). */
export function startRunStatement(
  db: D1Database,
  run: { runId: string; mode: string; from: string | null; first: Cursor; now: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO harvest_state (source, status, run_id, mode, pages, step, enqueued_step, next_cursor,
        next_attempt_at, resumption_token, from_datestamp,
         run_records, run_deleted, run_retries, run_resumes, run_restarts, complete_list_size, started_at,
         finished_at, updated_at, last_error, verified)
       VALUES ('arxiv', 'running', ?1, ?2, 0, 0, 1, ?3, NULL, NULL, ?4, 0, 0, 0, 0, 0, NULL, ?5, NULL, ?5, NULL, NULL)
       ON CONFLICT (source) DO UPDATE SET status = 'running', run_id = ?1, mode = ?2, pages = 0, step = 0,
         enqueued_step = 1, next_cursor = ?3,
         next_attempt_at = NULL, resumption_token = NULL, from_datestamp = ?4, run_records = 0, run_deleted = 0,
         run_retries = 0, run_resumes = 0, run_restarts = 0, complete_list_size = NULL, started_at = ?5,
         finished_at = NULL, updated_at = ?5, last_error = NULL, verified = NULL, run_db_ms = 0, run_rows_read = 0,
         run_rows_written = 0, rank_db_ms = 0, run_slowest_ms = 0`,
    )
    .bind(run.runId, run.mode, JSON.stringify(run.first), run.from, run.now);
}

export function windowStartStatement(
  db: D1Database,
  runId: string,
  window: { idx: number; from: string | null; until: string | null },
  now: string,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO arxiv_harvest_windows (run_id, idx, from_date, until_date, status, started_at) VALUES (?, ?, ?, ?, 'listing', ?)
       ON CONFLICT (run_id, idx) DO NOTHING`,
    )
    .bind(runId, window.idx, window.from, window.until, now);
}

/** Counts a page against its window; `done` closes the window. */
export function windowPageStatement(
  db: D1Database,
  runId: string,
  idx: number,
  page: { records: number; counted: boolean; done: boolean; restarted: boolean; now: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE arxiv_harvest_windows SET pages = pages + ?, records = records + ?, restarts = restarts + ?,
         status = CASE WHEN ? THEN 'done' ELSE status END, finished_at = CASE WHEN ? THEN ? ELSE finished_at END
       WHERE run_id = ? AND idx = ?`,
    )
    .bind(
      page.counted ? 1 : 0,
      page.records,
      page.restarted ? 1 : 0,
      page.done ? 1 : 0,
      page.done ? 1 : 0,
      page.now,
      runId,
      idx,
    );
}

export interface StepUpdate {
  runId: string;
  step: number;
  next: Cursor | null;
  now: string;
  pages?: number;
  records?: number;
  deleted?: number;
  resumptionToken?: string | null;
  newestDatestamp?: string | null;
  completeListSize?: number | null;
  restarted?: boolean;
  lastError?: string | null;
}

/**
 * Moves the checkpoint to `step` with its next cursor, in the same batch as the step's writes.
 * It applies only on top of the step before it: a duplicate of a step already applied changes
 * nothing here (its record upserts are idempotent).
 * last_datestamp is shown on /status only: it is the newest datestamp seen, not a resume point.
 */
export function stepStatement(db: D1Database, update: StepUpdate): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE harvest_state SET step = ?1, next_cursor = ?2, next_attempt_at = NULL, updated_at = ?3,
         pages = pages + ?4, run_records = run_records + ?5, run_deleted = run_deleted + ?6,
         resumption_token = CASE WHEN ?7 THEN ?8 ELSE resumption_token END,
         last_datestamp = CASE WHEN ?9 IS NOT NULL AND (last_datestamp IS NULL OR ?9 > last_datestamp) THEN ?9 ELSE last_datestamp END,
         complete_list_size = coalesce(?10, complete_list_size), run_restarts = run_restarts + ?11,
         last_error = coalesce(?12, last_error)
       WHERE source = 'arxiv' AND run_id = ?13 AND step = ?1 - 1`,
    )
    .bind(
      update.step,
      update.next === null ? null : JSON.stringify(update.next),
      update.now,
      update.pages ?? 0,
      update.records ?? 0,
      update.deleted ?? 0,
      update.resumptionToken === undefined ? 0 : 1,
      update.resumptionToken ?? null,
      update.newestDatestamp ?? null,
      update.completeListSize ?? null,
      update.restarted ? 1 : 0,
      update.lastError ?? null,
      update.runId,
    );
}

/**
 * The run is complete: the watermark moves to the day the run started (the next refresh lists
 * from there, re-reading that day and whatever changed while this run went on), and a cold run
 * makes the mirror whole.
 */
export function finishRunStatement(
  db: D1Database,
  run: { runId: string; step: number; next: Cursor; now: string; watermark: string | null; scope: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE harvest_state SET status = 'done', step = ?1, next_cursor = ?2, next_attempt_at = NULL,
        finished_at = ?3, last_success_at = ?3,
         updated_at = ?3, resumption_token = NULL, watermark = ?4,
         complete_at = CASE WHEN mode = 'cold' THEN coalesce(complete_at, ?3) ELSE complete_at END,
         complete_scope = CASE WHEN mode = 'cold' THEN ?5 ELSE complete_scope END
       WHERE source = 'arxiv' AND run_id = ?6 AND step = ?1 - 1`,
    )
    .bind(run.step, JSON.stringify(run.next), run.now, run.watermark, run.scope, run.runId);
}

/** A queued message for `step` exists: a replay after this need not send it again. (With the last page's write time, shown on /status.) */
export async function markEnqueued(db: D1Database, runId: string, step: number, pageMs?: number): Promise<void> {
  await db
    .prepare(
      "UPDATE harvest_state SET enqueued_step = max(enqueued_step, ?), last_page_ms = coalesce(?, " +
        "last_page_ms) WHERE source = 'arxiv' AND run_id = ?",
    )
    .bind(step, pageMs ?? null, runId)
    .run();
}

/** A failed attempt was queued again for later: the watchdog waits for it instead of resuming. */
export async function noteRetry(
  db: D1Database,
  runId: string,
  retry: { at: string; counted: boolean; error: string },
): Promise<void> {
  await db
    .prepare(
      "UPDATE harvest_state SET next_attempt_at = ?, run_retries = run_retries + ?, last_error = ? WHERE source = 'arxiv' AND run_id = ?",
    )
    .bind(retry.at, retry.counted ? 1 : 0, retry.error, runId)
    .run();
}

/** The watchdog or the cron picked the run up again (its next message was lost, or it had failed). */
export async function noteResume(db: D1Database, runId: string, next: Cursor, now: string, why: string): Promise<void> {
  await db
    .prepare(
      `UPDATE harvest_state SET status = CASE WHEN status = 'error' THEN 'running' ELSE status END, next_cursor = ?, next_attempt_at = NULL,
         run_resumes = run_resumes + 1, updated_at = ?,
         finished_at = CASE WHEN status = 'error' THEN NULL ELSE finished_at END, last_error = ?
       WHERE source = 'arxiv' AND run_id = ?`,
    )
    .bind(JSON.stringify(next), now, why, runId)
    .run();
}

/** The run stops (its checkpoint stays, so the next cron resumes it from the window it was in). */
export async function markArxivRunFailed(db: D1Database, runId: string, reason: string): Promise<boolean> {
  const now = new Date().toISOString();
  const result = await db
    .prepare(
      "UPDATE harvest_state SET status = 'error', last_error = ?, updated_at = ?, finished_at = ?, " +
        "next_attempt_at = NULL WHERE source = 'arxiv' AND run_id = ? AND status = 'running'",
    )
    .bind(reason, now, now, runId)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/** The verify's result; the run's steps go on with `next` (the ranking tables' rebuild). */
export function verifiedStatement(
  db: D1Database,
  runId: string,
  step: number,
  result: unknown,
  now: string,
  next: Cursor | null = null,
): D1PreparedStatement {
  return db
    .prepare(
      "UPDATE harvest_state SET verified = ?, step = ?, next_cursor = ?, updated_at = ? WHERE source " +
        "= 'arxiv' AND run_id = ? AND step = ? - 1",
    )
    .bind(JSON.stringify(result), step, next === null ? null : JSON.stringify(next), now, runId, step);
}

/** Adds a step's database cost to its run (a rank step's SQL time apart, as the rebuild's). */
export async function addRunDbCost(
  db: D1Database,
  runId: string,
  rank: boolean,
  cost: { sql_duration_ms: number; rows_read: number; rows_written: number; slowest_ms: number },
): Promise<void> {
  await db
    .prepare(
      "UPDATE harvest_state SET run_db_ms = run_db_ms + ?1, rank_db_ms = rank_db_ms + ?2, " +
        "run_rows_read = run_rows_read + ?3, run_rows_written = run_rows_written + ?4, " +
        "run_slowest_ms = max(run_slowest_ms, ?5) WHERE source = 'arxiv' AND run_id = ?6",
    )
    .bind(
      cost.sql_duration_ms,
      rank ? cost.sql_duration_ms : 0,
      cost.rows_read,
      cost.rows_written,
      cost.slowest_ms,
      runId,
    )
    .run();
}
