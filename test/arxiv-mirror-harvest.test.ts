// The arXiv mirror's harvest: OAI-PMH pages (recorded legacy pages and hand-made pages of real
// records, see test/fixtures/SOURCES.md), the checkpoint, and recovery from every fault the
// issue names. Each fault run must leave a mirror identical to an uninterrupted one.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { arxivHarvester, resumeStalledArxivRun, startArxivHarvest } from "../src/harvest/arxiv/run";
import { firstVerifyStep, verifySlice, verifyStep } from "../src/harvest/arxiv/verify";
import { nextWindow, planRetry } from "../src/harvest/windows";
import type { HarvestMessage } from "../src/harvest/dispatch";
import { OaiError, OaiMalformed, parseOaiPage } from "../src/harvest/oai";
import { verifyMirror } from "../src/store/arxiv-mirror-verify";
import worker from "../src/index";
import { callTool, resetUpstream, upstreamHits } from "./helpers";
import { driveHarvest, harvestEnv, mirrorSnapshot, type Fault } from "./mirror/driver";
import { appContext } from "../src/context";
import { fixtureText } from "./support/fixtures";
import { mirrorShards } from "../src/store/arxiv-shards";

/** The mirror as one database: DB alone. */
const dbOnly = () => mirrorShards(env, [{ binding: "DB", fromMonth: null }]);

// The fake upstream's fail-first routes and its request log start fresh for every test.
beforeEach(resetUpstream);

const fixture = (name: string) => fixtureText(`oai-pmh/${name}`);

describe("OAI-PMH page parser", () => {
  it("reads the recorded legacy page: arXivRaw records, versions, token with cursor and completeListSize", async () => {
    const xml = await fixture("recorded/ListRecords_arXivRaw_from-2014-10-01_page1_trimmed.xml");
    const page = parseOaiPage(xml);
    expect(page.items).toHaveLength((xml.match(/<record>/g) ?? []).length);
    expect(page.resumptionToken).toBe("726959|1001");
    expect(page.cursor).toBe(0);
    expect(page.completeListSize).toBe(58011);
    expect(page.skipped).toEqual([]);
    const first = page.items[0]!;
    expect(first.kind).toBe("record");
    if (first.kind !== "record") return;
    expect(first.record).toMatchObject({
      id: "0704.0471",
      categories: ["nucl-ex", "nucl-th"],
      journal_ref: "Phys.Rev.C76:024606,2007; Erratum-ibid.C76:039902,2007",
      datestamp: "2014-11-18",
    });
    expect(first.record.title).toContain("Density dependence of the symmetry energy");
    expect(first.record.versions).toEqual([Date.parse("Tue, 3 Apr 2007 22:04:11 GMT") / 1000]);
    const multi = page.items.find((item) => item.kind === "record" && item.record.id === "0704.0716");
    expect(multi?.kind === "record" && multi.record.versions).toHaveLength(4);
  });

  it("reads the current endpoint's shape: expirationDate on the token, an empty token on the last page, deleted headers", async () => {
    const second = parseOaiPage(await fixture("hand-made/ListRecords_page2.xml"));
    expect(second.resumptionToken).toBe("hm|3");
    expect(second.expirationDate).toBe("2026-12-01T12:00:00Z");
    expect(second.completeListSize).toBeNull();
    expect(second.items.filter((item) => item.kind === "deleted")).toEqual([
      { kind: "deleted", id: "0704.0005", datestamp: "2026-11-21" },
    ]);
    const last = parseOaiPage(await fixture("hand-made/ListRecords_page3_last.xml"));
    expect(last.resumptionToken).toBeNull();
    expect(last.items).toHaveLength(60);
  });

  it("reads the arXiv metadata format (authors in parts, created/updated dates)", async () => {
    const page = parseOaiPage(await fixture("recorded/ListRecords_arXiv_set-physics-hep-ex_from-2017-12-14.xml"));
    const first = page.items[0]!;
    expect(first.kind === "record" && first.record.authors.startsWith("Tyler Anderson, Jacob Cutter")).toBe(true);
    expect(first.kind === "record" && first.record.versions).toEqual([
      Date.parse("2017-06-16") / 1000,
      Date.parse("2017-12-12") / 1000,
    ]);
  });

  it("types OAI errors and refuses pages that are cut off, HTML, or declare entities", async () => {
    for (const [file, code] of [
      ["recorded/error_badResumptionToken.xml", "badResumptionToken"],
      ["recorded/error_noRecordsMatch.xml", "noRecordsMatch"],
      ["recorded/error_badArgument.xml", "badArgument"],
    ] as const) {
      const xml = await fixture(file);
      expect(() => parseOaiPage(xml)).toThrow(OaiError);
      try {
        parseOaiPage(xml);
      } catch (e) {
        expect((e as OaiError).code).toBe(code);
      }
    }
    expect(() => parseOaiPage("")).toThrow(OaiMalformed);
    const truncated = await fixture("hand-made/ListRecords_page2_truncated.xml");
    expect(() => parseOaiPage(truncated)).toThrow(/truncated/);
    const html = await fixture("recorded/ListRecords_http503_retry-after.html");
    expect(() => parseOaiPage(html)).toThrow(OaiMalformed);
    expect(() => parseOaiPage('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><OAI-PMH>&a;</OAI-PMH>')).toThrow(
      /DOCTYPE/,
    );
  });

  it("skips (and counts) a record whose identifier or metadata is unreadable, keeping the rest", () => {
    const page = parseOaiPage(`<?xml version="1.0"?><OAI-PMH><ListRecords>
      <record><header><identifier>oai:arXiv.org:not-an-id</identifier><datestamp>2026-01-01</datestamp></header></record>
      <record><header><identifier>oai:arXiv.org:2401.00001</identifier><datestamp>2026-01-01</datestamp></header><metadata><arXivRaw><id>2401.00001</id><title>t</title></arXivRaw></metadata></record>
      <record><header status="deleted"><identifier>oai:arXiv.org:2401.00002</identifier><datestamp>2026-01-02</datestamp></header></record>
      <resumptionToken/></ListRecords></OAI-PMH>`);
    expect(page.items).toEqual([{ kind: "deleted", id: "2401.00002", datestamp: "2026-01-02" }]);
    expect(page.skipped.map((s) => s.problem)).toEqual([
      expect.stringContaining("not an arXiv ID"),
      "no <version> elements",
    ]);
  });
});

const today = () => new Date().toISOString().slice(0, 10);
const oaiPaths = async (prefix = "/arxiv-oai?") =>
  (await upstreamHits()).filter((hit) => hit.path.startsWith(prefix)).map((hit) => hit.path);
const arxivState = () =>
  env.DB.prepare("SELECT * FROM harvest_state WHERE source = 'arxiv'").first<Record<string, any>>();

describe("harvest", { timeout: 60_000 }, () => {
  it("lists every datestamp window, writes every page (upserts, a revised record, a deletion), completes the mirror, then verifies", async () => {
    const run = await driveHarvest();
    expect(run.errors).toEqual([]);
    const state = await arxivState();
    expect(state).toMatchObject({
      status: "done",
      pages: 3,
      records: 179,
      run_records: 181,
      run_deleted: 1,
      last_datestamp: "2026-11-22",
      resumption_token: null,
      mode: "cold",
    });
    // Complete: the mirror is served as whole, and the next refresh lists from the day this run started.
    expect(state).toMatchObject({ watermark: today(), complete_scope: "all of arXiv", next_cursor: null });
    expect(state!.complete_at).not.toBeNull();
    expect(JSON.parse(state!.verified)).toMatchObject({ ok: true, integrity: "ok", fts_integrity: "ok", papers: 179 });
    // What the run cost the database, from D1's metadata (issue 34): writes, reads, the rebuild's share, the longest statement.
    expect(state!.run_rows_written).toBeGreaterThan(179);
    expect(state!.run_rows_read).toBeGreaterThan(0);
    expect(state!.run_db_ms).toBeGreaterThan(0);
    expect(state!.rank_db_ms).toBeGreaterThan(0);
    expect(state!.rank_db_ms).toBeLessThan(state!.run_db_ms);
    expect(state!.run_slowest_ms).toBeGreaterThan(0);
    expect(state!.run_slowest_ms).toBeLessThanOrEqual(state!.run_db_ms);
    const deleted = await env.DB.prepare("SELECT count(*) AS n FROM arxiv_papers WHERE id = '0704.0005'").first<{
      n: number;
    }>();
    expect(deleted!.n).toBe(0);
    const revised = await env.DB.prepare("SELECT version, categories FROM arxiv_papers WHERE id = '0704.0010'").first<{
      version: number;
      categories: string;
    }>();
    expect(JSON.parse(revised!.categories)).toContain("cs.LG");
    const junction = await env.DB.prepare(
      "SELECT category FROM arxiv_paper_categories WHERE paper_key = (SELECT paper_key FROM arxiv_papers WHERE id = '0704.0010') ORDER BY 1",
    ).all<{ category: string }>();
    expect(junction.results.map((r) => r.category)).toEqual(expect.arrayContaining(["cs.LG", "cs.*"]));
    // Windows: contiguous, each listed with from/until, the first from the start, the last open-ended.
    const windows = (
      await env.DB.prepare(
        "SELECT idx, from_date, until_date, status, pages FROM arxiv_harvest_windows WHERE run_id = ? ORDER BY idx",
      )
        .bind(state!.run_id)
        .all<any>()
    ).results;
    expect(windows.length).toBeGreaterThan(5);
    expect(windows.every((w) => w.status === "done")).toBe(true);
    expect(windows[0]).toMatchObject({ from_date: null, until_date: "2007-05-31" });
    expect(windows.at(-1)).toMatchObject({ until_date: null, pages: 3 });
    for (let k = 1; k < windows.length; k++) {
      expect(Date.parse(windows[k].from_date) - Date.parse(windows[k - 1].until_date)).toBe(86_400_000);
    }
    const paths = await oaiPaths();
    expect(paths).toHaveLength(windows.length + 2);
    expect(paths[0]).toBe("/arxiv-oai?verb=ListRecords&metadataPrefix=arXivRaw&until=2007-05-31");
    expect(paths.slice(-3)).toEqual([
      `/arxiv-oai?verb=ListRecords&metadataPrefix=arXivRaw&from=${windows.at(-1).from_date}`,
      "/arxiv-oai?verb=ListRecords&resumptionToken=hm%7C2",
      "/arxiv-oai?verb=ListRecords&resumptionToken=hm%7C3",
    ]);
  });

  it("a refresh lists from the watermark (the day the last completed run started), and changes nothing it already holds", async () => {
    await driveHarvest();
    const before = await mirrorSnapshot();
    await resetUpstream();
    await driveHarvest({ mode: "refresh" });
    expect(await oaiPaths()).toEqual([`/arxiv-oai?verb=ListRecords&metadataPrefix=arXivRaw&from=${today()}`]);
    expect(await mirrorSnapshot()).toEqual(before);
  });

  it("reads the legacy endpoint's shape to the end (recorded page 1, then an empty token with attributes)", async () => {
    const run = await driveHarvest({ variant: "/legacy" });
    expect(run.errors).toEqual([]);
    const state = await env.DB.prepare(
      "SELECT status, pages, records, complete_list_size FROM harvest_state WHERE source = 'arxiv'",
    ).first();
    expect(state).toEqual({ status: "done", pages: 2, records: 12, complete_list_size: 1006 });
  });

  it("ends cleanly on noRecordsMatch (an empty window, a quiet day)", async () => {
    const run = await driveHarvest({ variant: "/quiet" });
    expect(run.errors).toEqual([]);
    const state = await env.DB.prepare(
      "SELECT status, records, last_error FROM harvest_state WHERE source = 'arxiv'",
    ).first();
    expect(state).toEqual({ status: "done", records: 0, last_error: null });
  });

  it("stops with status error on an OAI error that repeating cannot fix (badArgument), keeping its checkpoint", async () => {
    const run = await driveHarvest({ variant: "/bad" });
    expect(run.errors).toEqual([]);
    const state = await arxivState();
    expect(state!.status).toBe("error");
    expect(state!.last_error).toContain("badArgument");
    expect(JSON.parse(state!.next_cursor)).toMatchObject({ kind: "list", step: 1, window: { idx: 0 } });
  });

  it("ignores a message from a run that was replaced, and one it cannot read", async () => {
    await driveHarvest();
    const before = await arxivState();
    const queue: any[] = [];
    const testEnv = harvestEnv("", queue, {});
    const cursor = {
      kind: "list",
      step: 1,
      window: { idx: 0, from: null, until: "2007-05-31" },
      token: null,
      window_pages: 0,
    };
    await arxivHarvester.onPage(
      appContext(testEnv),
      { source: "arxiv", run_id: "arxiv-old-run", cursor: JSON.stringify(cursor) },
      1,
    );
    await arxivHarvester.onPage(
      appContext(testEnv),
      { source: "arxiv", run_id: before!.run_id, cursor: '{"page":3,"token":"x"}' },
      1,
    );
    expect(queue).toEqual([]);
    expect(await arxivState()).toEqual(before);
  });
});

describe("harvest faults end in the same mirror as an uninterrupted run", { timeout: 60_000 }, () => {
  async function baseline() {
    await driveHarvest();
    const snapshot = await mirrorSnapshot();
    await env.DB.prepare("DELETE FROM arxiv_papers").run();
    await env.DB.prepare("UPDATE harvest_state SET last_datestamp = NULL, status = 'idle'").run();
    return snapshot;
  }
  const withoutState = ({ state: _state, ...rest }: Awaited<ReturnType<typeof mirrorSnapshot>>) => rest;

  it("crashes before and after a batch at pseudo-random steps, and replayed messages, verify included", async () => {
    const expected = await baseline();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const kinds: Fault["kind"][] = ["crash-before-batch", "crash-after-batch", "replay"];
    const deliveries = (await driveHarvest()).deliveries;
    await env.DB.prepare("DELETE FROM arxiv_papers").run();
    for (let round = 0; round < 6; round++) {
      const faults = new Map<number, Fault>();
      // The last deliveries are the data pages, the run's end and the verify: faults land there too.
      for (let k = 0; k < 3; k++)
        faults.set(deliveries - 6 + Math.floor(random() * 7), { kind: kinds[Math.floor(random() * 3)]! });
      const run = await driveHarvest({ faults });
      const state = await arxivState();
      expect(state, `round ${round}: ${JSON.stringify([...faults])}`).toMatchObject({
        status: "done",
        next_cursor: null,
      });
      expect(JSON.parse(state!.verified).ok).toBe(true);
      expect(withoutState(await mirrorSnapshot()), `round ${round}: ${JSON.stringify([...faults])}`).toEqual(
        withoutState(expected),
      );
      expect(run.errors).toEqual([]);
      const verify = await verifyMirror(dbOnly());
      expect(verify.ok, JSON.stringify(verify)).toBe(true);
      await env.DB.prepare("DELETE FROM arxiv_papers").run();
    }
  });

  it("a crash between the run's last batch and the verify message: the replay finishes the run", async () => {
    const expected = await baseline();
    const clean = await driveHarvest();
    await env.DB.prepare("DELETE FROM arxiv_papers").run();
    // The last end-of-run step completes the run; the verify and the ranking tables come after it.
    const endOfRun = clean.kinds.lastIndexOf("skipped") + 1;
    expect(clean.kinds.slice(endOfRun)).toEqual(expect.arrayContaining(["verify", "rank"]));
    const run = await driveHarvest({ faults: new Map([[endOfRun, { kind: "crash-after-batch" }]]) });
    // The failed delivery is sent again (after a short backoff); its replay sends the verify.
    expect(run.delayed).toHaveLength(1);
    expect(JSON.parse(run.delayed[0]!.cursor)).toMatchObject({ kind: "skipped" });
    const state = await arxivState();
    expect(state).toMatchObject({ status: "done", next_cursor: null });
    expect(JSON.parse(state!.verified).ok).toBe(true);
    expect(withoutState(await mirrorSnapshot())).toEqual(withoutState(expected));
  });

  it("503 with Retry-After: the page is sent again later, never sooner than asked, without the queue's retries", async () => {
    const expected = await baseline();
    const run = await driveHarvest({ variant: "/flaky" });
    expect(run.errors).toEqual([]);
    expect(run.delayed.length).toBeGreaterThanOrEqual(1);
    expect(run.delayed[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    const state = await arxivState();
    expect(state!.run_retries).toBeGreaterThanOrEqual(1);
    expect(withoutState(await mirrorSnapshot())).toEqual(withoutState(expected));
  }, 20_000);

  it("an expired resumption token lists the whole window again from its start (never from the last datestamp seen)", async () => {
    const expected = await baseline();
    const run = await driveHarvest({ variant: "/expired" });
    expect(run.errors).toEqual([]);
    const paths = await oaiPaths("/arxiv-oai/expired?");
    const windowStart = paths.filter((path) => path.includes("from=") && !path.includes("until="));
    expect(windowStart).toHaveLength(2);
    expect(windowStart[0]).toBe(windowStart[1]);
    expect(paths.some((path) => path.includes("from=2026-11-2"))).toBe(false);
    const state = await arxivState();
    expect(state).toMatchObject({ status: "done", run_restarts: 1 });
    expect(state!.last_error).toContain("listed again from its start");
    expect(withoutState(await mirrorSnapshot())).toEqual(withoutState(expected));
  });

  it("a truncated page is refused, never written, and fetched again", async () => {
    const expected = await baseline();
    const run = await driveHarvest({ variant: "/truncated" });
    expect(run.delayed).toHaveLength(1);
    expect((await arxivState())!.run_retries).toBe(1);
    expect(withoutState(await mirrorSnapshot())).toEqual(withoutState(expected));
  });
});

describe("retry schedule", () => {
  const settings = { baseMs: 10_000, maxMs: 1_800_000, budgetMs: 12 * 3_600_000 };
  it("backs off exponentially with jitter, capped, never sooner than Retry-After, and gives up after the budget", () => {
    const t0 = 1_000_000;
    const at = (attempt: number, random: number, retryAfterMs?: number) =>
      planRetry({ attempt, failingSinceMs: t0, retryAfterMs, gateRefusal: false }, settings, t0 + 1000, () => random);
    expect(at(1, 0)).toEqual({ kind: "retry", delayMs: 5_000, attempt: 2 });
    expect(at(1, 1)).toEqual({ kind: "retry", delayMs: 10_000, attempt: 2 });
    expect(at(4, 1)).toEqual({ kind: "retry", delayMs: 80_000, attempt: 5 });
    expect(at(30, 1)).toEqual({ kind: "retry", delayMs: 1_800_000, attempt: 31 });
    expect(at(1, 0, 60_000)).toEqual({ kind: "retry", delayMs: 60_000, attempt: 2 });
    // Hours of failures before the dead-letter queue, not five quick tries.
    let attempt = 1;
    let elapsed = 0;
    while (true) {
      const plan = planRetry(
        { attempt, failingSinceMs: 0, retryAfterMs: undefined, gateRefusal: false },
        settings,
        elapsed,
        () => 0.5,
      );
      if (plan.kind === "give_up") break;
      elapsed += plan.delayMs;
      attempt = plan.attempt;
    }
    expect(elapsed).toBeGreaterThanOrEqual(settings.budgetMs);
    expect(attempt).toBeGreaterThan(20);
  });

  it("a refusal by the crawl gate's cooldown waits as long as the gate says and uses up no attempt", () => {
    const plan = planRetry(
      { attempt: 3, failingSinceMs: 0, retryAfterMs: 42_000, gateRefusal: true },
      settings,
      99 * 3_600_000,
    );
    expect(plan).toEqual({ kind: "retry", delayMs: 42_000, attempt: 3 });
  });
});

describe("datestamp windows", () => {
  it("are sized from the density just seen, grow at most fourfold, and the one reaching today stays open", () => {
    expect(nextWindow({ idx: 0, from: null, until: "2007-05-31" }, 3, 40, "2026-12-01")).toEqual({
      idx: 1,
      from: "2007-06-01",
      until: "2007-09-28",
    });
    expect(nextWindow({ idx: 3, from: "2010-01-01", until: "2010-01-30" }, 120, 40, "2026-12-01")).toEqual({
      idx: 4,
      from: "2010-01-31",
      until: "2010-02-09",
    });
    expect(nextWindow({ idx: 3, from: "2010-01-01", until: "2010-01-01" }, 900, 40, "2026-12-01")).toEqual({
      idx: 4,
      from: "2010-01-02",
      until: "2010-01-02",
    });
    expect(nextWindow({ idx: 7, from: "2026-10-01", until: "2026-10-30" }, 10, 40, "2026-12-01")).toEqual({
      idx: 8,
      from: "2026-10-31",
      until: null,
    });
    expect(nextWindow({ idx: 8, from: "2026-10-31", until: null }, 10, 40, "2026-12-01")).toBeNull();
  });
});

describe("dead-letter queue", { timeout: 60_000 }, () => {
  it("a page failing past its budget is dead-lettered; that stops its own run only, and the whole mirror keeps serving with its age shown", async () => {
    await driveHarvest();
    const run = await driveHarvest({ variant: "/broken", vars: { ARXIV_MIRROR_FAILURE_BUDGET_HOURS: "0" } });
    expect(run.deadLettered).toHaveLength(1);
    const dead = run.deadLettered[0]!;
    // A dead letter of an older run changes nothing.
    const stale = createMessageBatch("papers-mcp-harvest-dlq", [
      { id: "old", timestamp: new Date(), attempts: 1, body: { ...dead, run_id: "arxiv-2020-01-01T00:00:00.000Z" } },
    ]);
    await worker.queue(stale, env, createExecutionContext());
    expect((await arxivState())!.status).toBe("running");
    const batch = createMessageBatch("papers-mcp-harvest-dlq", [
      { id: "dead", timestamp: new Date(), attempts: 1, body: dead },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["dead"]);
    const state = await arxivState();
    expect(state!.status).toBe("error");
    expect(state!.last_error).toContain("kept failing");
    // The broken run re-read its first page before failing: 0704.0005 (deleted later in that list) is back.
    expect(state!.records).toBe(180);
    const result = await callTool("arxiv_search_papers", { query: "ti:quantum", sort_by: "relevance" });
    expect(result.structuredContent.served_from).toBe("mirror");
    expect(result.structuredContent.notices.join(" ")).toMatch(/latest harvest run failed/);
  });
});

describe("cron and watchdog", { timeout: 60_000 }, () => {
  it("an enabled, empty mirror starts its cold harvest at the first cron (unless switched off); then the cron refreshes from the watermark", async () => {
    const queue: HarvestMessage[] = [];
    await arxivHarvester.onSchedule(
      appContext(harvestEnv("", queue, {}, { vars: { ARXIV_MIRROR_AUTO_COLD: "false" } })),
      "30 2 * * *",
    );
    expect(queue).toEqual([]);
    await arxivHarvester.onSchedule(appContext(harvestEnv("", queue, {})), "30 2 * * *");
    expect(queue).toHaveLength(1);
    expect(JSON.parse(queue[0]!.cursor!)).toMatchObject({
      kind: "list",
      step: 1,
      window: { idx: 0, from: null, until: "2007-05-31" },
    });
    queue.length = 0;
    await driveHarvest();
    await arxivHarvester.onSchedule(appContext(harvestEnv("", queue, {})), "30 2 * * *");
    expect(queue).toHaveLength(1);
    expect(JSON.parse(queue[0]!.cursor!)).toMatchObject({
      kind: "list",
      step: 1,
      window: { idx: 0, from: today(), until: null },
    });
  });

  it("a run whose queue message was lost is resumed from its checkpoint by the watchdog within the stall time, and ends identical", async () => {
    const expected = await (async () => {
      await driveHarvest();
      const snapshot = await mirrorSnapshot();
      await env.DB.prepare("DELETE FROM arxiv_papers").run();
      return snapshot;
    })();
    const queue: HarvestMessage[] = [];
    const testEnv = harvestEnv("", queue, {});
    await startArxivHarvest(appContext(testEnv), "cold");
    // Deliver until the data window's second page is queued, then lose that message.
    while (!(queue[0]?.cursor ?? "").includes("hm|2"))
      await arxivHarvester.onPage(appContext(testEnv), queue.shift()!, 1);
    queue.length = 0;
    const now = Date.now();
    expect(await resumeStalledArxivRun(appContext(testEnv), now)).toBe("moving");
    expect(queue).toEqual([]);
    expect(await resumeStalledArxivRun(appContext(testEnv), now + 301_000)).toBe("resumed");
    expect(queue).toHaveLength(1);
    expect(JSON.parse(queue[0]!.cursor!)).toMatchObject({ kind: "list", token: "hm|2" });
    // The watchdog cron finds it too (it is the same check), and the daily cron never starts a second run over it.
    while (queue.length > 0) await arxivHarvester.onPage(appContext(testEnv), queue.shift()!, 1);
    const state = await arxivState();
    expect(state).toMatchObject({ status: "done", run_resumes: 1, next_cursor: null });
    expect(JSON.parse(state!.verified).ok).toBe(true);
    const { state: _a, ...rest } = await mirrorSnapshot();
    const { state: _b, ...expectedRest } = expected;
    expect(rest).toEqual(expectedRest);
  });

  it("the daily cron resumes a failed first harvest at the start of the window it was in", async () => {
    const queue: HarvestMessage[] = [];
    const testEnv = harvestEnv("", queue, {});
    await startArxivHarvest(appContext(testEnv), "cold");
    while (!(queue[0]?.cursor ?? "").includes("hm|3"))
      await arxivHarvester.onPage(appContext(testEnv), queue.shift()!, 1);
    const runId = queue[0]!.run_id;
    const { markArxivRunFailed } = await import("../src/store/harvest-state");
    await markArxivRunFailed(env.DB, runId, "page kept failing");
    queue.length = 0;
    await arxivHarvester.onSchedule(appContext(testEnv), "30 2 * * *");
    expect(queue).toHaveLength(1);
    expect(queue[0]!.run_id).toBe(runId);
    expect(JSON.parse(queue[0]!.cursor!)).toMatchObject({ kind: "list", token: null, window: { until: null } });
    while (queue.length > 0) await arxivHarvester.onPage(appContext(testEnv), queue.shift()!, 1);
    expect(await arxivState()).toMatchObject({ status: "done", records: 179, run_resumes: 1 });
  });

  it("housekeeping that fails does not cancel the day's harvest", async () => {
    const queue: HarvestMessage[] = [];
    const testEnv = harvestEnv("", queue, {});
    const broken = new Proxy(testEnv.DB, {
      get(target, property, receiver) {
        if (property === "prepare") {
          return (sql: string) => {
            if (sql.includes("api_cache")) throw new Error("D1 is busy");
            return target.prepare(sql);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const { runScheduled } = await import("../src/harvest/dispatch");
    await runScheduled(
      { cron: "30 2 * * *", scheduledTime: Date.now(), noRetry() {} } as ScheduledController,
      appContext({ ...testEnv, DB: broken } as Env),
    );
    expect(queue.filter((message) => message.source === "arxiv")).toHaveLength(1);
  });
});

describe("verify", { timeout: 60_000 }, () => {
  it("finds an FTS index out of step with the papers, and category rows out of step with them", async () => {
    await driveHarvest();
    expect((await verifyMirror(dbOnly())).ok).toBe(true);
    // A category row deleted behind the triggers' back, and an orphan one added.
    await env.DB.prepare(
      "DELETE FROM arxiv_paper_categories WHERE category = 'hep-ph' AND paper_key = (SELECT paper_key FROM arxiv_papers WHERE id = '0704.0001')",
    ).run();
    await env.DB.prepare("INSERT INTO arxiv_paper_categories (category, paper_key) VALUES ('cs.AI', 1)").run();
    const broken = await verifyMirror(dbOnly());
    expect(broken).toMatchObject({ ok: false, papers_without_primary_category_row: 1, orphan_category_rows: 1 });
    // An index entry for a paper that is not in the table.
    await env.DB.prepare(
      "INSERT INTO arxiv_papers_fts (rowid, title, authors, abstract, comment, journal_ref) VALUES (42, 'ghost', 'nobody', 'nothing', '', '')",
    ).run();
    expect((await verifyMirror(dbOnly())).fts_integrity).not.toBe("ok");
  });
});

describe("verify on a large mirror", { timeout: 60_000 }, () => {
  it("checks papers, then each category's rows, one slice per step (no statement reads a whole table), and catches what is out of step", async () => {
    await driveHarvest();
    const sliced = async () => {
      const queue: HarvestMessage[] = [];
      const testEnv = harvestEnv("", queue, {});
      const state = (await arxivState())!;
      const first = {
        kind: "verify" as const,
        step: state.step + 1,
        phase: "papers" as const,
        after: -1,
        category: null,
        counts: { papers: 0, missing: 0, fts_missing: 0, fts_orphans: 0, orphans: 0, category_rows: 0 },
      };
      await verifyStep(appContext(testEnv), state.run_id, first, 50);
      let messages = 1;
      // The verify's steps (the ranking tables' rebuild follows them).
      while (queue.length > 0 && (JSON.parse(queue[0]!.cursor!) as { kind: string }).kind === "verify") {
        const next = queue.shift()!;
        messages++;
        await verifyStep(appContext(testEnv), next.run_id, JSON.parse(next.cursor!), 50);
      }
      return { messages, verified: JSON.parse((await arxivState())!.verified) };
    };
    const clean = await sliced();
    const categories = (await env.DB.prepare(
      "SELECT count(DISTINCT category) AS n, count(*) AS rows FROM arxiv_paper_categories",
    ).first<{ n: number; rows: number }>())!;
    // 179 papers in slices of 50 (4), each category in slices of 50 (at least one each), the totals.
    expect(clean.messages).toBeGreaterThanOrEqual(4 + categories.n + 1);
    expect(clean.verified).toMatchObject({
      ok: true,
      papers: 179,
      category_rows: categories.rows,
      fts_integrity: "ok (index structure)",
      papers_without_primary_category_row: 0,
      orphan_category_rows: 0,
    });
    await env.DB.prepare(
      "DELETE FROM arxiv_paper_categories WHERE category = 'hep-ph' AND paper_key = (SELECT paper_key FROM arxiv_papers WHERE id = '0704.0001')",
    ).run();
    await env.DB.prepare("INSERT INTO arxiv_paper_categories (category, paper_key) VALUES ('cs.AI', 1)").run();
    await env.DB.prepare(
      "INSERT INTO arxiv_papers_fts (rowid, title, authors, abstract, comment, journal_ref) VALUES (42, 'ghost', 'nobody', 'nothing', '', '')",
    ).run();
    expect((await sliced()).verified).toMatchObject({
      ok: false,
      papers_without_primary_category_row: 1,
      orphan_category_rows: 1,
      fts_integrity: expect.stringContaining("1 FTS entr"),
    });
  });
});

describe("verify slices sized by the mirror", () => {
  it("take 50,000 rows a step up to a million papers a database and fewer past it, set at the first step and carried to the last", async () => {
    expect(verifySlice(150_000)).toBe(50_000);
    expect(verifySlice(1_000_000)).toBe(50_000);
    expect(verifySlice(3_200_000)).toBe(15_625);
    expect(verifySlice(10_000_000_000)).toBe(1_000);
    await driveHarvest();
    // The state says the mirror holds 3.2 million papers: too many to check at once, a slice a step.
    await env.DB.prepare("UPDATE harvest_state SET records = 3200000, shard_records = 0 WHERE source = 'arxiv'").run();
    const queue: HarvestMessage[] = [];
    const testEnv = harvestEnv("", queue, {});
    const state = (await env.DB.prepare("SELECT run_id, step FROM harvest_state WHERE source = 'arxiv'").first<{
      run_id: string;
      step: number;
    }>())!;
    await verifyStep(appContext(testEnv), state.run_id, firstVerifyStep(state.step + 1));
    const cursors: { kind: string; phase?: string; slice?: number }[] = [];
    while (queue.length > 0 && (JSON.parse(queue[0]!.cursor!) as { kind: string }).kind === "verify") {
      const cursor = JSON.parse(queue.shift()!.cursor!);
      cursors.push(cursor);
      await verifyStep(appContext(testEnv), state.run_id, cursor);
    }
    expect(cursors.map((c) => c.phase)).toContain("categories");
    expect(cursors.at(-1)?.phase).toBe("totals");
    expect(cursors.every((c) => c.slice === 15_625)).toBe(true);
  });
});

describe("paper keys", () => {
  it("order papers by submission; papers dated more than 31 days from their ID's month are listed as date outliers", async () => {
    const { paperKey, monthStartKey, monthEndKey } = await import("../src/store/arxiv-key");
    expect(paperKey("hep-th/0703999")).toBeLessThan(paperKey("0704.0001"));
    expect(paperKey("0704.9999")).toBeLessThan(paperKey("0705.0001"));
    expect(paperKey("1412.9999")).toBeLessThan(paperKey("1501.00001"));
    expect(paperKey("acc-phys/9411001")).toBeLessThan(paperKey("hep-th/9411001"));
    expect(paperKey("2401.00001")).toBeLessThan(paperKey("2401.12345"));
    const { sampleRecords, seedMirror } = await import("./mirror/driver");
    const records = sampleRecords();
    expect(new Set(records.map((r) => paperKey(r.id))).size).toBe(records.length);
    const margin = 31 * 86_400_000;
    let outsideItsMonth = 0;
    const farOff: string[] = [];
    for (const record of records) {
      const v1 = record.versions[0]! * 1000;
      const key = paperKey(record.id);
      if (!(key >= monthStartKey(new Date(v1)) && key <= monthEndKey(new Date(v1)))) outsideItsMonth++;
      if (!(key >= monthStartKey(new Date(v1 - margin)) && key <= monthEndKey(new Date(v1 + margin))))
        farOff.push(record.id);
    }
    // Real records: 54 are dated outside their ID's month (0704 IDs dated 31 March, ...), a few far off.
    expect(outsideItsMonth).toBe(54);
    expect(farOff).toContain("1501.00001");
    expect(farOff.length).toBeLessThan(10);
    await seedMirror(records);
    const listed = await env.DB.prepare(
      "SELECT p.id FROM arxiv_date_outliers o JOIN arxiv_papers p USING (paper_key) ORDER BY p.id",
    ).all<{ id: string }>();
    expect(listed.results.map((r) => r.id)).toEqual([...farOff].sort());
  });
});
