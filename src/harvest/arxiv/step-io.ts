// What every step of the arXiv harvest shares: the queue message that carries a step, sending the
// next one once the checkpoint points at it, and one OAI-PMH request through the crawl gate.
import type { Config } from "../../config";
import { markEnqueued, type Cursor } from "../../store/harvest-state";
import { politeFetch, readTextCapped } from "../../upstream/fetch";
import type { AppContext } from "../../context";
import type { HarvestMessage } from "../dispatch";
import { parseOaiPage, type OaiPage } from "../oai";
import type { HarvestWindow } from "../windows";

const MAX_PAGE_BYTES = 50_000_000;

export function message(runId: string, cursor: Cursor): HarvestMessage {
  return { source: "arxiv", run_id: runId, cursor: JSON.stringify(cursor) };
}

export async function send(ctx: AppContext, runId: string, cursor: Cursor, delayMs = 0): Promise<void> {
  const delaySeconds = Math.min(43_200, Math.ceil(delayMs / 1000));
  await ctx.env.HARVEST_QUEUE.send(message(runId, cursor), delaySeconds > 0 ? { delaySeconds } : undefined);
}

/** Sends the step the checkpoint now points at, and records that it was sent. */
export async function advance(ctx: AppContext, runId: string, next: Cursor | null, pageMs?: number): Promise<void> {
  if (next === null) return;
  await send(ctx, runId, next);
  await markEnqueued(ctx.env.DB, runId, next.step, pageMs);
}

export const today = () => new Date().toISOString().slice(0, 10);

export async function fetchOai(ctx: AppContext, path: string): Promise<{ page: OaiPage; readAt: number }> {
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

export function scopeOf(config: Config): string {
  return config.ARXIV_MIRROR_OAI_SET ? `the OAI set ${config.ARXIV_MIRROR_OAI_SET}` : "all of arXiv";
}

export function describeWindow(window: HarvestWindow): string {
  return `${window.from ?? "the start"} to ${window.until ?? "now"}`;
}
