// Test helpers for the arXiv mirror: a harvest driven page by page through an in-memory queue
// (so a test can crash it between any two steps), a snapshot of everything the mirror stores,
// and a mirror seeded with the real sample records.
import { env } from "cloudflare:workers";
import { arxivHarvester, startArxivHarvest } from "../../src/harvest/arxiv/run";
import type { HarvestMessage } from "../../src/harvest/dispatch";
import { PapersError } from "../../src/errors";
import { pageWriteStatements } from "../../src/store/arxiv-mirror-writes";
import type { MirrorRecord } from "../../src/store/arxiv-row";
import { FAKE } from "../helpers";
import { appContext } from "../../src/context";

export type Fault =
  | { kind: "crash-before-batch" } // the page's batch never commits
  | { kind: "crash-after-batch" } // the batch commits, then the worker dies before enqueueing
  | { kind: "replay" }; // the message is delivered once more after it succeeded

export interface DriveOptions {
  /** OAI endpoint variant under the fake upstream: "" (happy), "/flaky", "/expired", ... */
  variant?: string;
  /** Faults by delivery number (1 = the first page message delivered). */
  faults?: Map<number, Fault>;
  maxDeliveries?: number;
  mode?: "cold" | "refresh" | "rebalance";
  vars?: Record<string, string>;
  /** The OAI endpoint, when not one of the fixture router's variants. */
  baseUrl?: string;
  /** Called before each delivery (1 = the first): a test changes the upstream while the harvest runs. */
  onDelivery?: (delivery: number) => Promise<void>;
}

export interface DriveResult {
  deliveries: number;
  /** The kind of step each delivery carried (list, skipped, verify, rank), in order. */
  kinds: string[];
  /** The phase of each rank step (plan, clear, full, stage, merge), in order. */
  rankPhases: string[];
  /** Messages the queue itself had to retry (the harvest threw). */
  errors: { page: string; error: unknown }[];
  /** Messages the harvest sent again later itself (backoff), with the delay it asked for. */
  delayed: { cursor: string; delayMs: number }[];
  /** Messages the harvest sent to the dead-letter queue. */
  deadLettered: HarvestMessage[];
}

/** The delay a message was sent with (the fake queue keeps it beside the message). */
export const sendDelays = new WeakMap<HarvestMessage, number>();

class Crash extends Error {}

/** An env whose queue is an array and whose D1 can be made to fail around a batch. */
export function harvestEnv(
  variant: string,
  queue: HarvestMessage[],
  hooks: { beforeBatch?: () => void; afterBatch?: () => void; onSend?: () => void },
  options: { deadLetters?: HarvestMessage[]; vars?: Record<string, string>; baseUrl?: string } = {},
): Env {
  const db = new Proxy(env.DB, {
    get(target, property, receiver) {
      if (property === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          hooks.beforeBatch?.();
          const result = await target.batch(statements);
          hooks.afterBatch?.();
          return result;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    ...env,
    DB: db,
    ARXIV_MIRROR_OAI_BASE_URL: options.baseUrl ?? `${FAKE}/arxiv-oai${variant}`,
    ARXIV_MIRROR_OAI_REQUEST_DELAY_MS: "0",
    // Backoff from 20 ms keeps fault tests fast; the schedule's shape is tested on its own.
    ARXIV_MIRROR_RETRY_BASE_MS: "20",
    ...options.vars,
    HARVEST_QUEUE: {
      send: async (body: HarvestMessage, sendOptions?: { delaySeconds?: number }) => {
        hooks.onSend?.();
        if (sendOptions?.delaySeconds) sendDelays.set(body, sendOptions.delaySeconds * 1000);
        queue.push(body);
      },
    },
    HARVEST_DLQ: {
      send: async (body: HarvestMessage) => {
        options.deadLetters?.push(body);
      },
    },
  } as unknown as Env;
}

/** Starts a run and delivers its messages one at a time until the queue is empty. */
export async function driveHarvest(options: DriveOptions = {}): Promise<DriveResult> {
  const queue: HarvestMessage[] = [];
  let armed: Fault | undefined;
  const hooks = {
    beforeBatch: () => {
      if (armed?.kind === "crash-before-batch") {
        armed = undefined;
        throw new Crash("crash before the batch");
      }
    },
    afterBatch: () => {
      if (armed?.kind === "crash-after-batch") {
        armed = undefined;
        throw new Crash("crash after the batch");
      }
    },
  };
  const result: DriveResult = { deliveries: 0, kinds: [], rankPhases: [], errors: [], delayed: [], deadLettered: [] };
  const testEnv = harvestEnv(options.variant ?? "", queue, hooks, {
    deadLetters: result.deadLettered,
    vars: options.vars,
    baseUrl: options.baseUrl,
  });
  await startArxivHarvest(appContext(testEnv), options.mode ?? "cold");
  const attempts = new Map<HarvestMessage, number>();
  while (queue.length > 0) {
    if (result.deliveries >= (options.maxDeliveries ?? 80)) throw new Error("harvest did not finish");
    const message = queue.shift()!;
    const delayMs = sendDelays.get(message);
    if (delayMs !== undefined) {
      // The queue holds a delayed message back; so does this one (capped: tests do not wait minutes).
      result.delayed.push({ cursor: message.cursor ?? "", delayMs });
      await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, 10_000)));
    }
    result.deliveries++;
    const cursor = message.cursor ? (JSON.parse(message.cursor) as { kind: string; phase?: string }) : null;
    result.kinds.push(cursor?.kind ?? "start");
    if (cursor?.kind === "rank") result.rankPhases.push(cursor.phase ?? "plan");
    await options.onDelivery?.(result.deliveries);
    const fault = options.faults?.get(result.deliveries);
    armed = fault?.kind === "replay" ? undefined : fault;
    const attempt = (attempts.get(message) ?? 0) + 1;
    attempts.set(message, attempt);
    try {
      await arxivHarvester.onPage(appContext(testEnv), message, attempt);
      if (fault?.kind === "replay") queue.unshift(message);
    } catch (error) {
      // What the queue does with a thrown message: deliver it again, after the delay asked for.
      result.errors.push({ page: message.cursor ?? "", error });
      const delayMs = error instanceof PapersError ? error.retryAfterMs : undefined;
      if (delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, 10_000)));
      queue.unshift(message);
    }
  }
  return result;
}

/** Everything a harvest leaves behind that a search or lookup can see. */
export async function mirrorSnapshot() {
  const papers = (await env.DB.prepare("SELECT * FROM arxiv_papers ORDER BY paper_key").all()).results;
  const categories = (
    await env.DB.prepare("SELECT category, paper_key FROM arxiv_paper_categories ORDER BY category, paper_key").all()
  ).results;
  const fts: Record<string, number[]> = {};
  for (const match of [
    '"quantum"',
    '"energy"',
    'title : "model"',
    'authors : "smith"',
    '"graph" AND "random"',
    '"phase" *',
  ]) {
    fts[match] = (
      await env.DB.prepare("SELECT rowid FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ? ORDER BY rowid")
        .bind(match)
        .all<{ rowid: number }>()
    ).results.map((r) => r.rowid);
  }
  const state = await env.DB.prepare(
    "SELECT records, last_datestamp, status FROM harvest_state WHERE source = 'arxiv'",
  ).first();
  return { papers, categories, fts, state };
}

export function sampleRecords(): MirrorRecord[] {
  return JSON.parse(env.TEST_ARXIV_SAMPLE) as MirrorRecord[];
}

/** Loads records straight into the mirror (as a page would) and marks the mirror as harvested. */
export async function seedMirror(records: MirrorRecord[] = sampleRecords(), datestamp = "2026-11-29"): Promise<void> {
  for (let i = 0; i < records.length; i += 200)
    await env.DB.batch(pageWriteStatements(env.DB, records.slice(i, i + 200), []));
  const now = new Date().toISOString();
  await env.DB.prepare(
    "UPDATE harvest_state SET status = 'done', last_datestamp = ?1, watermark = ?1, finished_at = ?2, complete_at = ?2, complete_scope = 'test records', last_success_at = ?2 WHERE source = 'arxiv'",
  )
    .bind(datestamp, now)
    .run();
}

/** The sample records seeded while the first cold run is at work: papers are in, the mirror is not complete. */
export async function seedPartialMirror(): Promise<void> {
  await seedMirror();
  await env.DB.prepare(
    "UPDATE harvest_state SET status = 'running', mode = 'cold', complete_at = NULL, complete_scope = NULL, watermark = NULL WHERE source = 'arxiv'",
  ).run();
}
