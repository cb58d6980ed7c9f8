// Whether the arXiv mirror may answer: complete, partial (a first harvest under way) or not
// serving, read on every search and lookup and kept a few seconds per isolate.
import { MIRROR_SCHEMA_VERSION } from "./arxiv-row";
import { unmetered } from "./d1-meter";
import { oncePerCall } from "../context";
import { type arxivReaders, callSession } from "./arxiv-shards";

export interface MirrorState {
  /** The mirror holds everything in its scope (its first cold harvest completed, or a seed) and its schema is known. */
  ready: boolean;
  /** Why the mirror cannot answer as a whole one, when it is not ready. */
  reason?: string;
  /** A first harvest is under way (or stopped): the mirror holds some papers, not all. It answers only when arXiv cannot. */
  partial?: { papers: number; description: string };
  papers: number;
  status: string;
  lastDatestamp: string | null;
  /** What the mirror holds all of: "all of arXiv", an OAI set, "the bundled sample". */
  scope: string | null;
  /** When the last harvest run completed, and whether the latest run failed since (the mirror still serves). */
  lastSuccessAt: string | null;
  latestRunFailed: boolean;
  watermark: string | null;
}

// Readiness is read on every search and lookup; it changes once a day, so an isolate keeps it
// for a few seconds (a finished harvest shows within that time).
const STATE_TTL_MS = 5_000;
const stateMemo = new WeakMap<D1Database, { at: number; state: Promise<MirrorState>; settled?: MirrorState }>();

export function forgetMirrorState(db: D1Database): void {
  stateMemo.delete(unmetered(db));
}

/**
 * The mirror answers as a whole once a cold harvest has completed at least once (or a seed
 * loaded it) and its schema is the one this Worker knows. A running or failed refresh does not
 * stop it answering; a first harvest still under way makes it partial, never whole.
 */
export function mirrorState(db: D1Database): Promise<MirrorState> {
  const key = unmetered(db);
  const memo = stateMemo.get(key);
  if (memo && Date.now() - memo.at < STATE_TTL_MS) return memo.state;
  const state = readMirrorState(db);
  const entry: { at: number; state: Promise<MirrorState>; settled?: MirrorState } = { at: Date.now(), state };
  stateMemo.set(key, entry);
  state.then(
    (settled) => {
      entry.settled = settled;
    },
    () => stateMemo.delete(key),
  );
  return state;
}

/**
 * The mirror's state as this call reads it. With read replication, once per call through the
 * call's session of DB: the state and the rows come from one state of the database (a replica
 * that lacks the newest day says so in both). Without, from the primary, kept a few seconds per
 * isolate (the rows are the primary's too).
 */
export function mirrorStateOf(
  ctx: Parameters<typeof arxivReaders>[0] & { env: { DB: D1Database } },
): Promise<MirrorState> {
  if (!ctx.call || !ctx.config.D1_READ_REPLICATION) return mirrorState(ctx.env.DB);
  return oncePerCall(ctx, "arxiv-mirror-state", async () => {
    const state = await readMirrorState(callSession(ctx, "DB", ctx.env.DB) as unknown as D1Database);
    noteSettled(ctx.env.DB, state);
    return state;
  });
}

/** What this isolate last saw, for mirrorLikelyReady's guess. */
function noteSettled(db: D1Database, state: MirrorState): void {
  const key = unmetered(db);
  const memo = stateMemo.get(key);
  if (memo) memo.settled = state;
  else stateMemo.set(key, { at: 0, state: Promise.resolve(state), settled: state });
}

/**
 * May a reader start its mirror statements before the state is read (in the same round)? Yes
 * unless this isolate last saw the mirror not whole: a fresh isolate guesses it is (it nearly
 * always is), and during a first harvest one wasted guess per isolate is all it costs.
 */
export function mirrorLikelyReady(db: D1Database): boolean {
  return stateMemo.get(unmetered(db))?.settled?.ready ?? true;
}

async function readMirrorState(db: D1Database): Promise<MirrorState> {
  const row = await db
    .prepare(
      `SELECT (SELECT version FROM mirror_schema WHERE source = 'arxiv') AS schema_version,
              h.status, h.records + h.shard_records AS records, h.last_datestamp, h.complete_at, h.complete_scope, h.last_success_at, h.watermark, h.mode,
              (SELECT max(coalesce(until_date, 'now')) FROM arxiv_harvest_windows w WHERE w.run_id = h.run_id
                AND w.status = 'done') AS listed_until
       FROM (SELECT 1) LEFT JOIN harvest_state h ON h.source = 'arxiv'`,
    )
    .first<{
      schema_version: number | null;
      status: string | null;
      records: number | null;
      last_datestamp: string | null;
      complete_at: string | null;
      complete_scope: string | null;
      last_success_at: string | null;
      watermark: string | null;
      mode: string | null;
      listed_until: string | null;
    }>();
  const papers = row?.records ?? 0;
  const base = {
    papers,
    status: row?.status ?? "idle",
    lastDatestamp: row?.last_datestamp ?? null,
    scope: row?.complete_scope ?? null,
    lastSuccessAt: row?.last_success_at ?? null,
    latestRunFailed: row?.status === "error",
    watermark: row?.watermark ?? null,
  };
  if (row?.schema_version !== MIRROR_SCHEMA_VERSION) {
    return {
      ...base,
      ready: false,
      reason: `the mirror's schema is version ${row?.schema_version ?? "none"}, this server reads ${MIRROR_SCHEMA_VERSION}`,
    };
  }
  if (row?.complete_at == null) {
    if (papers === 0)
      return { ...base, ready: false, reason: "the mirror holds no papers yet (its first harvest has not run)" };
    const listed =
      row.mode === "cold" && row.listed_until
        ? `; its first harvest has listed records dated up to ${row.listed_until}`
        : "";
    const description =
      `the mirror is partial: it holds ${papers.toLocaleString("en-US")} papers so ` +
      `far${listed}, and its first full harvest has not completed (${base.status})`;
    return { ...base, ready: false, reason: description, partial: { papers, description } };
  }
  return { ...base, ready: true };
}
