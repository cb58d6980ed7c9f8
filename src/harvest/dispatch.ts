// Cron and queue wiring for the mirror harvests. A harvester (arXiv OAI-PMH, NBER) registers
// itself in HARVESTERS; this file owns message validation, routing and the dead-letter path.
import { z } from "zod";
import { PapersError } from "../errors";
import { cachePurgeExpired } from "../store/cache";
import { markHarvestFailed } from "../store/harvest-state";
import type { AppContext } from "../context";

/** One queue message = one page of one harvest run. */
export const harvestMessageSchema = z.object({
  source: z.enum(["arxiv", "nber"]),
  run_id: z.string().min(1).max(100),
  /** Where this page starts: a resumption token, a date, a page number; the harvester decides. */
  cursor: z.string().max(10_000).nullable(),
});
export type HarvestMessage = z.infer<typeof harvestMessageSchema>;

export interface Harvester {
  /** Called by the cron trigger: start (or continue) a run by enqueueing its first page. */
  onSchedule(ctx: AppContext, cron: string): Promise<void>;
  /** Fetch and store one page; enqueue the next. Throwing retries the message (up to max_retries). */
  onPage(ctx: AppContext, message: HarvestMessage, attempt: number): Promise<void>;
  /** A message of this source ended in the dead-letter queue: stop the run it belongs to (and only that one). */
  onDeadLetter?(ctx: AppContext, message: HarvestMessage, reason: string): Promise<void>;
}

// Registered lazily to keep the import graph one-way (harvesters import this file's types).
export const HARVESTERS: Partial<Record<HarvestMessage["source"], Harvester>> = {};

export function registerHarvester(source: HarvestMessage["source"], harvester: Harvester): void {
  HARVESTERS[source] = harvester;
}

/** The frequent cron: it only resumes stalled harvests (one D1 read when nothing is stalled). */
export const WATCHDOG_CRON = "*/5 * * * *";

export async function runScheduled(controller: ScheduledController, ctx: AppContext): Promise<void> {
  if (controller.cron !== WATCHDOG_CRON) {
    // Housekeeping may fail (D1 busy, a bug): the day's harvest starts all the same.
    try {
      const purged = await cachePurgeExpired(ctx.env.DB);
      console.log(`cron ${controller.cron}: purged ${purged} expired cache entries`);
    } catch (error) {
      console.error(`cron ${controller.cron}: cache purge failed; the harvests start anyway`, error);
    }
  }
  const harvesters = Object.entries(HARVESTERS).filter(
    ([source]) => controller.cron !== WATCHDOG_CRON || source === "arxiv",
  );
  if (harvesters.length === 0) {
    console.log(`cron ${controller.cron}: no mirror harvester is registered yet; nothing to do`);
    return;
  }
  // One failing source must not stop the others.
  const results = await Promise.allSettled(
    harvesters.map(([, harvester]) => harvester!.onSchedule(ctx, controller.cron)),
  );
  for (const [index, result] of results.entries()) {
    if (result.status === "rejected")
      console.error(`cron: harvester ${harvesters[index]![0]} failed to start`, result.reason);
  }
}

export const DEAD_LETTER_QUEUE = "papers-mcp-harvest-dlq";

export async function handleQueueBatch(batch: MessageBatch<unknown>, ctx: AppContext): Promise<void> {
  for (const message of batch.messages) {
    const parsed = harvestMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      // A malformed message can never succeed; retrying it would only burn the retry budget.
      console.error(`queue ${batch.queue}: dropping malformed message ${message.id}`, parsed.error.issues);
      message.ack();
      continue;
    }
    if (batch.queue === DEAD_LETTER_QUEUE) {
      const reason =
        `step ${describeCursor(parsed.data.cursor)} kept failing (dead-lettered after ` +
        `${message.attempts} attempt(s) of the last delivery)`;
      const harvester = HARVESTERS[parsed.data.source];
      if (harvester?.onDeadLetter) await harvester.onDeadLetter(ctx, parsed.data, reason);
      else await markRunFailed(ctx, parsed.data, reason);
      message.ack();
      continue;
    }
    const harvester = HARVESTERS[parsed.data.source];
    if (!harvester) {
      console.error(`queue: no harvester for source ${parsed.data.source}; dropping message ${message.id}`);
      message.ack();
      continue;
    }
    try {
      await harvester.onPage(ctx, parsed.data, message.attempts);
      message.ack();
    } catch (error) {
      console.error(`queue: ${parsed.data.source} page failed (attempt ${message.attempts})`, error);
      // An upstream that said "come back in N seconds" (503 + Retry-After) gets exactly that.
      const retryAfterMs = error instanceof PapersError ? error.retryAfterMs : undefined;
      message.retry(
        retryAfterMs === undefined ? undefined : { delaySeconds: Math.min(43_200, Math.ceil(retryAfterMs / 1000)) },
      );
    }
  }
}

/** The run stops with status error and its reason; the papers already stored keep serving. */
export async function markRunFailed(ctx: AppContext, message: HarvestMessage, reason: string): Promise<void> {
  await markHarvestFailed(ctx.env.DB, message.source, reason);
}

function describeCursor(cursor: string | null): string {
  if (cursor === null) return "(first)";
  try {
    const parsed = JSON.parse(cursor) as { step?: unknown };
    return typeof parsed.step === "number" ? String(parsed.step) : cursor.slice(0, 100);
  } catch {
    return cursor.slice(0, 100);
  }
}
