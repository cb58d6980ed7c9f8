// What the database costs (issue 34, item 4): every mirror search logs D1's rows read, SQL time and
// serving region as one line, measured by a metered reader that changes no answer; /status shows
// the database's size against D1's 10 GB limit.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { planMirrorSearch } from "../src/sources/arxiv/mirror-query";
import { emptyMeter, meteredDatabase, meteredReader, unmetered } from "../src/store/d1-meter";
import { searchMirror } from "../src/store/arxiv-mirror-search";
import { oneDatabase } from "../src/store/arxiv-shards";
import { callToolWith, capturedLogLines, statusJson } from "./helpers";
import { seedMirror, seedPartialMirror } from "./mirror/driver";
import { forgetMirrorState, mirrorLikelyReady, mirrorState } from "../src/store/arxiv-mirror-state";

afterEach(() => vi.restoreAllMocks());

function plan(query: string) {
  const planned = planMirrorSearch(query, {}, new Date());
  if ("live" in planned) throw new Error(planned.live);
  return planned.plan;
}

describe("D1 telemetry", () => {
  it("a metered search gives the same page and counts its statements, rows read and SQL time", async () => {
    await seedMirror();
    const options = { sortBy: "relevance" as const, sortOrder: "descending" as const, start: 0, limit: 10 };
    const plain = await searchMirror(oneDatabase(env.DB), plan("quantum entanglement"), options);
    const meter = emptyMeter();
    const metered = await searchMirror(
      oneDatabase(meteredReader(env.DB, meter)),
      plan("quantum entanglement"),
      options,
    );
    expect(metered).toEqual(plain);
    expect(meter.statements).toBeGreaterThan(0);
    expect(meter.rows_read).toBeGreaterThan(0);
    expect(meter.rows_written).toBe(0);
    expect(meter.sql_duration_ms).toBeGreaterThanOrEqual(0);
    // Local D1 names no region; production's served_by_region is added when present.
    expect(meter.served_by_region).toEqual([]);
  });

  it("batches and first() are metered too", async () => {
    await seedMirror();
    const meter = emptyMeter();
    const db = meteredReader(env.DB, meter);
    const one = await db.prepare("SELECT count(*) AS n FROM arxiv_papers").first<{ n: number }>();
    expect(one!.n).toBeGreaterThan(1000);
    expect(await db.prepare("SELECT count(*) AS n FROM arxiv_papers").first<number>("n")).toBe(one!.n);
    const results = await db.batch([db.prepare("SELECT 1 AS a"), db.prepare("SELECT id FROM arxiv_papers LIMIT 3")]);
    expect(results[1]!.results).toHaveLength(3);
    expect(meter.statements).toBe(4);
    expect(meter.rows_read).toBeGreaterThanOrEqual(3);
  });

  it("counts round trips: a batch is one call, calls in parallel share one round, awaited calls each start one", async () => {
    await seedMirror();
    const meter = emptyMeter();
    const db = meteredDatabase(env.DB, meter);
    await db.batch([db.prepare("SELECT 1"), db.prepare("SELECT 2"), db.prepare("SELECT 3")]);
    expect(meter).toMatchObject({ statements: 3, calls: 1, sequential: 1 });
    await Promise.all([db.prepare("SELECT 1").all(), db.prepare("SELECT 2").first(), db.prepare("SELECT 3").run()]);
    expect(meter).toMatchObject({ calls: 4, sequential: 2 });
    await db.prepare("SELECT 1").all();
    await db.withSession("first-unconstrained").prepare("SELECT 2").all();
    expect(meter).toMatchObject({ calls: 6, sequential: 4, in_flight: 0 });
    // raw() (drizzle's reads) is a call too.
    await db.prepare("SELECT 1").raw();
    expect(meter).toMatchObject({ calls: 7, sequential: 5 });
    // A failed call still ends its round.
    await expect(db.prepare("SELECT * FROM no_such_table").all()).rejects.toThrow();
    expect(meter).toMatchObject({ calls: 8, sequential: 6, in_flight: 0 });
    // A memo keyed by the database finds the database behind a metered one.
    expect(unmetered(db)).toBe(env.DB);
    expect(unmetered(meteredDatabase(db, emptyMeter()))).toBe(env.DB);
  });

  it("a mirror lookup through the tool logs its D1 round trips", async () => {
    await seedMirror();
    const { lines } = capturedLogLines();
    await callToolWith("arxiv_get_metadata", { paper_ids: ["0704.0001", "0704.0002"] }, { LOG_TOOL_CALLS: "true" });
    const call = () => lines.map((line) => JSON.parse(line)).find((line) => line.event === "tool_call");
    await vi.waitFor(() => expect(call()).toBeDefined());
    expect(call()).toMatchObject({ tool: "arxiv_get_metadata", outcome: "ok" });
    expect(call().d1_calls).toBeGreaterThanOrEqual(1);
    expect(call().d1_sequential).toBeGreaterThanOrEqual(1);
    expect(call().d1_sequential).toBeLessThanOrEqual(call().d1_calls);
  });

  it("a search reads the mirror's state in the same round as its first statements", async () => {
    await seedMirror();
    forgetMirrorState(env.DB);
    const { lines } = capturedLogLines();
    await callToolWith("arxiv_search_papers", { query: "quantum entanglement" }, { LOG_TOOL_CALLS: "true" });
    const parsed = () => lines.map((line) => JSON.parse(line));
    await vi.waitFor(() => expect(parsed().some((line) => line.event === "tool_call")).toBe(true));
    const search = parsed().find((line) => line.event === "mirror_search");
    const call = parsed().find((line) => line.event === "tool_call");
    // The state read is a call of its own, but no round: every other call outside the search is both.
    const outside = call.d1_calls - search.calls;
    expect(outside).toBeGreaterThanOrEqual(1);
    expect(call.d1_sequential - search.sequential).toBe(outside - 1);
  });

  it("a date window's outlier check shares a round with the search it guards", async () => {
    await seedMirror();
    const planned = planMirrorSearch("quantum", { submittedFrom: "2007-01-01", submittedTo: "2007-12-31" }, new Date());
    if ("live" in planned) throw new Error(planned.live);
    const options = { sortBy: "relevance" as const, sortOrder: "descending" as const, start: 0, limit: 10 };
    const rounds = async (ignoreDateOutliers: boolean) => {
      const meter = emptyMeter();
      const answer = await searchMirror(oneDatabase(meteredDatabase(env.DB, meter)), planned.plan, {
        ...options,
        ignoreDateOutliers,
      });
      return { answer, meter };
    };
    const checked = await rounds(false);
    const unchecked = await rounds(true);
    expect(checked.answer).toEqual(unchecked.answer);
    expect(checked.answer.kind === "answer" && checked.answer.rows.length).toBeGreaterThan(0);
    expect(checked.meter.calls).toBe(unchecked.meter.calls + 1);
    expect(checked.meter.sequential).toBe(unchecked.meter.sequential);
  });

  it("guesses the mirror whole until this isolate has seen it otherwise", async () => {
    await seedPartialMirror();
    forgetMirrorState(env.DB);
    expect(mirrorLikelyReady(env.DB)).toBe(true);
    expect((await mirrorState(env.DB)).ready).toBe(false);
    expect(mirrorLikelyReady(env.DB)).toBe(false);
    await seedMirror();
    forgetMirrorState(env.DB);
    expect((await mirrorState(env.DB)).ready).toBe(true);
    expect(mirrorLikelyReady(env.DB)).toBe(true);
  });

  it("a batch is one call: its statements' SQL time adds up to the longest call", async () => {
    await seedMirror();
    const meter = emptyMeter();
    const db = meteredReader(env.DB, meter);
    const scan = "SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH 'quantum OR field OR the'";
    await db.batch([db.prepare(scan), db.prepare(scan), db.prepare(scan)]);
    expect(meter.statements).toBe(3);
    expect(meter.slowest_call_ms).toBeCloseTo(meter.sql_duration_ms, 6);
    expect(meter.slowest_call_ms).toBeGreaterThanOrEqual(meter.slowest_ms);
  });

  it("a paced reader waits after each call as long as (1 - share) / share times the call took", async () => {
    await seedMirror();
    const timers: number[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms?: number) => {
      timers.push(ms ?? 0);
      return real(fn, 0);
    }) as typeof setTimeout);
    // Date.now moves 20 ms across each call (a Worker's clock moves across I/O).
    let now = 1_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => (now += 20));
    const db = meteredReader(env.DB, emptyMeter(), { share: 0.5 });
    await db.batch([db.prepare("SELECT 1 AS a")]);
    await db.prepare("SELECT 2 AS b").first();
    expect(timers).toEqual([20, 20]);
    timers.length = 0;
    await meteredReader(env.DB, emptyMeter(), { share: 0.25 }).prepare("SELECT 3 AS c").all();
    expect(timers).toEqual([60]);
    await meteredReader(env.DB, emptyMeter()).prepare("SELECT 4 AS d").all();
    expect(timers).toEqual([60]);
  });

  it("a mirror search through the tool logs one mirror_search line with what it cost", async () => {
    await seedMirror();
    const { lines } = capturedLogLines();
    await callToolWith("arxiv_search_papers", { query: "quantum entanglement" }, { LOG_TOOL_CALLS: "true" });
    const searches = () => lines.filter((line) => line.includes('"mirror_search"')).map((line) => JSON.parse(line));
    await vi.waitFor(() => expect(searches()).toHaveLength(1));
    expect(searches()[0]).toMatchObject({
      event: "mirror_search",
      statements: expect.any(Number),
      rows_read: expect.any(Number),
      rows_written: 0,
      sql_duration_ms: expect.any(Number),
      ms: expect.any(Number),
    });
    expect(searches()[0].rows_read).toBeGreaterThan(0);
  });

  it("a tool call's lines (the mirror search's, then the call's) go out in one console write", async () => {
    await seedMirror();
    const writes: string[] = [];
    vi.spyOn(console, "log").mockImplementation((text: unknown) => void writes.push(String(text)));
    await callToolWith("arxiv_search_papers", { query: "quantum entanglement" }, { LOG_TOOL_CALLS: "true" });
    await vi.waitFor(() => expect(writes.some((text) => text.includes('"tool_call"'))).toBe(true));
    expect(writes).toHaveLength(1);
    const events = writes[0]!.split("\n").map((line) => JSON.parse(line).event);
    expect(events).toEqual(["mirror_search", "tool_call"]);
  });

  it("/status shows the database's size against D1's 10 GB limit", async () => {
    await seedMirror();
    const status = await statusJson();
    expect(status.databases).toHaveLength(1);
    expect(status.databases[0]).toMatchObject({ binding: "DB", limit_bytes: 10_000_000_000 });
    expect(status.databases[0]!.size_bytes).toBeGreaterThan(1_000_000);
    expect(status.databases[0]!.used_percent).toBeGreaterThan(0);
  });
});
