// biome-ignore-all lint/style/noExcessiveLinesPerFile: the harvest run as one state machine, read in one place; functions <= 80 lines
// The arXiv mirror's harvest: OAI-PMH ListRecords in datestamp windows, one step per queue
// message. A step is one page (or an end-of-run GetRecord, or a verify slice); its writes and the
// checkpoint's move to the next step commit in one D1 batch (a page's records go first, in chunks
// of idempotent upserts, so that no call holds the database long), and only then is the next step
// sent. So a crash before the batch replays the step (upserts are idempotent), a crash after it
// finds the step applied and only re-sends the next message, and a lost message is re-sent by
// the watchdog from the checkpoint (harvest_state.next_cursor).
//
// Restarts lose nothing: a lost resumption token re-lists the window it was in from its start,
// a failed run resumes at the start of its window, and the refresh watermark moves only when a
// whole run completes (docs/mirror.md "Harvest").
import type { Config } from "../config";
import { PapersError } from "../errors";
import {
  FULL_VERIFY_MAX_PAPERS,
  finishSlicedVerify,
  nextCategory,
  verifyCategorySlice,
  verifyMirror,
  verifyPaperSlice,
  type VerifyResult,
} from "../store/arxiv-mirror-verify";
import { writePapers } from "../store/arxiv-mirror-writes";
import { movePapers } from "../store/arxiv-shard-move";
import { arxivShards, shardRecordsStatement } from "../store/arxiv-shards";
import { emptyMeter, meteredDatabase, meterFields } from "../store/d1-meter";
import { rankSlice } from "../store/arxiv-rank-tables";
import {
  clearRankChanges,
  forgetFullBuildStatement,
  fullBuildStatement,
  indexStats,
  planRankRefresh,
  refreshedStatement,
  setImpactFloors,
  stageRankChanges,
} from "../store/arxiv-rank-refresh";
import { mergeRankTerms } from "../store/arxiv-rank-merge";
import { GateRefusal, politeFetch, readTextCapped } from "../upstream/fetch";
import {
  addRunDbCost,
  finishRunStatement,
  markArxivRunFailed,
  markEnqueued,
  noteResume,
  noteRetry,
  nextSkippedToRetry,
  parseCursor,
  readArxivState,
  recoveredStatement,
  skippedStatements,
  skippedTriedStatement,
  skippedTriedThisRun,
  startRunStatement,
  stepStatement,
  verifiedStatement,
  windowPageStatement,
  windowStartStatement,
  type ArxivState,
  type Cursor,
  type ListCursor,
  type MoveCursor,
  type VerifyCursor,
  type RankCursor,
} from "../store/harvest-state";
import { WATCHDOG_CRON, type HarvestMessage, type Harvester } from "./dispatch";
import { OaiError, parseOaiPage, type OaiPage } from "./oai";
import { firstColdWindow, nextWindow, planRetry, refreshWindow, type HarvestWindow } from "./windows";
import type { AppContext } from "../context";

const MAX_PAGE_BYTES = 50_000_000;
/** The share of the database the steps after a run may take (MeterOptions in src/store/d1-meter.ts). */
const BACKGROUND_DB_SHARE = 0.5;
/** Records written per call (about 20 ms of D1 at 1,000,000 papers, where a whole page took over 200 ms). */
const PAGE_WRITES_PER_CALL = 100;
/** Rows checked per verify message on a large mirror (well under a second of D1 each). */
const VERIFY_SLICE = 50_000;
/** Unreadable records retried by GetRecord at the end of one run (each is a request spaced by the gate). */
const SKIPPED_RETRIES_PER_RUN = 200;

function message(runId: string, cursor: Cursor): HarvestMessage {
  return { source: "arxiv", run_id: runId, cursor: JSON.stringify(cursor) };
}

async function send(ctx: AppContext, runId: string, cursor: Cursor, delayMs = 0): Promise<void> {
  const delaySeconds = Math.min(43_200, Math.ceil(delayMs / 1000));
  await ctx.env.HARVEST_QUEUE.send(message(runId, cursor), delaySeconds > 0 ? { delaySeconds } : undefined);
}

/** Sends the step the checkpoint now points at, and records that it was sent. */
async function advance(ctx: AppContext, runId: string, next: Cursor | null, pageMs?: number): Promise<void> {
  if (next === null) return;
  await send(ctx, runId, next);
  await markEnqueued(ctx.env.DB, runId, next.step, pageMs);
}

const today = () => new Date().toISOString().slice(0, 10);

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

function listRecordsPath(config: Config, cursor: ListCursor): string {
  if (cursor.token !== null) return `?${new URLSearchParams({ verb: "ListRecords", resumptionToken: cursor.token })}`;
  const params = new URLSearchParams({ verb: "ListRecords", metadataPrefix: config.ARXIV_MIRROR_OAI_METADATA_PREFIX });
  if (cursor.window.from !== null) params.set("from", cursor.window.from);
  if (cursor.window.until !== null) params.set("until", cursor.window.until);
  if (config.ARXIV_MIRROR_OAI_SET) params.set("set", config.ARXIV_MIRROR_OAI_SET);
  return `?${params}`;
}

async function fetchOai(ctx: AppContext, path: string): Promise<{ page: OaiPage; readAt: number }> {
  const config = ctx.config;
  // The OAI endpoint is the base URL itself: the request is a query on it.
  const response = await politeFetch(ctx, "arxiv-oai", path, {
    deadline: Date.now() + config.ARXIV_MIRROR_OAI_TIMEOUT_MS + config.ARXIV_MIRROR_OAI_REQUEST_DELAY_MS * 2,
    passStatuses: [],
    retries: 0,
  });
  const body = await readTextCapped(response, MAX_PAGE_BYTES, "arxiv-oai");
  const readAt = Date.now();
  return { page: parseOaiPage(body), readAt };
}

function scopeOf(config: Config): string {
  return config.ARXIV_MIRROR_OAI_SET ? `the OAI set ${config.ARXIV_MIRROR_OAI_SET}` : "all of arXiv";
}

// ---------------------------------------------------------------------------------------------
// Steps

/** One page of a window. An OAI error ends the window (noRecordsMatch), restarts it (badResumptionToken) or stops the run. */
async function listStep(ctx: AppContext, state: ArxivState, runId: string, cursor: ListCursor): Promise<void> {
  const config = ctx.config;
  let fetched: { page: OaiPage; readAt: number };
  const asked = Date.now();
  try {
    fetched = await fetchOai(ctx, listRecordsPath(config, cursor));
  } catch (error) {
    if (error instanceof OaiError) return onOaiError(ctx, state, runId, cursor, error);
    throw error; // network, 503 + Retry-After, truncated page: retried with backoff
  }
  const { page, readAt } = fetched;
  const records = page.items.flatMap((item) => (item.kind === "record" ? [item.record] : []));
  const deleted = page.items.flatMap((item) => (item.kind === "deleted" ? [item.id] : []));
  const newest =
    page.items
      .map((item) => (item.kind === "record" ? item.record.datestamp : item.datestamp))
      .filter(Boolean)
      .sort()
      .at(-1) ?? null;
  const now = new Date().toISOString();
  const windowPages = cursor.window_pages + 1;
  const windowDone = page.resumptionToken === null;
  // The page's records first, a chunk per call (a search waits for one chunk at most, not the
  // whole page): upserts and deletes are idempotent, so a crash before the checkpoint's batch
  // below replays the step and rewrites nothing twice.
  const shards = arxivShards(ctx);
  await writePapers(shards, records, deleted, PAGE_WRITES_PER_CALL);
  const shardCount = await shardRecordsStatement(shards);
  const statements = [
    ...skippedStatements(ctx.env.DB, runId, cursor.step, page.skipped, now),
    windowPageStatement(ctx.env.DB, runId, cursor.window.idx, {
      records: page.items.length,
      counted: true,
      done: windowDone,
      restarted: false,
      now,
    }),
  ];
  if (shardCount) statements.push(shardCount);
  const recovered = recoveredStatement(
    ctx.env.DB,
    records.map((record) => record.id),
  );
  if (recovered) statements.push(recovered);
  const next = windowDone
    ? afterWindow(ctx, runId, cursor, windowPages, now, statements)
    : ({
        kind: "list",
        step: cursor.step + 1,
        window: cursor.window,
        token: page.resumptionToken,
        window_pages: windowPages,
      } satisfies ListCursor);
  statements.push(
    stepStatement(ctx.env.DB, {
      runId,
      step: cursor.step,
      next,
      now,
      pages: 1,
      records: records.length,
      deleted: deleted.length,
      resumptionToken: page.resumptionToken,
      newestDatestamp: newest,
      completeListSize: page.completeListSize,
      lastError:
        page.skipped.length > 0
          ? `page ${cursor.step}: ${page.skipped.length} unreadable record(s) kept aside, e.g. ` +
            `${page.skipped[0]!.identifier}: ${page.skipped[0]!.problem}`
          : null,
    }),
  );
  await ctx.env.DB.batch(statements);
  const pageMs = Date.now() - readAt;
  console.log(
    `arxiv harvest ${runId}: step ${cursor.step}, window ${cursor.window.idx} page ${windowPages}, ` +
      `${page.items.length} records written in ${pageMs} ms (fetched in ${readAt - asked} ms)`,
  );
  await advance(ctx, runId, next, pageMs);
}

/** The cursor after a window's list ran out: the next window, or the end-of-run retries. Adds the window's statements. */
function afterWindow(
  ctx: AppContext,
  runId: string,
  cursor: ListCursor,
  windowPages: number,
  now: string,
  statements: D1PreparedStatement[],
): Cursor {
  const following = nextWindow(cursor.window, windowPages, ctx.config.ARXIV_MIRROR_WINDOW_PAGES, today());
  if (following === null) return { kind: "skipped", step: cursor.step + 1 };
  statements.push(windowStartStatement(ctx.env.DB, runId, following, now));
  return { kind: "list", step: cursor.step + 1, window: following, token: null, window_pages: 0 };
}

async function onOaiError(
  ctx: AppContext,
  state: ArxivState,
  runId: string,
  cursor: ListCursor,
  error: OaiError,
): Promise<void> {
  const now = new Date().toISOString();
  switch (error.code) {
    case "noRecordsMatch": {
      // Nothing (more) in this window: a quiet day for a refresh, an empty stretch for a cold run.
      const statements: D1PreparedStatement[] = [
        windowPageStatement(ctx.env.DB, runId, cursor.window.idx, {
          records: 0,
          counted: false,
          done: true,
          restarted: false,
          now,
        }),
      ];
      const next = afterWindow(ctx, runId, cursor, cursor.window_pages, now, statements);
      statements.push(stepStatement(ctx.env.DB, { runId, step: cursor.step, next, now }));
      await ctx.env.DB.batch(statements);
      return advance(ctx, runId, next);
    }
    case "badResumptionToken": {
      // The token expired or the server forgot it. Records come in identifier order, so where
      // the list had got to says nothing about datestamps: list the whole window again.
      const why =
        `step ${cursor.step}: ${error.message}; window ${cursor.window.idx} ` +
        `(${describeWindow(cursor.window)}) listed again from its start`;
      console.log(`arxiv harvest ${runId}: ${why}`);
      const next: ListCursor = {
        kind: "list",
        step: cursor.step + 1,
        window: cursor.window,
        token: null,
        window_pages: 0,
      };
      await ctx.env.DB.batch([
        windowPageStatement(ctx.env.DB, runId, cursor.window.idx, {
          records: 0,
          counted: false,
          done: false,
          restarted: true,
          now,
        }),
        stepStatement(ctx.env.DB, {
          runId,
          step: cursor.step,
          next,
          now,
          resumptionToken: null,
          restarted: true,
          lastError: why,
        }),
      ]);
      return advance(ctx, runId, next);
    }
    default:
      // badArgument, cannotDisseminateFormat, ...: repeating the request cannot help. The
      // checkpoint stays on this window, so a run resumed after a fix re-reads only it.
      await markArxivRunFailed(ctx.env.DB, runId, `step ${cursor.step}: OAI-PMH error ${error.message}`);
      void state;
  }
}

function describeWindow(window: HarvestWindow): string {
  return `${window.from ?? "the start"} to ${window.until ?? "now"}`;
}

/** End of the run: one unreadable record retried with GetRecord per step, then the run completes. */
async function skippedStep(
  ctx: AppContext,
  state: ArxivState,
  runId: string,
  cursor: Extract<Cursor, { kind: "skipped" }>,
): Promise<void> {
  const now = new Date().toISOString();
  const candidate =
    (await skippedTriedThisRun(ctx.env.DB, runId)) < SKIPPED_RETRIES_PER_RUN
      ? await nextSkippedToRetry(ctx.env.DB, runId)
      : null;
  if (candidate === null) {
    const verify = firstVerifyStep(cursor.step + 1);
    const watermark = (state.started_at ?? now).slice(0, 10);
    await ctx.env.DB.batch([
      finishRunStatement(ctx.env.DB, {
        runId,
        step: cursor.step,
        next: verify,
        now,
        watermark,
        scope: scopeOf(ctx.config),
      }),
    ]);
    console.log(`arxiv harvest ${runId}: complete; the next refresh lists from ${watermark}`);
    return advance(ctx, runId, verify);
  }
  const config = ctx.config;
  const query = new URLSearchParams({
    verb: "GetRecord",
    identifier: candidate.identifier,
    metadataPrefix: config.ARXIV_MIRROR_OAI_METADATA_PREFIX,
  });
  const path = `?${query}`;
  const statements: D1PreparedStatement[] = [];
  try {
    const { page } = await fetchOai(ctx, path);
    const item = page.items[0];
    // The paper first (in its shard), then the checkpoint: a replayed step rewrites it unchanged.
    if (item?.kind === "record") {
      await writePapers(arxivShards(ctx), [item.record], []);
      statements.push(skippedTriedStatement(ctx.env.DB, candidate.identifier, runId, { status: "recovered" }));
    } else if (item?.kind === "deleted") {
      await writePapers(arxivShards(ctx), [], [item.id]);
      statements.push(skippedTriedStatement(ctx.env.DB, candidate.identifier, runId, { status: "deleted" }));
    } else {
      const problem = page.skipped[0]?.problem ?? "GetRecord returned no record";
      statements.push(
        skippedTriedStatement(ctx.env.DB, candidate.identifier, runId, { status: "open", reason: problem }),
      );
    }
  } catch (error) {
    if (!(error instanceof OaiError)) throw error;
    // idDoesNotExist: arXiv no longer has it; anything else: still unreadable, tried again next run.
    statements.push(
      skippedTriedStatement(
        ctx.env.DB,
        candidate.identifier,
        runId,
        error.code === "idDoesNotExist"
          ? { status: "deleted", reason: error.message }
          : { status: "open", reason: error.message },
      ),
    );
  }
  const next: Cursor = { kind: "skipped", step: cursor.step + 1 };
  const shardCount = await shardRecordsStatement(arxivShards(ctx));
  if (shardCount) statements.push(shardCount);
  statements.push(stepStatement(ctx.env.DB, { runId, step: cursor.step, next, now }));
  await ctx.env.DB.batch(statements);
  await advance(ctx, runId, next);
}

/**
 * The verify after a run. A small mirror is checked whole in one go; a large one one slice per
 * step (D1 allows a statement 30 s, and the whole-database checks hold it longer).
 */
export async function verifyStep(
  ctx: AppContext,
  runId: string,
  cursor: VerifyCursor,
  sliceSize = VERIFY_SLICE,
): Promise<void> {
  const now = new Date().toISOString();
  const started = Date.now();
  let result: VerifyResult | undefined;
  let next: VerifyCursor | undefined;
  // A sharded mirror is checked shard after shard (cursor.shard), the totals summed at the end.
  const shards = arxivShards(ctx);
  const index = cursor.shard ?? 0;
  const shard = shards[Math.min(index, shards.length - 1)]!;
  const afterShard = (counts: VerifyCursor["counts"]): VerifyCursor =>
    index + 1 < shards.length
      ? {
          ...cursor,
          step: cursor.step + 1,
          shard: index + 1,
          phase: "papers",
          category: null,
          after: Number.MIN_SAFE_INTEGER,
          counts,
        }
      : { ...cursor, step: cursor.step + 1, phase: "totals", category: null, counts };
  if (
    cursor.phase === "papers" &&
    index === 0 &&
    cursor.after === Number.MIN_SAFE_INTEGER &&
    ((await readArxivState(ctx.env.DB))?.records ?? 0) <= FULL_VERIFY_MAX_PAPERS
  ) {
    result = await verifyMirror(shards);
  } else if (cursor.phase === "papers") {
    const { last, counts } = await verifyPaperSlice(shard, cursor.after, sliceSize);
    const sum = {
      ...cursor.counts,
      papers: cursor.counts.papers + counts.papers,
      missing: cursor.counts.missing + counts.missing,
      fts_missing: cursor.counts.fts_missing + counts.fts_missing,
      fts_orphans: cursor.counts.fts_orphans + counts.fts_orphans,
      misplaced: (cursor.counts.misplaced ?? 0) + counts.misplaced,
    };
    if (last !== null) next = { ...cursor, step: cursor.step + 1, after: last, counts: sum };
    else {
      const first = await nextCategory(shard.db, "");
      next =
        first === null
          ? afterShard(sum)
          : {
              ...cursor,
              step: cursor.step + 1,
              phase: "categories",
              category: first,
              after: Number.MIN_SAFE_INTEGER,
              counts: sum,
            };
    }
  } else if (cursor.phase === "categories" && cursor.category !== null) {
    const slice = await verifyCategorySlice(shard.db, cursor.category, cursor.after, sliceSize);
    const counts = {
      ...cursor.counts,
      orphans: cursor.counts.orphans + slice.orphans,
      category_rows: cursor.counts.category_rows + slice.rows,
    };
    next =
      slice.next === null
        ? afterShard(counts)
        : { ...cursor, step: cursor.step + 1, category: slice.next.category, after: slice.next.after, counts };
  } else {
    result = await finishSlicedVerify(shards, cursor.counts);
  }
  console.log(`arxiv harvest ${runId}: verify step ${cursor.phase} in ${Date.now() - started} ms`);
  if (next !== undefined) {
    await ctx.env.DB.batch([stepStatement(ctx.env.DB, { runId, step: cursor.step, next, now })]);
    return advance(ctx, runId, next);
  }
  const rank: RankCursor = { kind: "rank", step: cursor.step + 1, after: "", terms: 0 };
  await ctx.env.DB.batch([verifiedStatement(ctx.env.DB, runId, cursor.step, result, now, rank)]);
  if (!result!.ok) console.error("arxiv mirror verify failed", result);
  return advance(ctx, runId, rank);
}

/** The verify after a run (or a rebalance): its first step, from the first shard's first paper. */
function firstVerifyStep(step: number): VerifyCursor {
  return {
    kind: "verify",
    step,
    phase: "papers",
    after: Number.MIN_SAFE_INTEGER,
    category: null,
    counts: { papers: 0, missing: 0, fts_missing: 0, fts_orphans: 0, orphans: 0, category_rows: 0 },
  };
}

/**
 * A rebalance run's step: a batch of one shard's papers that its key range does not hold, moved
 * to their shards (src/store/arxiv-shard-move.ts); then the next shard; after the last, the run
 * ends as a harvest run does (the other shards' count, the verify, each shard's ranking tables),
 * its watermark unchanged.
 */
async function moveStep(ctx: AppContext, state: ArxivState, runId: string, cursor: MoveCursor): Promise<void> {
  const now = new Date().toISOString();
  const shards = arxivShards(ctx);
  const { moved, last } =
    cursor.shard < shards.length ? await movePapers(shards, cursor.shard, cursor.after) : { moved: 0, last: null };
  console.log(
    `arxiv harvest ${runId}: ${moved} papers moved out of ${shards[cursor.shard]?.binding ?? "a shard no longer mapped"}`,
  );
  const next: Cursor | null =
    last !== null
      ? { ...cursor, step: cursor.step + 1, after: last, moved: cursor.moved + moved }
      : cursor.shard + 1 < shards.length
        ? {
            ...cursor,
            step: cursor.step + 1,
            shard: cursor.shard + 1,
            after: Number.MIN_SAFE_INTEGER,
            moved: cursor.moved + moved,
          }
        : null;
  const shardCount = await shardRecordsStatement(shards);
  if (next !== null) {
    await ctx.env.DB.batch([
      ...(shardCount ? [shardCount] : []),
      stepStatement(ctx.env.DB, { runId, step: cursor.step, next, now, records: moved }),
    ]);
    return advance(ctx, runId, next);
  }
  const verify = firstVerifyStep(cursor.step + 1);
  await ctx.env.DB.batch([
    ...(shardCount ? [shardCount] : []),
    finishRunStatement(ctx.env.DB, {
      runId,
      step: cursor.step,
      next: verify,
      now,
      watermark: state.watermark,
      scope: scopeOf(ctx.config),
    }),
  ]);
  console.log(`arxiv harvest ${runId}: rebalance done, ${cursor.moved + moved} papers moved`);
  return advance(ctx, runId, verify);
}

/** Statements per call when a merge writes its lists: each call holds the database a few milliseconds. */
const RANK_WRITES_PER_CALL = 8;

/** Groups of statements (kept whole) packed into calls of about `size` statements. */
function inBatches(groups: D1PreparedStatement[][], size: number): D1PreparedStatement[][] {
  const batches: D1PreparedStatement[][] = [];
  for (const group of groups) {
    const last = batches.at(-1);
    if (last !== undefined && last.length + group.length <= size) last.push(...group);
    else batches.push([...group]);
  }
  return batches;
}

/**
 * The ranking tables after a run, a step at a time: merged with the run's own changes, or rebuilt
 * whole when planRankRefresh says so (src/store/arxiv-rank-refresh.ts). A step's writes and the
 * checkpoint's move commit in one batch. Until a term's turn comes, the ranker reads its previous rows.
 */
export async function rankStep(ctx: AppContext, runId: string, cursor: RankCursor): Promise<void> {
  // A sharded mirror's shards each keep ranking tables of their own papers, refreshed one shard
  // after another (cursor.shard), each planned from its own change log and statistics.
  const shards = arxivShards(ctx);
  const index = Math.min(cursor.shard ?? 0, shards.length - 1);
  const db = shards[index]!.db;
  const started = Date.now();
  const now = new Date().toISOString();
  const phase = cursor.phase ?? (cursor.after === "" ? "plan" : "full");
  let next: RankCursor | null;
  const writes: D1PreparedStatement[] = [];
  let did: string;
  if (phase === "plan") {
    const plan = await planRankRefresh(db);
    did = `${plan.full ? "a full rebuild" : "the changes only"}: ${plan.why}`;
    next = {
      kind: "rank",
      step: cursor.step + 1,
      phase: plan.full ? "clear" : "floors",
      after: "",
      terms: 0,
      papers: 0,
      ...(index > 0 ? { shard: index } : {}),
    };
  } else if (phase === "clear") {
    const cleared = await clearRankChanges(db);
    did = cleared ? "change log cleared" : "change log cleared in part";
    next = { ...cursor, step: cursor.step + 1, phase: cleared ? "full" : "clear" };
  } else if (phase === "full") {
    const slice = await rankSlice(db, cursor.after);
    did = `vocabulary after ${JSON.stringify(cursor.after)}: ${slice.terms} terms`;
    next =
      slice.last === null
        ? null
        : { ...cursor, step: cursor.step + 1, after: slice.last, terms: cursor.terms + slice.terms };
    if (next === null) writes.push(fullBuildStatement(db, await indexStats(db), now));
  } else if (phase === "floors") {
    const floors = await setImpactFloors(db);
    did = `${floors.writes.length} impact lists' floors`;
    writes.push(...floors.writes);
    next = { ...cursor, step: cursor.step + 1, phase: floors.done ? "stage" : "floors" };
  } else if (phase === "stage") {
    const staged = await stageRankChanges(db, cursor.after === "" ? Number.MIN_SAFE_INTEGER : Number(cursor.after));
    did = `${staged.papers} changed papers staged (${staged.staged} list entries)`;
    // Each statement of staged rows alone: a search waits for one of them at most.
    for (const statement of staged.rows) await statement.run();
    writes.push(...staged.writes);
    next =
      staged.last === null
        ? { ...cursor, step: cursor.step + 1, phase: "merge", after: "" }
        : {
            ...cursor,
            step: cursor.step + 1,
            after: String(staged.last),
            papers: (cursor.papers ?? 0) + staged.papers,
          };
  } else {
    const merged = await mergeRankTerms(db, cursor.after);
    did = `terms after ${JSON.stringify(cursor.after)}: ${merged.terms} merged, ${merged.lists} lists written`;
    for (const batch of inBatches(merged.groups, RANK_WRITES_PER_CALL)) await db.batch(batch);
    writes.push(...merged.writes);
    next =
      merged.last === null
        ? null
        : { ...cursor, step: cursor.step + 1, after: merged.last, terms: cursor.terms + merged.terms };
    if (next === null) writes.push(refreshedStatement(db, cursor.papers ?? 0, await indexStats(db), now));
  }
  // This shard is done: the next one's plan.
  if (next === null && index + 1 < shards.length)
    next = { kind: "rank", step: cursor.step + 1, after: "", terms: 0, shard: index + 1 };
  console.log(
    `arxiv harvest ${runId}: ranking tables${shards.length > 1 ? ` of ${shards[index]!.binding}` : ""}, ${phase}: ${did} in ${Date.now() - started} ms`,
  );
  const checkpoint = stepStatement(ctx.env.DB, { runId, step: cursor.step, next, now });
  // On DB the step's writes and the checkpoint commit together; on another shard its writes go
  // first (each is idempotent: a step replayed after a crash between the two gives the same tables).
  if (db === ctx.env.DB) await db.batch([...writes, checkpoint]);
  else {
    if (writes.length > 0) await db.batch(writes);
    await checkpoint.run();
  }
  if (next !== null) return advance(ctx, runId, next);
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
      if (cursor.kind === "list") await listStep(metered, state, msg.run_id, cursor);
      else if (cursor.kind === "move") await moveStep(metered, state, msg.run_id, cursor);
      else if (cursor.kind === "skipped") await skippedStep(metered, state, msg.run_id, cursor);
      else if (cursor.kind === "verify") await verifyStep(metered, msg.run_id, cursor);
      else await rankStep(metered, msg.run_id, cursor);
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
