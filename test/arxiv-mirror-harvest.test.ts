// The arXiv mirror's harvest: OAI-PMH pages (recorded legacy pages and hand-made pages of real
// records, see test/fixtures/SOURCES.md), the checkpoint, and recovery from every fault the
// issue names. Each fault run must leave a mirror identical to an uninterrupted one.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { arxivHarvester } from "../src/harvest/arxiv";
import type { HarvestMessage } from "../src/harvest/dispatch";
import { OaiError, OaiMalformed, parseOaiPage } from "../src/harvest/oai";
import { ToolError } from "../src/errors";
import { verifyMirror } from "../src/store/arxiv-mirror";
import worker from "../src/index";
import { callTool, FAKE, resetUpstream, upstreamHits } from "./helpers";
import { driveHarvest, harvestEnv, mirrorSnapshot, type Fault } from "./mirror/driver";

// The fake upstream's fail-first routes and its request log start fresh for every test.
beforeEach(resetUpstream);

const fixture = async (name: string) => (await fetch(`${FAKE}/_fixtures/oai-pmh/${name}`)).text();

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
    expect(second.items.filter((item) => item.kind === "deleted")).toEqual([{ kind: "deleted", id: "0704.0005", datestamp: "2026-11-21" }]);
    const last = parseOaiPage(await fixture("hand-made/ListRecords_page3_last.xml"));
    expect(last.resumptionToken).toBeNull();
    expect(last.items).toHaveLength(60);
  });

  it("reads the arXiv metadata format (authors in parts, created/updated dates)", async () => {
    const page = parseOaiPage(await fixture("recorded/ListRecords_arXiv_set-physics-hep-ex_from-2017-12-14.xml"));
    const first = page.items[0]!;
    expect(first.kind === "record" && first.record.authors.startsWith("Tyler Anderson, Jacob Cutter")).toBe(true);
    expect(first.kind === "record" && first.record.versions).toEqual([Date.parse("2017-06-16") / 1000, Date.parse("2017-12-12") / 1000]);
  });

  it("types OAI errors and refuses pages that are cut off, HTML, or declare entities", async () => {
    for (const [file, code] of [["recorded/error_badResumptionToken.xml", "badResumptionToken"], ["recorded/error_noRecordsMatch.xml", "noRecordsMatch"], ["recorded/error_badArgument.xml", "badArgument"]] as const) {
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
    expect(() => parseOaiPage('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><OAI-PMH>&a;</OAI-PMH>')).toThrow(/DOCTYPE/);
  });

  it("skips (and counts) a record whose identifier or metadata is unreadable, keeping the rest", () => {
    const page = parseOaiPage(`<?xml version="1.0"?><OAI-PMH><ListRecords>
      <record><header><identifier>oai:arXiv.org:not-an-id</identifier><datestamp>2026-01-01</datestamp></header></record>
      <record><header><identifier>oai:arXiv.org:2401.00001</identifier><datestamp>2026-01-01</datestamp></header><metadata><arXivRaw><id>2401.00001</id><title>t</title></arXivRaw></metadata></record>
      <record><header status="deleted"><identifier>oai:arXiv.org:2401.00002</identifier><datestamp>2026-01-02</datestamp></header></record>
      <resumptionToken/></ListRecords></OAI-PMH>`);
    expect(page.items).toEqual([{ kind: "deleted", id: "2401.00002", datestamp: "2026-01-02" }]);
    expect(page.skipped.map((s) => s.problem)).toEqual([expect.stringContaining("not an arXiv ID"), "no <version> elements"]);
  });
});

describe("harvest", () => {
  it("harvests every page into the mirror: upserts, a revised record, a deletion, the checkpoint, then verifies", async () => {
    const run = await driveHarvest();
    expect(run.errors).toEqual([]);
    const state = await env.DB.prepare("SELECT * FROM harvest_state WHERE source = 'arxiv'").first<Record<string, any>>();
    expect(state).toMatchObject({ status: "done", pages: 3, records: 179, run_records: 181, run_deleted: 1, last_datestamp: "2026-11-22", resumption_token: null, mode: "cold" });
    expect(JSON.parse(state!.verified)).toMatchObject({ ok: true, integrity: "ok", fts_integrity: "ok", papers: 179 });
    const deleted = await env.DB.prepare("SELECT count(*) AS n FROM arxiv_papers WHERE id = '0704.0005'").first<{ n: number }>();
    expect(deleted!.n).toBe(0);
    const revised = await env.DB.prepare("SELECT version, categories FROM arxiv_papers WHERE id = '0704.0010'").first<{ version: number; categories: string }>();
    expect(JSON.parse(revised!.categories)).toContain("cs.LG");
    const junction = await env.DB.prepare("SELECT category FROM arxiv_paper_categories WHERE paper_key = (SELECT paper_key FROM arxiv_papers WHERE id = '0704.0010') ORDER BY 1").all<{ category: string }>();
    expect(junction.results.map((r) => r.category)).toEqual(expect.arrayContaining(["cs.LG", "cs.*"]));
    const requests = (await upstreamHits()).filter((hit) => hit.path.startsWith("/arxiv-oai"));
    expect(requests.map((hit) => hit.path)).toEqual([
      "/arxiv-oai?verb=ListRecords&metadataPrefix=arXivRaw",
      "/arxiv-oai?verb=ListRecords&resumptionToken=hm%7C2",
      "/arxiv-oai?verb=ListRecords&resumptionToken=hm%7C3",
    ]);
  });

  it("a refresh lists from the last datestamp, re-reading that day, and changes nothing it already holds", async () => {
    await driveHarvest();
    const before = await mirrorSnapshot();
    await driveHarvest({ mode: "refresh" });
    const hits = (await upstreamHits()).filter((hit) => hit.path.startsWith("/arxiv-oai?") && hit.path.includes("from="));
    expect(hits.map((hit) => hit.path)).toEqual(["/arxiv-oai?verb=ListRecords&metadataPrefix=arXivRaw&from=2026-11-22"]);
    expect(await mirrorSnapshot()).toEqual(before);
  });

  it("reads the legacy endpoint's shape to the end (recorded page 1, then an empty token with attributes)", async () => {
    const run = await driveHarvest({ variant: "/legacy" });
    expect(run.errors).toEqual([]);
    const state = await env.DB.prepare("SELECT status, pages, records, complete_list_size FROM harvest_state WHERE source = 'arxiv'").first();
    expect(state).toEqual({ status: "done", pages: 2, records: 12, complete_list_size: 1006 });
  });

  it("ends cleanly on noRecordsMatch (a quiet day)", async () => {
    const run = await driveHarvest({ variant: "/quiet" });
    expect(run.errors).toEqual([]);
    const state = await env.DB.prepare("SELECT status, records, last_error FROM harvest_state WHERE source = 'arxiv'").first();
    expect(state).toEqual({ status: "done", records: 0, last_error: null });
  });

  it("stops with status error on an OAI error that repeating cannot fix (badArgument)", async () => {
    const run = await driveHarvest({ variant: "/bad" });
    expect(run.errors).toEqual([]);
    const state = await env.DB.prepare("SELECT status, last_error FROM harvest_state WHERE source = 'arxiv'").first<{ status: string; last_error: string }>();
    expect(state!.status).toBe("error");
    expect(state!.last_error).toContain("badArgument");
  });

  it("ignores a message from a run that was replaced", async () => {
    await driveHarvest();
    const queue: any[] = [];
    const testEnv = harvestEnv("", queue, {});
    await arxivHarvester.onPage(testEnv, { source: "arxiv", run_id: "arxiv-old-run", cursor: JSON.stringify({ page: 1, token: null, from: null }) }, 1);
    expect(queue).toEqual([]);
  });
});

describe("harvest faults end in the same mirror as an uninterrupted run", () => {
  async function baseline() {
    await driveHarvest();
    const snapshot = await mirrorSnapshot();
    await env.DB.prepare("DELETE FROM arxiv_papers").run();
    await env.DB.prepare("UPDATE harvest_state SET last_datestamp = NULL, status = 'idle'").run();
    return snapshot;
  }

  it("crashes before and after the batch at pseudo-random pages, and replayed messages", async () => {
    const expected = await baseline();
    // Deliveries: 3 pages + the verify message; a crash adds one delivery.
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const kinds: Fault["kind"][] = ["crash-before-batch", "crash-after-batch", "replay"];
    for (let round = 0; round < 6; round++) {
      const faults = new Map<number, Fault>();
      for (let k = 0; k < 2; k++) faults.set(1 + Math.floor(random() * 4), { kind: kinds[Math.floor(random() * 3)]! });
      const run = await driveHarvest({ faults });
      expect(run.errors.every((e) => String(e.error).includes("crash"))).toBe(true);
      const { state: _state, ...rest } = await mirrorSnapshot();
      const { state: _expectedState, ...expectedRest } = expected;
      expect(rest, `round ${round}: ${JSON.stringify([...faults])}`).toEqual(expectedRest);
      const verify = await verifyMirror(env.DB);
      expect(verify.ok, JSON.stringify(verify)).toBe(true);
      await env.DB.prepare("DELETE FROM arxiv_papers").run();
    }
  });

  it("503 with Retry-After: the page is retried with the delay the upstream asked for", async () => {
    const expected = await baseline();
    const run = await driveHarvest({ variant: "/flaky" });
    // The 503 itself, then (maybe) the gate's own cooldown refusing the first retry.
    expect(run.errors.length).toBeGreaterThanOrEqual(1);
    const error = run.errors[0]!.error as ToolError;
    expect(error).toBeInstanceOf(ToolError);
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(await mirrorSnapshot()).toEqual(expected);
  }, 20_000);

  it("an expired resumption token restarts the list from the last datestamp", async () => {
    const expected = await baseline();
    const run = await driveHarvest({ variant: "/expired" });
    expect(run.errors).toEqual([]);
    const paths = (await upstreamHits()).filter((hit) => hit.path.startsWith("/arxiv-oai/expired")).map((hit) => hit.path);
    expect(paths).toContain("/arxiv-oai/expired?verb=ListRecords&metadataPrefix=arXivRaw&from=2026-11-20");
    const { state, ...rest } = await mirrorSnapshot();
    const { state: expectedState, ...expectedRest } = expected;
    expect(rest).toEqual(expectedRest);
    expect(state).toEqual(expectedState);
  });

  it("a truncated page is refused and fetched again", async () => {
    const expected = await baseline();
    const run = await driveHarvest({ variant: "/truncated" });
    expect(run.errors).toHaveLength(1);
    expect(String(run.errors[0]!.error)).toMatch(/truncated/);
    expect(await mirrorSnapshot()).toEqual(expected);
  });
});

describe("dead-letter queue", () => {
  it("a page that keeps failing stops the run with status error and its reason; the mirror keeps serving", async () => {
    const queue: any[] = [];
    const testEnv = harvestEnv("/broken", queue, {});
    const { startArxivHarvest } = await import("../src/harvest/arxiv");
    await startArxivHarvest(testEnv, "cold");
    await arxivHarvester.onPage(testEnv, queue.shift(), 1); // page 1 is fine
    const page2 = queue.shift();
    await expect(arxivHarvester.onPage(testEnv, page2, 1)).rejects.toThrow(/503/);
    // After max_retries the queue moves the message to the DLQ, whose consumer marks the run.
    const batch = createMessageBatch("papers-mcp-harvest-dlq", [{ id: "dead", timestamp: new Date(), attempts: 6, body: page2 }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["dead"]);
    const state = await env.DB.prepare("SELECT status, last_error, records FROM harvest_state WHERE source = 'arxiv'").first<{ status: string; last_error: string; records: number }>();
    expect(state!.status).toBe("error");
    expect(state!.last_error).toContain("kept failing after 6 attempts");
    expect(state!.records).toBe(60);
    const result = await callTool("arxiv_search_papers", { query: "ti:quantum", sort_by: "relevance" });
    expect(result.structuredContent.served_from).toBe("mirror");
  });
});

describe("cron", () => {
  it("does not start a cold harvest by itself; refreshes once one has run", async () => {
    const queue: any[] = [];
    const testEnv = harvestEnv("", queue, {});
    await arxivHarvester.onSchedule(testEnv, "30 2 * * *");
    expect(queue).toEqual([]);
    await driveHarvest();
    await arxivHarvester.onSchedule(testEnv, "30 2 * * *");
    expect(queue).toHaveLength(1);
    expect(JSON.parse(queue[0].cursor)).toEqual({ page: 1, token: null, from: "2026-11-22" });
  });
});

describe("verify", () => {
  it("finds an FTS index out of step with the papers, and category rows out of step with them", async () => {
    await driveHarvest();
    expect((await verifyMirror(env.DB)).ok).toBe(true);
    // A category row deleted behind the triggers' back, and an orphan one added.
    await env.DB.prepare("DELETE FROM arxiv_paper_categories WHERE category = 'hep-ph' AND paper_key = (SELECT paper_key FROM arxiv_papers WHERE id = '0704.0001')").run();
    await env.DB.prepare("INSERT INTO arxiv_paper_categories (category, paper_key) VALUES ('cs.AI', 1)").run();
    const broken = await verifyMirror(env.DB);
    expect(broken).toMatchObject({ ok: false, papers_without_primary_category_row: 1, orphan_category_rows: 1 });
    // An index entry for a paper that is not in the table.
    await env.DB.prepare("INSERT INTO arxiv_papers_fts (rowid, title, authors, abstract, comment, journal_ref) VALUES (42, 'ghost', 'nobody', 'nothing', '', '')").run();
    expect((await verifyMirror(env.DB)).fts_integrity).not.toBe("ok");
  });
});

describe("verify on a large mirror", () => {
  it("checks one slice of keys per queue message, then the totals, and catches a missing category row", async () => {
    await driveHarvest();
    const { runArxivVerify } = await import("../src/harvest/arxiv");
    const sliced = async () => {
      const queue: HarvestMessage[] = [];
      const testEnv = harvestEnv("", queue, {});
      const runId = (await env.DB.prepare("SELECT run_id FROM harvest_state WHERE source = 'arxiv'").first<{ run_id: string }>())!.run_id;
      await runArxivVerify(testEnv, runId, { page: 1, token: null, from: null, verify: true, slice: { after: 0, papers: 0, missing: 0 } }, 50);
      let messages = 0;
      while (queue.length > 0) {
        const next = queue.shift()!;
        messages++;
        await runArxivVerify(testEnv, next.run_id, JSON.parse(next.cursor!), 50);
      }
      const state = await env.DB.prepare("SELECT verified FROM harvest_state WHERE source = 'arxiv'").first<{ verified: string }>();
      return { messages, verified: JSON.parse(state!.verified) };
    };
    const clean = await sliced();
    expect(clean.messages).toBe(4); // 179 papers in slices of 50
    expect(clean.verified).toMatchObject({ ok: true, papers: 179, fts_integrity: "ok (index structure)", papers_without_primary_category_row: 0, orphan_category_rows: 0 });
    await env.DB.prepare("DELETE FROM arxiv_paper_categories WHERE category = 'hep-ph' AND paper_key = (SELECT paper_key FROM arxiv_papers WHERE id = '0704.0001')").run();
    expect((await sliced()).verified).toMatchObject({ ok: false, papers_without_primary_category_row: 1 });
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
      if (!(key >= monthStartKey(new Date(v1 - margin)) && key <= monthEndKey(new Date(v1 + margin)))) farOff.push(record.id);
    }
    // Real records: 54 are dated outside their ID's month (0704 IDs dated 31 March, ...), a few far off.
    expect(outsideItsMonth).toBe(54);
    expect(farOff).toContain("1501.00001");
    expect(farOff.length).toBeLessThan(10);
    await seedMirror(records);
    const listed = await env.DB.prepare("SELECT p.id FROM arxiv_date_outliers o JOIN arxiv_papers p USING (paper_key) ORDER BY p.id").all<{ id: string }>();
    expect(listed.results.map((r) => r.id)).toEqual([...farOff].sort());
  });
});
