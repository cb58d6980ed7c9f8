// A call's budget (src/call-budget.ts): every tool call counts its D1 queries and subrequests and
// logs them; a bibliography whose entries would pass the budget answers the rest unchecked with a
// start to continue from, never failing, on the paid plan's defaults and on the free plan's setting.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { callToolWith, capturedLogLines, resetUpstream } from "./helpers";
import { seedMirror } from "./mirror/driver";
import { CallBudget, CallBudgetSpent } from "../src/call-budget";

beforeEach(resetUpstream);
afterEach(() => vi.restoreAllMocks());

/** Numbered references no mirror holds and the recorded Crossref answers lack: each goes to Crossref and OpenAlex. */
const outside = (count: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      `[${i + 1}] Q. Nobody${i} and R. Noone, “A theory of everything that was never written, part ${i + 1},” Journal of Imaginary Results, vol. ${i + 1}, pp. 1–2, 2011.`,
  ).join("\n");

async function loggedCheck(bibliography: string, vars: Record<string, unknown> = {}) {
  const { lines } = capturedLogLines();
  const { result } = await callToolWith(
    "papers_check_bibliography",
    { bibliography, max_tokens: 20_000 },
    { LOG_TOOL_CALLS: "true", ...vars },
  );
  await vi.waitFor(() => expect(lines.some((line) => line.includes('"tool_call"'))).toBe(true));
  const call = JSON.parse(lines.find((line) => line.includes('"tool_call"'))!);
  return { result, call };
}

describe("CallBudget", () => {
  it("counts D1 calls and subrequests, and refuses the one that would pass a limit, typed", () => {
    const budget = new CallBudget({ d1Queries: 3, subrequests: 2, ms: 60_000 });
    budget.spendD1(3);
    expect(() => budget.spendD1(1)).toThrow(CallBudgetSpent);
    budget.spendSubrequests(2, "a Crossref request");
    let refusal: unknown;
    try {
      budget.spendSubrequests(1, "a Crossref request");
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ reason: "call_budget_spent", retryable: true });
    expect(budget.spent()).toMatchObject({ d1_queries: 3, subrequests: 2 });
    expect(budget.refused).toBe(2);
    expect(budget.has({ d1Queries: 1 })).toBe(false);
  });
});

describe("a bibliography within its call's budget", () => {
  beforeEach(async () => {
    await seedMirror();
  });

  it("on the free plan's setting, answers what fits and leaves the rest unchecked with a start, never failing", async () => {
    const free = { CALL_MAX_D1_QUERIES: "45", CALL_MAX_SUBREQUESTS: "45" };
    const { result, call } = await loggedCheck(outside(30), free);
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent;
    const verdicts = answer.entries.map((entry: { verdict: string }) => entry.verdict);
    const checked = verdicts.filter((verdict: string) => verdict === "not_found").length;
    expect(checked).toBeGreaterThan(0);
    expect(checked + answer.summary.unchecked).toBe(30);
    // Entries in order: those checked, then those the budget left, each naming where to start again.
    expect(verdicts).toEqual([...Array(checked).fill("not_found"), ...Array(30 - checked).fill("unchecked")]);
    const left = answer.entries[checked];
    expect(left.unchecked).toEqual([
      {
        source: "call_budget",
        reason: expect.stringContaining("budget ran short"),
        retry_after_ms: null,
        start: checked,
      },
    ]);
    expect(answer.next_start).toBe(checked);
    expect(answer.notices.join(" ")).toContain(`start=${checked}`);
    expect(call.d1_queries).toBeLessThanOrEqual(45);
    expect(call.subrequests).toBeLessThanOrEqual(45);
    // The next call goes on from there.
    const again = await callToolWith(
      "papers_check_bibliography",
      { bibliography: outside(30), start: checked, max_tokens: 20_000 },
      free,
    );
    expect(again.result.structuredContent.entries[0]).toMatchObject({ n: checked + 1, verdict: "not_found" });
  });

  it("on the paid plan's defaults, 200 entries outside the mirrors stay under its limits", async () => {
    const { result, call } = await loggedCheck(outside(200));
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.summary.entries).toBe(200);
    expect(call.d1_queries).toBeLessThanOrEqual(900);
    expect(call.subrequests).toBeLessThanOrEqual(900);
    const unchecked = result.structuredContent.entries.filter(
      (entry: { verdict: string }) => entry.verdict === "unchecked",
    );
    for (const entry of unchecked) expect(entry.unchecked[0].source).toBe("call_budget");
  });
});

describe("one budget per invocation", () => {
  beforeEach(async () => {
    await seedMirror();
  });

  it("a JSON-RPC batch's calls share their request's budget: the platform counts per request", async () => {
    const { default: worker } = await import("../src/index");
    const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
    const { env } = await import("cloudflare:workers");
    const { MCP_HEADERS } = await import("./support/mcp-http");
    const { lines } = capturedLogLines();
    const batch = Array.from({ length: 8 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "arxiv_search_papers", arguments: { query: `ti:quantum${i % 2 ? "" : " OR ti:field"}` } },
    }));
    const ctx = createExecutionContext();
    const request = new Request("http://localhost/mcp", {
      method: "POST",
      headers: { host: "localhost", ...MCP_HEADERS, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify(batch),
    }) as unknown as Parameters<typeof worker.fetch>[0];
    const vars = { CALL_MAX_D1_QUERIES: "10", LOG_TOOL_CALLS: "true" };
    const response = await worker.fetch(request, { ...env, ...vars } as unknown as Env, ctx);
    const text = await response.text();
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(200);
    await vi.waitFor(() => expect(lines.filter((line) => line.includes('"tool_call"'))).toHaveLength(8));
    const calls = lines.filter((line) => line.includes('"tool_call"')).map((line) => JSON.parse(line));
    // The budget is the request's: what its calls spent together never passes 10.
    expect(Math.max(...calls.map((call) => call.d1_queries))).toBeLessThanOrEqual(10);
    expect(calls.filter((call) => call.outcome === "ok").length).toBeGreaterThan(0);
    // Those past it are refused, typed (a search answers from arXiv's API only through the mirror's fallback).
    expect(calls.some((call) => call.outcome !== "ok")).toBe(true);
    expect(text).toContain("call_budget_spent");
    expect(text).not.toMatch(/internal_error|D1_ERROR/);
  });
});

describe("the call's cache writes", () => {
  it("are written when the call ends even with its budget spent (the limits keep headroom for them)", async () => {
    const { env } = await import("cloudflare:workers");
    const { callScope, finishCall } = await import("../src/context");
    const { cacheWrite, clearMemoryCache, cacheGet } = await import("../src/store/cache");
    const { meteredDatabase, emptyMeter } = await import("../src/store/d1-meter");
    const budget = new CallBudget({ d1Queries: 1, subrequests: 1, ms: 60_000 });
    const call = callScope("test", budget);
    const db = meteredDatabase(env.DB, emptyMeter(), { budget });
    await db.prepare("SELECT 1").all();
    expect(budget.has({ d1Queries: 1 })).toBe(false);
    await cacheWrite({ env: { DB: db }, call }, [{ key: "budget-test:a", value: { a: 1 }, ttlMs: 60_000 }]);
    await finishCall(call);
    clearMemoryCache();
    expect((await cacheGet<{ a: number }>(env.DB, "budget-test:a"))?.value).toEqual({ a: 1 });
    expect(budget.spent().d1_queries).toBe(2);
  });
});
