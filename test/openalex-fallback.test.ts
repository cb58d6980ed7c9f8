// OpenAlex after Crossref: the day's allowance is spent only on requests actually sent, and
// OpenAlex stands in for Crossref only when Crossref itself failed (not when our own gate, the
// call's time or its budget kept Crossref from being asked), at most 10 times a call.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { CallBudget } from "../src/call-budget";
import { type AppContext, appContext, type CallScope, callScope } from "../src/context";
import { PapersError } from "../src/errors";
import {
  type ExternalQuery,
  lookupCrossref,
  lookupOpenAlex,
  OPENALEX_FALLBACKS_PER_CALL,
} from "../src/sources/citations/resolve-external";
import { openAlexGet } from "../src/sources/openalex/client";
import { readBudgetDay } from "../src/store/upstream-budget";
import { GateRefusal } from "../src/upstream/fetch";
import { FAKE, resetUpstream, upstreamHits } from "./helpers";

beforeEach(resetUpstream);

const gateOf = (name: string) => env.CRAWL_GATE.get(env.CRAWL_GATE.idFromName(name));
const budget = (subrequests = 1000) => new CallBudget({ d1Queries: 1000, subrequests, ms: 60_000 });
const inCall = (call: CallScope, vars: Record<string, string> = {}): AppContext => ({
  ...appContext({ ...env, ...vars } as Env),
  call,
});
/** Crossref answering HTTP 503 to everything (the fixture router's hand-made scenario). */
const CROSSREF_DOWN = { CROSSREF_BASE_URL: `${FAKE}/nber/_scenario/status-503` };

async function failure(promise: Promise<unknown>): Promise<PapersError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PapersError) return error;
    throw error;
  }
  throw new Error("expected a PapersError, got a result");
}

/** A reference no source holds, with a title to search OpenAlex by. */
function reference(n: number, deadline?: number): ExternalQuery {
  const title = `An unwritten treatise on imaginary results number ${n}`;
  return {
    plain: `Q. Nobody, "${title}", Journal of Imaginary Results, vol. ${n}, 2011.`,
    dois: [],
    journalRefs: [],
    title,
    ...(deadline === undefined ? {} : { deadline }),
  };
}

/** The resolver's external steps, as resolve.ts takes them. */
async function lookUp(ctx: AppContext, query: ExternalQuery) {
  const crossref = await lookupCrossref(ctx, query);
  return { crossref, openalex: await lookupOpenAlex(ctx, query, crossref) };
}

const hitsAt = async (prefix: string) => (await upstreamHits()).filter((hit) => hit.path.startsWith(prefix)).length;

describe("the OpenAlex allowance", () => {
  const LIST = "/works?filter=title.search:imaginary+results&per-page=5";

  it("is taken for a list call that is sent", async () => {
    await openAlexGet(inCall(callScope("A", budget())), LIST, "list");
    expect(await hitsAt("/openalex/")).toBe(1);
    expect((await readBudgetDay(env.DB, "openalex"))?.used).toBe(1);
  });

  it("is not taken when the call's deadline has passed before the request could leave", async () => {
    const error = await failure(openAlexGet(inCall(callScope("A", budget())), LIST, "list", Date.now() - 1));
    expect(error.reason).toBe("timeout");
    expect(await hitsAt("/openalex/")).toBe(0);
    expect((await readBudgetDay(env.DB, "openalex"))?.used ?? 0).toBe(0);
  });

  it("is not taken when the gate refused the request", async () => {
    await gateOf("openalex").reportRateLimited(30_000);
    const error = await failure(openAlexGet(inCall(callScope("A", budget())), LIST, "list"));
    expect(error).toBeInstanceOf(GateRefusal);
    expect((await readBudgetDay(env.DB, "openalex"))?.used ?? 0).toBe(0);
  });
});

describe("OpenAlex in Crossref's place", () => {
  it("is not asked when our own gate's queue kept Crossref from being asked", async () => {
    // Another client's requests hold Crossref's lease and a slot 10 s away: past this call's 2 s.
    const hog = { marginMs: 0, concurrency: 1, client: "hog", leaseMs: 30_000, maxWaitMs: 60_000 };
    await gateOf("crossref").reserve({ ...hog, delayMs: 0 });
    expect(await gateOf("crossref").reserve({ ...hog, delayMs: 10_000 })).toMatchObject({ granted: true });
    const { crossref, openalex } = await lookUp(inCall(callScope("A", budget())), reference(1, Date.now() + 2000));
    expect(crossref.failure).toBeInstanceOf(GateRefusal);
    expect(openalex.unchecked).toEqual([
      { source: "openalex", reason: "rate_limited", retry_after_ms: expect.any(Number) },
    ]);
    expect(openalex.tried.join(" ")).toContain("OpenAlex: not asked (Crossref was not asked");
    expect(await upstreamHits()).toHaveLength(0);
  });

  it("is not asked when the call's budget could not pay for Crossref's request", async () => {
    const { crossref, openalex } = await lookUp(inCall(callScope("A", budget(3))), reference(2));
    expect(crossref.unchecked[0]).toMatchObject({ source: "crossref", reason: "call_budget_spent" });
    expect(openalex.unchecked[0]).toMatchObject({ source: "openalex", reason: "call_budget_spent" });
    expect(await upstreamHits()).toHaveLength(0);
  });

  it("is not asked when the call's time is up", async () => {
    const { openalex } = await lookUp(inCall(callScope("A", budget())), reference(3, Date.now() - 1));
    expect(openalex.unchecked).toEqual([{ source: "openalex", reason: "timeout", retry_after_ms: null }]);
    expect(await upstreamHits()).toHaveLength(0);
  });

  it("stands in for Crossref's own failures at most 10 times a call; Crossref's answers still lead to it", async () => {
    const call = callScope("A", budget());
    const down = inCall(call, CROSSREF_DOWN);
    const lookups = [];
    for (let n = 0; n < OPENALEX_FALLBACKS_PER_CALL + 2; n++) lookups.push(await lookUp(down, reference(100 + n)));
    expect(lookups.every(({ crossref }) => crossref.unchecked[0]?.reason === "upstream_unavailable")).toBe(true);
    expect(await hitsAt("/openalex/")).toBe(OPENALEX_FALLBACKS_PER_CALL);
    expect(lookups.at(-1)!.openalex.unchecked).toEqual([
      { source: "openalex", reason: "fallback_limit", retry_after_ms: null },
    ]);
    // Crossref answering (it lacks the work) is no fallback: OpenAlex, which holds what Crossref lacks, is asked.
    await lookUp(inCall(call), reference(200));
    expect(await hitsAt("/openalex/")).toBe(OPENALEX_FALLBACKS_PER_CALL + 1);
    // Another call has its own fallbacks.
    await lookUp(inCall(callScope("A", budget()), CROSSREF_DOWN), reference(300));
    expect(await hitsAt("/openalex/")).toBe(OPENALEX_FALLBACKS_PER_CALL + 2);
  });
});
