// Cron and queue wiring: validation, dead-letter handling, and the run status it leaves in D1.
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HARVESTERS, type HarvestMessage } from "../src/harvest/dispatch";
import { PapersError } from "../src/errors";
import worker from "../src/index";

function message(id: string, body: unknown, attempts = 1) {
  return { id, timestamp: new Date(), attempts, body };
}

afterEach(() => {
  delete HARVESTERS.arxiv;
});

describe("queue consumer", () => {
  it("acks malformed messages instead of retrying them forever", async () => {
    const batch = createMessageBatch("papers-mcp-harvest", [message("m1", { nonsense: true }), message("m2", "text")]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["m1", "m2"]);
    expect(result.retryMessages).toEqual([]);
  });

  it("routes a page to its harvester, and retries with the upstream's Retry-After", async () => {
    const seen: HarvestMessage[] = [];
    HARVESTERS.arxiv = {
      onSchedule: async () => {},
      onPage: async (_env, page) => {
        seen.push(page);
        if (page.cursor === "busy") {
          throw new PapersError("upstream_unavailable", "503", {
            retryable: true,
            retryAfterMs: 30_000,
            recovery: "wait",
          });
        }
      },
    };
    const batch = createMessageBatch("papers-mcp-harvest", [
      message("ok", { source: "arxiv", run_id: "r1", cursor: "token-1" }),
      message("busy", { source: "arxiv", run_id: "r1", cursor: "busy" }),
    ]);
    const retry = vi.spyOn(batch.messages[1]!, "retry");
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(seen.map((page) => page.cursor)).toEqual(["token-1", "busy"]);
    expect(result.explicitAcks).toEqual(["ok"]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["busy"]);
    expect(retry).toHaveBeenCalledWith({ delaySeconds: 30 });
  });

  it("a page in the dead-letter queue stops the run with status error and the reason", async () => {
    const batch = createMessageBatch("papers-mcp-harvest-dlq", [
      message("d1", { source: "arxiv", run_id: "r1", cursor: "tok-9" }, 6),
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    await getQueueResult(batch, ctx);
    const health = (await (await exports.default.fetch("http://localhost/health")).json()) as any;
    const arxiv = health.d1.mirrors.find((m: { source: string }) => m.source === "arxiv");
    expect(arxiv.status).toBe("error");
    expect(arxiv.last_error).toContain("tok-9");
  });
});

describe("cron", () => {
  it("purges expired cache entries and keeps fresh ones", async () => {
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO api_cache (key, value, fetched_at, expires_at) VALUES ('old', '1', ?, ?)").bind(
        now - 10_000,
        now - 1,
      ),
      env.DB.prepare("INSERT INTO api_cache (key, value, fetched_at, expires_at) VALUES ('fresh', '1', ?, ?)").bind(
        now,
        now + 60_000,
      ),
    ]);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "30 2 * * *", scheduledTime: now }), env, ctx);
    await waitOnExecutionContext(ctx);
    const { results } = await env.DB.prepare("SELECT key FROM api_cache").all<{ key: string }>();
    expect(results.map((row) => row.key)).toEqual(["fresh"]);
  });

  it("starts every registered harvester", async () => {
    const crons: string[] = [];
    HARVESTERS.arxiv = { onSchedule: async (_env, cron) => void crons.push(cron), onPage: async () => {} };
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "30 2 * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(crons).toEqual(["30 2 * * *"]);
  });
});
