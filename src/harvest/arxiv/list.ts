// The list step: one OAI-PMH ListRecords page of a datestamp window, its records written to their
// shards, then the checkpoint moved to the window's next page, the next window, or the end-of-run
// retries (skipped.ts). An OAI error ends the window, lists it again from its start, or stops the run.
import type { Config } from "../../config";
import { writePapers } from "../../store/arxiv-mirror-writes";
import { arxivShards, shardRecordsStatement } from "../../store/arxiv-shards";
import {
  markArxivRunFailed,
  stepStatement,
  windowPageStatement,
  windowStartStatement,
  type ArxivState,
  type Cursor,
  type ListCursor,
} from "../../store/harvest-state";
import { recoveredStatement, skippedStatements } from "../../store/harvest-skipped";
import type { AppContext } from "../../context";
import { OaiError, type OaiPage } from "../oai";
import { nextWindow } from "../windows";
import { advance, describeWindow, fetchOai, today } from "./step-io";

/** Records written per call (about 20 ms of D1 at 1,000,000 papers, where a whole page took over 200 ms). */
const PAGE_WRITES_PER_CALL = 100;

function listRecordsPath(config: Config, cursor: ListCursor): string {
  if (cursor.token !== null) return `?${new URLSearchParams({ verb: "ListRecords", resumptionToken: cursor.token })}`;
  const params = new URLSearchParams({ verb: "ListRecords", metadataPrefix: config.ARXIV_MIRROR_OAI_METADATA_PREFIX });
  if (cursor.window.from !== null) params.set("from", cursor.window.from);
  if (cursor.window.until !== null) params.set("until", cursor.window.until);
  if (config.ARXIV_MIRROR_OAI_SET) params.set("set", config.ARXIV_MIRROR_OAI_SET);
  return `?${params}`;
}

/** One page of a window. An OAI error ends the window (noRecordsMatch), restarts it (badResumptionToken) or stops the run. */
export async function listStep(ctx: AppContext, state: ArxivState, runId: string, cursor: ListCursor): Promise<void> {
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
