// The arXiv mirror's harvest run: its start, the dispatch of each step to its module, retries with
// backoff, and the watchdog that resumes a stalled or failed run. One step per queue message; a
// step's writes and the checkpoint's move to the next step commit in one D1 batch (a page's
// records go first, in chunks of idempotent upserts, so that no call holds the database long), and
// only then is the next step sent. So a crash before the batch replays the step (upserts are
// idempotent), a crash after it finds the step applied and only re-sends the next message, and a
// lost message is re-sent by the watchdog from the checkpoint (harvest_state.next_cursor).
//
// Restarts lose nothing: a lost resumption token re-lists the window it was in from its start,
// a failed run resumes at the start of its window, and the refresh watermark moves only when a
// whole run completes (docs/mirror.md "Harvest").
import { PapersError } from "../../errors";
import { arxivShards } from "../../store/arxiv-shards";
import { forgetFullBuildStatement } from "../../store/ranking/refresh";
import { emptyMeter, meteredDatabase, meterFields } from "../../store/d1-meter";
import {
  addRunDbCost,
  markArxivRunFailed,
  markEnqueued,
  noteResume,
  noteRetry,
  parseCursor,
  readArxivState,
  startRunStatement,
  windowStartStatement,
  type ArxivState,
  type Cursor,
  type ListCursor,
} from "../../store/harvest-state";
import { GateRefusal } from "../../upstream/fetch";
import type { AppContext } from "../../context";
import { WATCHDOG_CRON, type Harvester } from "../dispatch";
import { firstColdWindow, planRetry, refreshWindow } from "../windows";
import { listStep } from "./list";
import { moveStep } from "./move";
import { rankStep } from "./rank";
import { skippedStep } from "./skipped";
import { advance, describeWindow, message, send } from "./step-io";
import { verifyStep } from "./verify";

/** The share of the database the steps after a run may take (MeterOptions in src/store/d1-meter.ts). */
const BACKGROUND_DB_SHARE = 0.5;

type StepOf<K extends Cursor["kind"]> = Extract<Cursor, { kind: K }>;
type StepRunner<K extends Cursor["kind"]> = (
  ctx: AppContext,
  state: ArxivState,
  runId: string,
  cursor: StepOf<K>,
) => Promise<void>;

/**
 * The state machine, in one table: each kind of step, the module that runs it, and what comes
 * after it. A cold or refresh run lists (list, then skipped); a rebalance moves; both end with
 * verify, then rank, then nothing.
 */
export const STEPS: { [K in Cursor["kind"]]: { module: string; run: StepRunner<K>; next: string } } = {
  list: { module: "list.ts", run: listStep, next: "list (the window's next page, or the next window) | skipped" },
  skipped: { module: "skipped.ts", run: skippedStep, next: "skipped (the next unreadable record) | verify" },
  move: { module: "move.ts", run: moveStep, next: "move (the next batch, or the next shard) | verify" },
  verify: {
    module: "verify.ts",
    run: (ctx, _state, runId, cursor) => verifyStep(ctx, runId, cursor),
    next: "verify (the next slice, or the next shard) | rank",
  },
  rank: {
    module: "rank.ts",
    run: (ctx, _state, runId, cursor) => rankStep(ctx, runId, cursor),
    next: "rank (the next phase, slice or shard) | the run's end",
  },
};

function runStep(ctx: AppContext, state: ArxivState, runId: string, cursor: Cursor): Promise<void> {
  return (STEPS[cursor.kind].run as StepRunner<Cursor["kind"]>)(ctx, state, runId, cursor as never);
}

/** cold: list everything; refresh: from the watermark; rebalance: move papers to the shards the map gives them (no listing). */
export type HarvestMode = "cold" | "refresh" | "rebalance";

/** Starts a run: cold = everything, window by window; refresh = one window from the watermark (that day re-read). */
export async function startArxivHarvest(
  ctx: AppContext,
  mode: HarvestMode,
): Promise<{ run_id: string; from: string | null }> {
  const state = await readArxivState(ctx.env.DB);
  if (mode === "refresh" && !state?.watermark) {
    throw new PapersError(
      "invalid_request",
      "A refresh lists from the watermark of the last completed run, and no run has completed yet.",
      {
        recovery: "Start a cold harvest first (POST /admin/harvest?source=arxiv&mode=cold).",
      },
    );
  }
  const runId = `arxiv-${new Date().toISOString()}`;
  const now = new Date().toISOString();
  if (mode === "rebalance") {
    // Papers move between databases while no harvest writes them.
    if (state?.status === "running")
      throw new PapersError(
        "invalid_request",
        `A harvest run (${state.mode}) is under way; papers move only between runs.`,
        {
          recovery: "Wait until GET /admin/harvest shows the run done, then start the rebalance again.",
        },
      );
    const move: Cursor = { kind: "move", step: 1, shard: 0, after: Number.MIN_SAFE_INTEGER, moved: 0 };
    await startRunStatement(ctx.env.DB, { runId, mode, from: null, first: move, now }).run();
    await send(ctx, runId, move);
    return { run_id: runId, from: null };
  }
  const window = mode === "refresh" ? refreshWindow(state!.watermark!) : firstColdWindow();
  const first: ListCursor = { kind: "list", step: 1, window, token: null, window_pages: 0 };
  // The other shards forget theirs first (DB's goes with the run's start, in its batch).
  if (mode === "cold") for (const shard of arxivShards(ctx).slice(1)) await forgetFullBuildStatement(shard.db).run();
  await ctx.env.DB.batch([
    startRunStatement(ctx.env.DB, { runId, mode, from: window.from, first, now }),
    windowStartStatement(ctx.env.DB, runId, window, now),
    // A cold run re-lists everything and ends in a full rebuild of the ranking tables: nothing
    // is logged for a merge meanwhile (the log would hold the old text of every paper it changes).
    ...(mode === "cold" ? [forgetFullBuildStatement(ctx.env.DB)] : []),
  ]);
  await send(ctx, runId, first);
  return { run_id: runId, from: window.from };
}

// ---------------------------------------------------------------------------------------------
// Failures: retried with backoff by the harvest itself (a new message carrying the attempt), so
// that the failure budget is hours, not the queue's few quick retries.

async function retryLater(ctx: AppContext, runId: string, cursor: Cursor, error: unknown): Promise<void> {
  const config = ctx.config;
  const now = Date.now();
  const failingSince = cursor.failing_since ?? now;
  const plan = planRetry(
    {
      attempt: cursor.attempt ?? 1,
      failingSinceMs: failingSince,
      retryAfterMs: error instanceof PapersError ? error.retryAfterMs : undefined,
      gateRefusal: error instanceof GateRefusal,
    },
    {
      baseMs: config.ARXIV_MIRROR_RETRY_BASE_MS,
      maxMs: config.ARXIV_MIRROR_RETRY_MAX_MS,
      budgetMs: config.ARXIV_MIRROR_FAILURE_BUDGET_HOURS * 3_600_000,
    },
    now,
  );
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (plan.kind === "give_up") {
    console.error(
      `arxiv harvest ${runId}: step ${cursor.step} has failed for ${Math.round(plan.failingForMs / 60_000)} min; to the dead-letter queue`,
      error,
    );
    await ctx.env.HARVEST_DLQ.send(message(runId, cursor));
    return;
  }
  const counted = !(error instanceof GateRefusal);
  console.log(
    `arxiv harvest ${runId}: step ${cursor.step} ${counted ? `failed (attempt ${cursor.attempt ?? 1})` : "waits for the crawl gate"}: ` +
      `${what}; again in ${Math.round(plan.delayMs / 1000)} s`,
  );
  await send(ctx, runId, { ...cursor, attempt: plan.attempt, failing_since: failingSince }, plan.delayMs);
  await noteRetry(ctx.env.DB, runId, {
    at: new Date(now + plan.delayMs).toISOString(),
    counted,
    error: `step ${cursor.step}, attempt ${cursor.attempt ?? 1}: ${what.slice(0, 300)}`,
  });
}

// ---------------------------------------------------------------------------------------------
// Watchdog: a run whose next message is lost (a local restart, a message dropped) is resumed
// from its checkpoint within ARXIV_MIRROR_STALL_SECONDS; a failed run is resumed by the daily cron.

/** Resumes a stalled run. Returns what it did, for logs and tests. */
export async function resumeStalledArxivRun(
  ctx: AppContext,
  nowMs = Date.now(),
): Promise<"resumed" | "moving" | "idle"> {
  const state = await readArxivState(ctx.env.DB);
  if (!state?.run_id || state.next_cursor === null || !(state.status === "running" || state.status === "done"))
    return "idle";
  const stallMs = ctx.config.ARXIV_MIRROR_STALL_SECONDS * 1000;
  const lastSign = Math.max(Date.parse(state.updated_at ?? "") || 0, Date.parse(state.next_attempt_at ?? "") || 0);
  if (nowMs - lastSign < stallMs) return "moving";
  const next = parseCursor(state.next_cursor);
  if (next === null) {
    // A checkpoint this Worker cannot read (written before windows existed): start the run anew.
    if (state.status === "running")
      await startArxivHarvest(ctx, state.mode === "refresh" && state.watermark ? "refresh" : "cold");
    return "resumed";
  }
  const why =
    `resumed at step ${next.step}: nothing had happened for ${Math.round((nowMs - lastSign) / 1000)} ` +
    `s (its queue message was lost)`;
  console.log(`arxiv harvest ${state.run_id}: ${why}`);
  await noteResume(ctx.env.DB, state.run_id, next, new Date(nowMs).toISOString(), why);
  await send(ctx, state.run_id, next);
  await markEnqueued(ctx.env.DB, state.run_id, next.step);
  return "resumed";
}

/** Resumes a failed run at the start of the window it was in (its token is long expired). */
async function resumeFailedRun(ctx: AppContext, state: ArxivState): Promise<void> {
  const checkpoint = parseCursor(state.next_cursor);
  if (checkpoint === null) {
    await startArxivHarvest(ctx, state.mode === "refresh" && state.watermark ? "refresh" : "cold");
    return;
  }
  const { attempt: _attempt, failing_since: _since, ...fresh } = checkpoint;
  const resumed: Cursor = fresh.kind === "list" ? { ...fresh, token: null, window_pages: 0 } : fresh;
  const why =
    `failed run resumed at step ` +
    `${resumed.step}${resumed.kind === "list" ? `, window ${resumed.window.idx} (${describeWindow(resumed.window)}) from its start` : ""}`;
  console.log(`arxiv harvest ${state.run_id}: ${why}`);
  await noteResume(ctx.env.DB, state.run_id!, resumed, new Date().toISOString(), why);
  await send(ctx, state.run_id!, resumed);
  await markEnqueued(ctx.env.DB, state.run_id!, resumed.step);
}

export const arxivHarvester: Harvester = {
  async onSchedule(ctx, cron) {
    if (cron === WATCHDOG_CRON) {
      await resumeStalledArxivRun(ctx);
      return;
    }
    const config = ctx.config;
    const state = await readArxivState(ctx.env.DB);
    if (state?.status === "running" || (state?.status === "done" && state.next_cursor !== null)) {
      const outcome = await resumeStalledArxivRun(ctx);
      if (outcome !== "idle") {
        console.log(
          `arxiv mirror: run ${state.run_id} is ${outcome === "resumed" ? "resumed" : "still going"}; the daily refresh waits for it`,
        );
        return;
      }
    }
    if (state?.status === "error" && state.run_id) {
      // A failed run (first cold harvest, re-harvest or refresh) goes on from its window.
      await resumeFailedRun(ctx, state);
      return;
    }
    if (state?.watermark) {
      await startArxivHarvest(ctx, "refresh");
      return;
    }
    if (!config.ARXIV_MIRROR_ENABLED || !config.ARXIV_MIRROR_AUTO_COLD) {
      console.log(
        "arxiv mirror: no harvest has completed yet; start a cold one with POST /admin/harvest?source=arxiv&mode=cold",
      );
      return;
    }
    console.log("arxiv mirror: empty and enabled; starting its cold harvest");
    await startArxivHarvest(ctx, "cold");
  },

  async onPage(ctx, msg) {
    const cursor = parseCursor(msg.cursor);
    if (cursor === null) {
      console.error(
        `arxiv harvest: dropping a message whose cursor this Worker cannot read: ${String(msg.cursor).slice(0, 200)}`,
      );
      return;
    }
    const state = await readArxivState(ctx.env.DB);
    if (!state || state.run_id !== msg.run_id) return; // a message of a run that was replaced
    if (cursor.step <= state.step) {
      // A step already applied (the crash came after its batch, or a resumed copy): make sure
      // the step after it was sent, once.
      if (cursor.step === state.step && state.enqueued_step <= state.step)
        await advance(ctx, msg.run_id, parseCursor(state.next_cursor));
      return;
    }
    if (cursor.step > state.step + 1) {
      console.error(
        `arxiv harvest ${msg.run_id}: step ${cursor.step} arrived while the checkpoint is at ${state.step}; ignored`,
      );
      return;
    }
    const afterRun = cursor.kind === "verify" || cursor.kind === "rank";
    if (afterRun ? state.status !== "done" : state.status !== "running") return; // stopped, or already finished
    // Each step's statements are metered: the run's database time is on /status (docs/operations.md).
    const meter = emptyMeter();
    // The steps after the run (verify, ranking tables) and a rebalance's moves are paced: searches
    // have the database at least half the time while they run. A listing step is paced by the upstream already.
    const paced = afterRun || cursor.kind === "move" ? { share: BACKGROUND_DB_SHARE } : {};
    // Every shard of the mirror is metered (DB is the first).
    const meteredShards = Object.fromEntries(
      arxivShards(ctx).map((shard) => [shard.binding, meteredDatabase(shard.db, meter, paced)]),
    );
    const metered: AppContext = { ...ctx, env: { ...ctx.env, ...meteredShards } };
    try {
      await runStep(metered, state, msg.run_id, cursor);
    } catch (error) {
      await retryLater(ctx, msg.run_id, cursor, error);
    }
    await addRunDbCost(ctx.env.DB, msg.run_id, cursor.kind === "rank", meter);
    console.log(
      JSON.stringify({
        event: "harvest_step",
        run_id: msg.run_id,
        step: cursor.step,
        kind: cursor.kind,
        ...(cursor.kind === "rank" ? { phase: cursor.phase ?? "plan" } : {}),
        // A sharded mirror's after-run and move steps work on one shard.
        ...("shard" in cursor && cursor.shard !== undefined ? { shard: cursor.shard } : {}),
        ...meterFields(meter),
      }),
    );
  },

  async onDeadLetter(ctx, msg, reason) {
    // Only the run the message belongs to stops; a newer run goes on.
    const stopped = await markArxivRunFailed(ctx.env.DB, msg.run_id, reason);
    if (!stopped)
      console.log(`arxiv harvest: dead-lettered message of run ${msg.run_id} is not the running run; nothing stopped`);
  },
};
