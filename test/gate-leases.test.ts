// The crawl gate's leases and fair shares, and what a request costs the call's subrequest budget:
// Crossref never sees more requests in flight than it states, one client's queue cannot push
// another's request out of its budget, and every gate call and fetch is counted.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CallBudget } from "../src/call-budget";
import { type AppContext, appContext, callScope } from "../src/context";
import { PapersError } from "../src/errors";
import { crossrefGet } from "../src/sources/crossref/client";
import { politeFetch } from "../src/upstream/fetch";
import { callToolWith, resetUpstream, statusJson, upstreamHits } from "./helpers";
import { seedMirror } from "./mirror/driver";

beforeEach(resetUpstream);
afterEach(() => vi.restoreAllMocks());

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const gateOf = (name: string) => env.CRAWL_GATE.get(env.CRAWL_GATE.idFromName(name));

/** A context inside a tool call of `client`, with its own budget. */
function inCall(client: string, limits: { subrequests?: number } = {}, vars: Record<string, string> = {}) {
  const budget = new CallBudget({ d1Queries: 1000, subrequests: limits.subrequests ?? 1000, ms: 60_000 });
  const ctx: AppContext = { ...appContext({ ...env, ...vars } as Env), call: callScope(client, budget) };
  return { ctx, budget };
}

/**
 * A HAND-MADE Crossref (no recording has these timings): every request under /crossref/ is answered
 * after `ms` with an empty work list, stating x-concurrency-limit when `stated` is given; counts the
 * requests in flight at once, as Crossref would see them. Other requests go to the fixture router.
 */
function slowCrossref(ms: number, stated: () => number | null) {
  const seen = { requests: 0, inFlight: 0, maxInFlight: 0 };
  const real = globalThis.fetch.bind(globalThis);
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.includes("/crossref/")) return real(input, init);
    seen.requests++;
    seen.maxInFlight = Math.max(seen.maxInFlight, ++seen.inFlight);
    try {
      await sleep(ms);
      const limit = stated();
      return Response.json(
        { status: "ok", "message-type": "work-list", message: { items: [], "total-results": 0 } },
        {
          headers: {
            "x-fake-upstream": "hand-made",
            ...(limit === null ? {} : { "x-concurrency-limit": String(limit) }),
          },
        },
      );
    } finally {
      seen.inFlight--;
    }
  });
  return seen;
}

async function failure(promise: Promise<unknown>): Promise<PapersError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PapersError) return error;
    throw error;
  }
  throw new Error("expected a PapersError, got a result");
}

describe("concurrency leases", () => {
  it("never has more requests in flight at Crossref than its public pool allows (1), however many callers", async () => {
    const crossref = slowCrossref(150, () => 1);
    const { ctx } = inCall("A");
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => politeFetch(ctx, "crossref", `/works?query.bibliographic=lease+${i}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(crossref.requests).toBe(5);
    expect(crossref.maxInFlight).toBe(1);
  });

  it("starts from the polite pool's 3, then obeys the x-concurrency-limit Crossref states (kept in the gate)", async () => {
    let stated: number | null = null;
    const crossref = slowCrossref(150, () => stated);
    const { ctx } = inCall("A", {}, { CROSSREF_MAILTO: "ops@example.org" });
    const burst = (tag: string, n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => crossrefGet(ctx, `/works?query.title=${tag}+${i}`)));
    // Before Crossref has said anything: the configured polite pool's 3 at once, never more.
    await burst("before", 6);
    expect(crossref.maxInFlight).toBe(3);
    // An answer states 1: the gate keeps it, for every isolate, and holds every later request to it.
    stated = 1;
    await crossrefGet(ctx, "/works?query.title=learn");
    const seen = await gateOf("crossref").inspect({ delayMs: 5, marginMs: 5, concurrency: 3 });
    expect(seen.inFlight).toMatchObject({ limit: 1, limitSource: "stated", leases: 0 });
    crossref.maxInFlight = 0;
    await burst("after", 5);
    expect(crossref.maxInFlight).toBe(1);
  });

  it("frees a lease whose holder never gave it back once the request's timeout has passed", async () => {
    const crossref = slowCrossref(0, () => 1);
    // An isolate that took a lease for a request of 300 ms, then died.
    const held = await gateOf("crossref").reserve({
      delayMs: 0,
      marginMs: 0,
      concurrency: 1,
      client: "crashed",
      leaseMs: 300,
      maxWaitMs: 1000,
    });
    expect(held).toMatchObject({ granted: true, lease: expect.any(String) });
    const started = Date.now();
    const { ctx } = inCall("A");
    expect((await politeFetch(ctx, "crossref", "/works?query.title=after+a+crash")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(crossref.requests).toBe(1);
  });
});

describe("fair shares of a gate's queue", () => {
  it("puts another client's request near the front however many requests one client has queued", async () => {
    // arXiv's API: 150 ms apart in tests, one at a time. A queues ten requests (1.5 s of slots).
    const a = inCall("ip:198.51.100.1");
    const b = inCall("ip:198.51.100.2");
    const ofA = Array.from({ length: 10 }, (_, i) =>
      politeFetch(a.ctx, "arxiv-api", `/_scenario/ok?a=${i}`, { deadline: Date.now() + 20_000 }),
    );
    await sleep(60);
    // A holds one lease and its share of the queue (2); its other seven wait outside, asking again.
    const seen = await gateOf("arxiv-api").inspect({ delayMs: 150, marginMs: 5, concurrency: 1 });
    expect(seen.queue.byClient["ip:198.51.100.1"]).toBe(2);
    // B's budget (1.2 s) is shorter than A's whole queue: it gets a slot behind A's share, not behind all ten.
    const response = await politeFetch(b.ctx, "arxiv-api", "/_scenario/ok?b=1", { deadline: Date.now() + 1200 });
    expect(response.status).toBe(200);
    await Promise.all(ofA);
    const order = (await upstreamHits()).map((hit) => hit.path);
    expect(order).toHaveLength(11);
    expect(order.indexOf("/arxiv-api/_scenario/ok?b=1")).toBeLessThanOrEqual(3);
  });

  it("spreads the requests a client must hold back over the departures to come, one each", async () => {
    const gate = gateOf("share-test");
    const turn = { delayMs: 100, marginMs: 0, concurrency: 1, client: "A", leaseMs: 10_000, maxWaitMs: 10_000 };
    expect(await gate.reserve(turn)).toMatchObject({ granted: true, lease: expect.any(String) });
    expect(await gate.reserve(turn)).toMatchObject({ granted: true, slot: expect.any(String) });
    expect(await gate.reserve(turn)).toMatchObject({ granted: true, slot: expect.any(String) });
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await gate.reserve(turn));
    expect(held.map((answer) => !answer.granted && answer.reason)).toEqual(["share", "share", "share"]);
    const waits = held.map((answer) => (answer.granted ? 0 : answer.retryAfterMs));
    // Each comes back a departure (100 ms here) after the one before, not all at once.
    expect(waits[1]! - waits[0]!).toBeGreaterThanOrEqual(90);
    expect(waits[2]! - waits[1]!).toBeGreaterThanOrEqual(90);
    // Another client is not held back by A's share.
    expect(await gate.reserve({ ...turn, client: "B" })).toMatchObject({ granted: true, slot: expect.any(String) });
  });
});

describe("fair shares across bibliography checks", () => {
  /** Crossref's recorded answers, each HAND-MADE slow (400 ms) and stating x-concurrency-limit: 1. */
  function slowRecordedCrossref() {
    const real = globalThis.fetch.bind(globalThis);
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (!url.includes("/crossref/")) return real(input, init);
      await sleep(400);
      const recorded = await real(input, init);
      const headers = new Headers(recorded.headers);
      headers.set("x-concurrency-limit", "1");
      return new Response(recorded.body, { status: recorded.status, headers });
    });
  }

  /** References no mirror holds: each costs Crossref a request (and OpenAlex one). */
  const outside = (tag: string, count: number) =>
    Array.from(
      { length: count },
      (_, i) =>
        `[${i + 1}] Q. Nobody${i} and R. Noone, “An unwritten treatise, ${tag} part ${i + 1},” Journal of Imaginary Results, vol. ${i + 1}, pp. 1–2, 2011.`,
    ).join("\n");

  it("checks another client's entries while one client's two long checks fill Crossref's queue", async () => {
    await seedMirror();
    slowRecordedCrossref();
    const check = (client: string, bibliography: string, vars: Record<string, string> = {}) =>
      callToolWith("papers_check_bibliography", { bibliography }, vars, { "cf-connecting-ip": client });
    // The gate times Crossref's answers first (400 ms), and forecasts its slots by that.
    await crossrefGet(inCall("warm-up").ctx, "/works?query.title=warm+up");
    // A: two checks at once (a client's most), 12 entries at Crossref together (6 each): 4.8 s of Crossref's time.
    const ofA = ["first", "second"].map((tag) => check("198.51.100.1", outside(tag, 6)));
    await vi.waitFor(
      async () => {
        const seen = await gateOf("crossref").inspect({ delayMs: 5, marginMs: 5, concurrency: 1 });
        expect(seen.queue.byClient["ip:198.51.100.1"]).toBe(2);
      },
      { timeout: 5000, interval: 50 },
    );
    // B has 4.5 s: behind all of A's requests it would get none (both entries unchecked with a share of 200:
    // measured); behind A's share of 2 it gets both.
    const b = await check(
      "198.51.100.2",
      [
        "[1] D. Tkaczyk, P. Szostek, M. Fedoryszak, P. J. Dendek, and Bolikowski, “CERMINE: automatic extraction of structured metadata from scientific literature,” International Journal on Document Analysis and Recognition (IJDAR), vol. 18, no. 4, pp. 317–335, 2015.",
        "[2] Sadasivan S, Pond BB, Pani AK, et al. Methylphenidate exposure induces dopamine neuron loss and activation of microglia in the basal ganglia of mice. PLoS One. 2012;7(3):e33693. doi:10.1371/journal.pone.0033693",
      ].join("\n"),
      { CALL_MAX_MS: "4500" },
    );
    const entries = b.result.structuredContent.entries as { verdict: string }[];
    expect(entries.map((entry) => entry.verdict)).not.toContain("unchecked");
    expect(b.result.structuredContent.summary.verified).toBe(2);
    await Promise.all(ofA);
  });
});

describe("subrequests counted in the call's budget", () => {
  it("counts a Crossref request that finds the gate free as 3: its reserve, the fetch, the lease's release", async () => {
    const { ctx, budget } = inCall("A");
    expect(await crossrefGet(ctx, "/works/10.5555/not.recorded.1")).toBeNull();
    expect(budget.spent().subrequests).toBe(3);
  });

  it("counts each redirect hop as a request of its own (its turn at the gate and its fetch)", async () => {
    const { ctx, budget } = inCall("A");
    expect((await politeFetch(ctx, "nber", "/_scenario/redirect?hops=1")).status).toBe(200);
    expect(await upstreamHits()).toHaveLength(2);
    // The second hop waits the spacing: reserve, depart (one or more), fetch, release.
    expect(budget.spent().subrequests).toBeGreaterThanOrEqual(3 + 4);
  });

  it("makes no part of a request the budget cannot pay for whole: nothing sent, no slot or lease held", async () => {
    const { ctx, budget } = inCall("A", { subrequests: 3 });
    const error = await failure(politeFetch(ctx, "crossref", "/works?query.title=too+expensive"));
    expect(error.reason).toBe("call_budget_spent");
    expect(budget.spent().subrequests).toBe(0);
    expect(await upstreamHits()).toHaveLength(0);
    const seen = await gateOf("crossref").inspect();
    expect(seen.queue.waiting + seen.inFlight.leases).toBe(0);
  });
});

describe("/status", () => {
  it("shows each gate's queue and requests in flight, with clients by number, not by their key", async () => {
    await gateOf("crossref").reserve({
      delayMs: 0,
      marginMs: 0,
      concurrency: 1,
      client: "ip:203.0.113.9",
      leaseMs: 30_000,
      maxWaitMs: 1000,
    });
    const status = await statusJson();
    const gates = status.gates as { gate: string; upstreams: string[]; in_flight: Record<string, unknown> }[];
    expect(gates.map((gate) => gate.gate).sort()).toEqual(
      ["arxiv-api", "arxiv-content", "arxiv-oai", "crossref", "doi-ra", "nber", "openalex"].sort(),
    );
    expect(gates.find((gate) => gate.gate === "arxiv-content")!.upstreams).toEqual(["arxiv-content", "ar5iv"]);
    expect(gates.find((gate) => gate.gate === "crossref")).toMatchObject({
      queue: { waiting: 0, by_client: [] },
      in_flight: { requests: 1, by_client: [{ client: "client 1", count: 1 }], limit: 1, limit_source: "configured" },
    });
    expect(JSON.stringify(status)).not.toContain("203.0.113.9");
    // The page for people says the same.
    const { default: worker } = await import("../src/index");
    const { createExecutionContext } = await import("cloudflare:test");
    const request = new Request("http://localhost/status", { headers: { accept: "text/html" } });
    const page = await (
      await worker.fetch(request as unknown as Parameters<typeof worker.fetch>[0], env, createExecutionContext())
    ).text();
    expect(page).toContain("<h2>Upstream gates</h2>");
    expect(page).toMatch(
      /<td>crossref<\/td>\s*<td>0<\/td><td>(now|in [0-9.]+ s)<\/td>\s*<td>1 \(client 1: 1\)<\/td>\s*<td>1 \(configured\)<\/td>/,
    );
    expect(page).not.toContain("203.0.113.9");
  });
});
