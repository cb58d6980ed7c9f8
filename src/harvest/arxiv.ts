// The arXiv mirror's harvest: OAI-PMH ListRecords, one page per queue message. A page is fetched
// through the arxiv-oai gate (3 s), and its records and the new checkpoint are written in one
// D1 batch (one transaction); only then is the next page enqueued. So a crash before the batch
// replays the page (upserts are idempotent), and a crash after it finds the page already
// applied and only re-sends the next message.
import { z } from "zod";
import { loadConfig } from "../config";
import { ToolError } from "../errors";
import { finishSlicedVerify, FULL_VERIFY_MAX_PAPERS, mirrorState, pageWriteStatements, verifyMirror, verifySlice, type VerifyResult } from "../store/arxiv-mirror";
import { politeFetch, readTextCapped } from "../upstream/fetch";
import { markRunFailed, type HarvestMessage, type Harvester } from "./dispatch";
import { OaiError, parseOaiPage, type OaiPage } from "./oai";

const MAX_PAGE_BYTES = 50_000_000;
/** Papers checked per verify message on a large mirror (about half a second of D1 each). */
const VERIFY_SLICE = 50_000;
/** A run that has not moved for this long is taken as dead, and the next cron starts anew. */
const STALE_RUN_MS = 6 * 3_600_000;

/** Where a page starts: a resumption token, or (first page, restart) a from-datestamp. */
const cursorSchema = z.object({
  page: z.number().int().min(1),
  token: z.string().max(5000).nullable(),
  from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable(),
  verify: z.boolean().optional(),
  /** A sliced verify's progress: the last key checked and the counts so far. */
  slice: z.object({ after: z.number().int(), papers: z.number().int().min(0), missing: z.number().int().min(0) }).optional(),
});
type Cursor = z.infer<typeof cursorSchema>;

interface ArxivState {
  status: string;
  run_id: string | null;
  mode: string | null;
  pages: number;
  enqueued_page: number;
  resumption_token: string | null;
  last_datestamp: string | null;
  from_datestamp: string | null;
  updated_at: string | null;
  records: number;
}

async function readState(db: D1Database): Promise<ArxivState | null> {
  return db
    .prepare(
      "SELECT status, run_id, mode, pages, enqueued_page, resumption_token, last_datestamp, from_datestamp, updated_at, records FROM harvest_state WHERE source = 'arxiv'",
    )
    .first<ArxivState>();
}

function message(runId: string, cursor: Cursor): HarvestMessage {
  return { source: "arxiv", run_id: runId, cursor: JSON.stringify(cursor) };
}

export type HarvestMode = "cold" | "refresh";

/** Starts a run: cold = everything from the start, refresh = from the last datestamp (that day re-read). */
export async function startArxivHarvest(env: Env, mode: HarvestMode): Promise<{ run_id: string; from: string | null }> {
  const state = await readState(env.DB);
  const from = mode === "refresh" ? state?.last_datestamp ?? null : null;
  if (mode === "refresh" && from === null) {
    throw new ToolError("invalid_request", "A refresh continues from the last harvested datestamp, and there is none yet.", {
      recovery: "Start a cold harvest first (POST /admin/harvest?source=arxiv&mode=cold).",
    });
  }
  const runId = `arxiv-${new Date().toISOString()}`;
  const now = new Date().toISOString();
  await env.DB.prepare(
    `INSERT INTO harvest_state (source, status, run_id, mode, pages, enqueued_page, resumption_token, from_datestamp, run_records, run_deleted,
       complete_list_size, started_at, finished_at, updated_at, last_error)
     VALUES ('arxiv', 'running', ?1, ?2, 0, 1, NULL, ?3, 0, 0, NULL, ?4, NULL, ?4, NULL)
     ON CONFLICT (source) DO UPDATE SET status = 'running', run_id = ?1, mode = ?2, pages = 0, enqueued_page = 1, resumption_token = NULL,
       from_datestamp = ?3, run_records = 0, run_deleted = 0, complete_list_size = NULL, started_at = ?4, finished_at = NULL, updated_at = ?4, last_error = NULL`,
  )
    .bind(runId, mode, from, now)
    .run();
  await env.HARVEST_QUEUE.send(message(runId, { page: 1, token: null, from }));
  return { run_id: runId, from };
}

function listRecordsPath(env: Env, cursor: Cursor): string {
  if (cursor.token !== null) return `?${new URLSearchParams({ verb: "ListRecords", resumptionToken: cursor.token })}`;
  const config = loadConfig(env);
  const params = new URLSearchParams({ verb: "ListRecords", metadataPrefix: config.ARXIV_MIRROR_OAI_METADATA_PREFIX });
  if (cursor.from !== null) params.set("from", cursor.from);
  if (config.ARXIV_MIRROR_OAI_SET) params.set("set", config.ARXIV_MIRROR_OAI_SET);
  return `?${params}`;
}

async function fetchPage(env: Env, cursor: Cursor): Promise<{ page: OaiPage; readAt: number }> {
  const config = loadConfig(env);
  // The OAI endpoint is the base URL itself: the request is a query on it.
  const response = await politeFetch(env, "arxiv-oai", listRecordsPath(env, cursor), {
    deadline: Date.now() + config.ARXIV_MIRROR_OAI_TIMEOUT_MS + config.ARXIV_MIRROR_OAI_REQUEST_DELAY_MS * 2,
    passStatuses: [],
    retries: 0,
  });
  const body = await readTextCapped(response, MAX_PAGE_BYTES, "arxiv-oai");
  const readAt = Date.now();
  return { page: parseOaiPage(body), readAt };
}

async function finishRun(env: Env, runId: string, summary: string | null): Promise<void> {
  const now = new Date().toISOString();
  await env.DB.prepare("UPDATE harvest_state SET status = 'done', resumption_token = NULL, finished_at = ?, updated_at = ?, last_error = ? WHERE source = 'arxiv' AND run_id = ?")
    .bind(now, now, summary, runId)
    .run();
  // The verify step runs as its own message: on a full mirror it takes longer than a page.
  await env.HARVEST_QUEUE.send(message(runId, { page: 1, token: null, from: null, verify: true }));
}

/**
 * The verify after a run. A small mirror is checked whole in one go; a large one one slice of
 * keys per message (D1 allows a statement 30 s, and the whole-database checks hold it longer).
 */
export async function runArxivVerify(env: Env, runId: string, cursor: Cursor, sliceSize = VERIFY_SLICE): Promise<void> {
  let result: VerifyResult;
  if (cursor.slice === undefined) {
    const { papers } = await mirrorState(env.DB);
    if (papers > FULL_VERIFY_MAX_PAPERS) {
      await env.HARVEST_QUEUE.send(message(runId, { ...cursor, slice: { after: 0, papers: 0, missing: 0 } }));
      return;
    }
    result = await verifyMirror(env.DB);
  } else {
    const next = await verifySlice(env.DB, cursor.slice, sliceSize);
    if (next !== null) {
      await env.HARVEST_QUEUE.send(message(runId, { ...cursor, slice: next }));
      return;
    }
    result = await finishSlicedVerify(env.DB, cursor.slice);
  }
  await env.DB.prepare("UPDATE harvest_state SET verified = ? WHERE source = 'arxiv'").bind(JSON.stringify(result)).run();
  if (!result.ok) console.error("arxiv mirror verify failed", result);
}

export const arxivHarvester: Harvester = {
  async onSchedule(env) {
    const state = await readState(env.DB);
    if (state?.last_datestamp == null) {
      console.log("arxiv mirror: no harvest has run yet; start a cold one with POST /admin/harvest?source=arxiv&mode=cold");
      return;
    }
    const stale = state.updated_at === null || Date.now() - Date.parse(state.updated_at) > STALE_RUN_MS;
    if (state.status === "running" && !stale) {
      console.log(`arxiv mirror: run ${state.run_id} is still going; the daily refresh waits for it`);
      return;
    }
    await startArxivHarvest(env, "refresh");
  },

  async onPage(env, msg) {
    const cursor = cursorSchema.parse(JSON.parse(msg.cursor ?? "{}"));
    const state = await readState(env.DB);
    if (!state || state.run_id !== msg.run_id) return; // a message of a run that was replaced
    if (cursor.verify) return runArxivVerify(env, msg.run_id, cursor);
    if (state.status !== "running") return; // stopped (error) or already finished

    if (state.pages >= cursor.page) {
      // Replay of a page already written (the crash came after the batch): only make sure the
      // next page was sent, exactly once.
      if (state.pages === cursor.page && state.enqueued_page <= cursor.page && state.resumption_token !== null) {
        await sendNext(env, msg.run_id, cursor.page + 1, state.resumption_token);
      }
      return;
    }

    let fetched: { page: OaiPage; readAt: number };
    try {
      fetched = await fetchPage(env, cursor);
    } catch (error) {
      if (error instanceof OaiError) return handleOaiError(env, msg, cursor, state, error);
      throw error; // network, 503 + Retry-After, truncated page: the queue retries (with the delay asked for)
    }
    const { page, readAt } = fetched;
    const records = page.items.flatMap((item) => (item.kind === "record" ? [item.record] : []));
    const deleted = page.items.flatMap((item) => (item.kind === "deleted" ? [item.id] : []));
    const datestamps = page.items.map((item) => (item.kind === "record" ? item.record.datestamp : item.datestamp)).filter(Boolean).sort();
    const newest = datestamps[datestamps.length - 1] ?? null;
    const now = new Date().toISOString();
    const checkpoint = env.DB.prepare(
      `UPDATE harvest_state SET pages = ?1, resumption_token = ?2,
         last_datestamp = CASE WHEN ?3 IS NOT NULL AND (last_datestamp IS NULL OR ?3 > last_datestamp) THEN ?3 ELSE last_datestamp END,
         run_records = run_records + ?4, run_deleted = run_deleted + ?5, complete_list_size = coalesce(?6, complete_list_size), updated_at = ?7,
         last_error = ?8
       WHERE source = 'arxiv' AND run_id = ?9`,
    ).bind(
      cursor.page,
      page.resumptionToken,
      newest,
      records.length,
      deleted.length,
      page.completeListSize,
      now,
      page.skipped.length > 0 ? `page ${cursor.page}: skipped ${page.skipped.length} unreadable record(s), e.g. ${page.skipped[0]!.identifier}: ${page.skipped[0]!.problem}` : null,
      msg.run_id,
    );
    await env.DB.batch([...pageWriteStatements(env.DB, records, deleted), checkpoint]);
    const pageMs = Date.now() - readAt;
    await env.DB.prepare("UPDATE harvest_state SET last_page_ms = ? WHERE source = 'arxiv'").bind(pageMs).run();

    if (page.resumptionToken === null) return finishRun(env, msg.run_id, null);
    await sendNext(env, msg.run_id, cursor.page + 1, page.resumptionToken);
  },
};

async function sendNext(env: Env, runId: string, page: number, token: string): Promise<void> {
  await env.HARVEST_QUEUE.send(message(runId, { page, token, from: null }));
  await env.DB.prepare("UPDATE harvest_state SET enqueued_page = max(enqueued_page, ?) WHERE source = 'arxiv' AND run_id = ?").bind(page, runId).run();
}

async function handleOaiError(env: Env, msg: HarvestMessage, cursor: Cursor, state: ArxivState, error: OaiError): Promise<void> {
  switch (error.code) {
    case "noRecordsMatch":
      // Nothing (more) to harvest: a refresh on a quiet day ends here.
      return finishRun(env, msg.run_id, null);
    case "badResumptionToken": {
      // The token expired or the server forgot it: list again from the last datestamp reached
      // (re-reading that day is harmless: upserts are idempotent).
      const from = state.last_datestamp ?? state.from_datestamp;
      console.log(`arxiv harvest: ${error.message}; restarting page ${cursor.page} from ${from ?? "the beginning"}`);
      await env.DB.prepare("UPDATE harvest_state SET resumption_token = NULL, last_error = ?, updated_at = ? WHERE source = 'arxiv' AND run_id = ?")
        .bind(`page ${cursor.page}: ${error.message}; restarted from ${from ?? "the beginning"}`, new Date().toISOString(), msg.run_id)
        .run();
      await env.HARVEST_QUEUE.send(message(msg.run_id, { page: cursor.page, token: null, from }));
      return;
    }
    default:
      // badArgument, cannotDisseminateFormat, ...: repeating the request cannot help.
      return markRunFailed(env, msg, `page ${cursor.page}: OAI-PMH error ${error.message}`);
  }
}
