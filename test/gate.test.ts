// CrawlGate + politeFetch, measured at the fake upstream.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { PapersError } from "../src/errors";
import { parseRetryAfter, politeFetch, upstreamUrl } from "../src/upstream/fetch";
import { spacingMs } from "../src/upstream/gate";
import { resetUpstream, upstreamHits } from "./helpers";
import { appContext } from "../src/context";
import { loadConfig } from "../src/config";

async function failure(promise: Promise<unknown>): Promise<PapersError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PapersError) return error;
    throw error;
  }
  throw new Error("expected a PapersError, got a result");
}

beforeEach(resetUpstream);

describe("spacing", () => {
  it("spaces concurrent callers by the configured delay, measured at the upstream", async () => {
    const delay = loadConfig(env).ARXIV_REQUEST_DELAY_MS; // 150 in tests
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, i) => politeFetch(appContext(env), "arxiv-api", `/_scenario/ok?caller=${i}`)),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const arrivals = (await upstreamHits()).map((hit) => hit.at).sort((a, b) => a - b);
    expect(arrivals).toHaveLength(5);
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!);
    // Departures are `delay` plus a margin apart at the gate (each caller confirms just before it
    // sends); the jitter between that confirmation and the arrival is what is left. At the upstream
    // (npm run bench:gate, 1,000 requests from 20 clients through wrangler dev) no gap is under the delay.
    expect(spacingMs(delay, loadConfig(env).CRAWL_GATE_MARGIN_MS)).toBeGreaterThan(delay);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(delay * 0.95);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(4 * delay - 20);
  });

  it("keeps separate upstreams independent", async () => {
    await Promise.all([
      politeFetch(appContext(env), "arxiv-api", "/_scenario/ok"),
      politeFetch(appContext(env), "nber", "/_scenario/ok"),
    ]);
    const [first, second] = (await upstreamHits()).map((hit) => hit.at);
    // Different gates: the second request does not wait for the arXiv API's 150 ms slot.
    expect(Math.abs(second! - first!)).toBeLessThan(loadConfig(env).ARXIV_REQUEST_DELAY_MS);
  });

  it("sends the configured User-Agent and builds the URL from the configured base", async () => {
    await politeFetch(appContext(env), "arxiv-api", "/_scenario/ok");
    const [hit] = await upstreamHits();
    expect(hit!.path).toBe("/arxiv-api/_scenario/ok");
    expect(hit!.userAgent).toBe(loadConfig(env).UPSTREAM_USER_AGENT);
  });

  it("fails fast with rate_limited when the next slot is beyond the caller's deadline", async () => {
    await politeFetch(appContext(env), "arxiv-api", "/_scenario/ok");
    const error = await failure(
      politeFetch(appContext(env), "arxiv-api", "/_scenario/ok", { deadline: Date.now() + 10 }),
    );
    expect(error.reason).toBe("rate_limited");
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(await upstreamHits()).toHaveLength(1);
  });
});

describe("rate limiting and cooldown", () => {
  it("puts the gate in cooldown on 429; later callers fail fast without reaching the upstream", async () => {
    const first = await failure(politeFetch(appContext(env), "arxiv-api", "/_scenario/status-429"));
    expect(first).toMatchObject({ reason: "rate_limited", retryable: true });
    expect(first.retryAfterMs).toBeGreaterThanOrEqual(5000);

    const started = Date.now();
    const second = await failure(politeFetch(appContext(env), "arxiv-api", "/_scenario/ok"));
    expect(second.reason).toBe("rate_limited");
    expect(second.retryAfterMs).toBeGreaterThan(0);
    expect(second.retryAfterMs).toBeLessThanOrEqual(first.retryAfterMs!);
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await upstreamHits()).map((hit) => hit.path)).toEqual(["/arxiv-api/_scenario/status-429"]);

    const gate = env.CRAWL_GATE.get(env.CRAWL_GATE.idFromName("arxiv-api"));
    const state = await gate.inspect();
    expect(state.strikes).toBe(1);
    expect(state.cooldownUntil).toBeGreaterThan(Date.now());
  });

  it("honours a Retry-After longer than the backoff", async () => {
    const error = await failure(politeFetch(appContext(env), "arxiv-api", "/_scenario/status-429?retry_after=120"));
    expect(error.retryAfterMs).toBe(120_000);
    const next = await failure(politeFetch(appContext(env), "arxiv-api", "/_scenario/ok"));
    expect(next.retryAfterMs).toBeGreaterThan(100_000);
  });

  it("doubles the cooldown on repeated strikes and forgets them after a good answer", async () => {
    const gate = env.CRAWL_GATE.get(env.CRAWL_GATE.idFromName("nber"));
    expect((await gate.reportRateLimited()).cooldownMs).toBe(5000);
    expect((await gate.reportRateLimited()).cooldownMs).toBe(10_000);
    expect((await gate.reportRateLimited()).cooldownMs).toBe(20_000);
    await gate.reportOk();
    expect((await gate.inspect()).strikes).toBe(0);
  });

  it("empties the queue on a cooldown: the slots of refused holders do not hold later requests back", async () => {
    const gate = env.CRAWL_GATE.get(env.CRAWL_GATE.idFromName("cooldown-queue"));
    const turn = { delayMs: 1000, marginMs: 0, concurrency: 1, client: "a", leaseMs: 10_000, maxWaitMs: 10_000 };
    await gate.reserve(turn);
    await gate.reserve(turn);
    expect((await gate.inspect(turn)).queue.waiting).toBe(1);
    await gate.reportRateLimited(100);
    expect((await gate.inspect(turn)).queue.waiting).toBe(0);
  });

  it("treats arXiv's 200 'Rate exceeded.' body as rate_limited", async () => {
    const error = await failure(politeFetch(appContext(env), "arxiv-api", "/_scenario/rate-exceeded"));
    expect(error.reason).toBe("rate_limited");
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(5000);
  });

  it("treats 503 with Retry-After as unavailable and waits as told", async () => {
    const error = await failure(politeFetch(appContext(env), "arxiv-oai", "/_scenario/status-503?retry_after=30"));
    expect(error).toMatchObject({ reason: "upstream_unavailable", retryable: true, retryAfterMs: 30_000 });
    const next = await failure(politeFetch(appContext(env), "arxiv-oai", "/_scenario/ok"));
    expect(next.reason).toBe("rate_limited");
  });
});

describe("response classification", () => {
  it("5xx is upstream_unavailable, retried once when asked, through the gate", async () => {
    const error = await failure(politeFetch(appContext(env), "nber", "/_scenario/status-500", { retries: 1 }));
    expect(error).toMatchObject({ reason: "upstream_unavailable", retryable: true });
    expect(await upstreamHits()).toHaveLength(2);
  });

  it("retries at most as often as asked, with backoff", async () => {
    const started = Date.now();
    await failure(politeFetch(appContext(env), "nber", "/_scenario/status-500", { retries: 2 }));
    expect(await upstreamHits()).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400); // 0.5 s + 1 s of backoff
  });

  it("other 4xx is invalid_request; 404 is handed back to the caller", async () => {
    expect((await failure(politeFetch(appContext(env), "nber", "/_scenario/status-400"))).reason).toBe(
      "invalid_request",
    );
    const missing = await politeFetch(appContext(env), "nber", "/no/such/page");
    expect(missing.status).toBe(404);
  });

  it("a slow upstream ends in a timeout at the deadline", async () => {
    const started = Date.now();
    const error = await failure(
      politeFetch(appContext(env), "nber", "/_scenario/slow?ms=5000", { deadline: Date.now() + 300 }),
    );
    expect(error.reason).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("serves a recorded arXiv API response through the router", async () => {
    const response = await politeFetch(appContext(env), "arxiv-api", "/query?id_list=1605.08386&max_results=100");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("<id>http://arxiv.org/abs/1605.08386v1</id>");
  });
});

describe("URL building", () => {
  it("only appends absolute paths to the configured base", () => {
    expect(upstreamUrl("https://export.arxiv.org/api", "/query?x=1")).toBe("https://export.arxiv.org/api/query?x=1");
    for (const bad of ["query", "//evil.example/x", "/a b", "/a\\b", "http://evil.example/"]) {
      expect(() => upstreamUrl("https://export.arxiv.org/api", bad)).toThrow(PapersError);
    }
  });

  it("parses Retry-After seconds and dates", () => {
    expect(parseRetryAfter("7")).toBe(7000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10_000);
  });
});

describe("departures, cooldowns during a wait, budgets and redirects", () => {
  const gateOf = (name: string) => env.CRAWL_GATE.get(env.CRAWL_GATE.idFromName(name));

  it("spaces departures, not grants: a caller following one that left late waits the difference", async () => {
    const gate = gateOf("departure-test");
    const turn = { delayMs: 200, marginMs: 10, concurrency: 3, client: "a", leaseMs: 10_000 };
    // Nobody waits and a lease is free: the first leaves with its reserve.
    const first = await gate.reserve({ ...turn, maxWaitMs: 10_000 });
    expect(first).toMatchObject({ granted: true, lease: expect.any(String) });
    const second = await gate.reserve({ ...turn, maxWaitMs: 10_000 });
    if (!second.granted || !("slot" in second))
      throw new Error(`expected a queued slot, got ${JSON.stringify(second)}`);
    expect(second.waitMs).toBeGreaterThan(150);
    // Too early (a timer that woke early): the gate says how much longer.
    const early = await gate.depart({ ...turn, slot: second.slot });
    expect(early).toMatchObject({ go: false, reason: "early" });
    await new Promise((resolve) =>
      setTimeout(resolve, early.go === false && early.reason === "early" ? early.waitMs : 0),
    );
    expect(await gate.depart({ ...turn, slot: second.slot })).toMatchObject({ go: true, lease: expect.any(String) });
    // The next grant counts from that departure.
    const third = await gate.reserve({ ...turn, maxWaitMs: 10_000 });
    expect(third.granted && "slot" in third && third.waitMs).toBeGreaterThan(150);
  });

  it("a caller holding a slot does not send once a 429 has put the gate in cooldown while it waited", async () => {
    await politeFetch(appContext(env), "arxiv-api", "/_scenario/ok");
    const waiting = failure(politeFetch(appContext(env), "arxiv-api", "/_scenario/ok?second=1"));
    // Another caller's 429 arrives while the second waits for its slot.
    await gateOf("arxiv-api").reportRateLimited(30_000);
    const error = await waiting;
    expect(error.reason).toBe("rate_limited");
    expect(error.retryAfterMs).toBeGreaterThan(20_000);
    expect((await upstreamHits()).map((hit) => hit.path)).toEqual(["/arxiv-api/_scenario/ok"]);
  });

  it("a caller whose budget is spent waiting does not send a request that would certainly time out", async () => {
    await politeFetch(appContext(env), "arxiv-api", "/_scenario/ok");
    // The next slot is 150 ms away; the budget leaves less than the useful minimum after it.
    const error = await failure(
      politeFetch(appContext(env), "arxiv-api", "/_scenario/ok?late=1", { deadline: Date.now() + 250 }),
    );
    expect(error.reason).toBe("timeout");
    expect(await upstreamHits()).toHaveLength(1);
  });

  it("follows redirects hop by hop through the gate (each hop spaced), at most three", async () => {
    const delay = loadConfig(env).ARXIV_REQUEST_DELAY_MS;
    const response = await politeFetch(appContext(env), "arxiv-api", "/_scenario/redirect?hops=2");
    expect(response.status).toBe(200);
    const arrivals = (await upstreamHits()).map((hit) => hit.at);
    expect(arrivals).toHaveLength(3);
    for (let i = 1; i < arrivals.length; i++) expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThanOrEqual(delay - 5);
    const tooMany = await failure(politeFetch(appContext(env), "arxiv-api", "/_scenario/redirect?hops=5"));
    expect(tooMany.message).toContain("redirected more than 3 times");
  });
});
