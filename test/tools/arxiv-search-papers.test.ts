// arxiv_search_papers: arXiv's grammar and filters on the live API (recorded responses), the answers the mirror
// gives (seeded with the real records of data/arxiv-sample, checked against a brute-force count), the routing
// between them, and a misbehaving arXiv API.

import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { FAKE, callTool, callToolWith, resetUpstream, toolError, upstreamHits } from "../helpers";
import { planMirrorSearch } from "../../src/sources/arxiv/mirror-query";
import { searchMirror } from "../../src/store/arxiv-mirror-search";
import { oneDatabase } from "../../src/store/arxiv-shards";
import type { MirrorRecord } from "../../src/store/arxiv-row";
import { sampleRecords, seedMirror, seedPartialMirror } from "../mirror/driver";
import { estimateTokens } from "../../src/sources/text/tokens";

beforeEach(resetUpstream);

const records = sampleRecords();

const tokens = (text: string | null): string[] =>
  (text ?? "")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];
// The index stems words (porter): these are the inflections of the words the tests search for.

const FAMILIES: Record<string, RegExp> = {
  quantum: /^quantum$/,
  field: /^fields?$/,
  gauge: /^gaug(e|es|ed|ing)$/,
  string: /^strings?$/,
  lattice: /^lattices?$/,
  boson: /^bosons?$/,
};

const hasWord = (text: string | null, word: string) => tokens(text).some((token) => FAMILIES[word]!.test(token));

const published = (r: MirrorRecord) => r.versions[0]!;

const day = (text: string, end = false) => Date.parse(`${text}T${end ? "23:59:59" : "00:00:00"}Z`) / 1000;

const inArchive = (r: MirrorRecord, archive: string) =>
  r.categories.some((c) => c === archive || c.startsWith(`${archive}.`));

async function search(args: Record<string, unknown>) {
  const result = await callTool("arxiv_search_papers", { max_results: 50, ...args });
  if (result.isError) throw new Error(result.content[0]!.text);
  return result.structuredContent;
}

describe("arxiv_search_papers", () => {
  it("echoes the effective query, the total and the next start", async () => {
    const result = await callTool("arxiv_search_papers", { query: "testing" });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent;
    expect(out).toMatchObject({ query: "testing", start: 0, returned: 10, next_start: 10, served_from: "live" });
    expect(out.total).toBeGreaterThan(1000);
    expect(result.content[0]!.text).toContain("start=10");
  });

  it("pages with start", async () => {
    const result = await callTool("arxiv_search_papers", { query: "testing", start: 10 });
    expect(result.structuredContent).toMatchObject({ start: 10, next_start: 20 });
  });

  it("caps max_results at 50 and says so", async () => {
    const result = await callTool("arxiv_search_papers", { query: "testing", max_results: 100 });
    // No recording of a 50-result page exists; the request shape is what matters here.
    const hit = (await upstreamHits())[0]!;
    expect(new URL(hit.path, "http://x").searchParams.get("max_results")).toBe("50");
    if (!result.isError) expect(result.structuredContent.notices[0]).toContain("capped");
  });

  it("AND-s category and inclusive date filters onto the query", async () => {
    await callTool("arxiv_search_papers", {
      query: 'ti:"neural networks" OR abs:graph',
      category: "cs",
      submitted_from: "2024-01-01",
      submitted_to: "2024-01-31",
      sort_by: "submitted",
      sort_order: "ascending",
    });
    const params = new URL((await upstreamHits())[0]!.path, "http://x").searchParams;
    expect(params.get("search_query")).toBe(
      '(ti:"neural networks" OR abs:graph) AND cat:cs.* AND submittedDate:[202401010000 TO 202401312359]',
    );
    expect(params.get("sortBy")).toBe("submittedDate");
    expect(params.get("sortOrder")).toBe("ascending");
  });

  it("fails start_beyond_result_limit at 10,000 with advice on date windows", async () => {
    const error = toolError(await callTool("arxiv_search_papers", { query: "testing", start: 10_000 }));
    expect(error.reason).toBe("start_beyond_result_limit");
    expect(error.recovery).toContain("submitted_from");
  });

  it.each([
    [{ query: "(a OR b" }, "invalid_query"],
    [{ query: 'ti:"open phrase' }, "invalid_query"],
    [{ query: "AND quantum" }, "invalid_query"],
    [{ query: "ti:" }, "invalid_query"],
    [{ query: "quantum\u0000gravity" }, "invalid_query"],
    [{ query: "x".repeat(1001) }, "invalid_argument"],
    [{ query: "q", category: "cs.CLL" }, "invalid_category"],
    [{ query: "q", submitted_from: "2024-02-30" }, "invalid_date"],
    [{ query: "q", submitted_from: "2024-03-01", submitted_to: "2024-02-01" }, "invalid_date"],
    [{ query: "q", start: 1.5 }, "invalid_argument"],
    [{ query: "q", max_results: "ten" }, "invalid_argument"],
  ])("rejects %o with %s and a recovery hint, without calling arXiv", async (args, reason) => {
    const error = toolError(await callTool("arxiv_search_papers", args));
    expect(error.reason).toBe(reason);
    expect(error.recovery.length).toBeGreaterThan(10);
    expect(await upstreamHits()).toHaveLength(0);
  });

  it("suggests the nearest category codes", async () => {
    const error = toolError(await callTool("arxiv_search_papers", { query: "q", category: "cs.CLL" }));
    expect(error.recovery).toContain("cs.CL");
  });

  it("serves a repeated search from the cache and coalesces concurrent identical ones", async () => {
    const [a, b] = await Promise.all([
      callTool("arxiv_search_papers", { query: "testing", start: 5 }),
      callTool("arxiv_search_papers", { query: "testing", start: 5 }),
    ]);
    expect(a.structuredContent.papers).toEqual(b.structuredContent.papers);
    const again = await callTool("arxiv_search_papers", { query: "testing", start: 5 });
    expect(again.structuredContent.served_from).toBe("cache");
    expect(await upstreamHits()).toHaveLength(1);
  });

  it("an unrecorded query reaches the fake upstream's 404, reported as invalid_request", async () => {
    const error = toolError(await callTool("arxiv_search_papers", { query: "nothing recorded for this" }));
    expect(error.reason).toBe("invalid_request");
  });
});

describe("a misbehaving arXiv API", () => {
  // The scenario sits in the base URL, so the tool's own request path reaches it unchanged.
  async function searchAgainst(scenario: string) {
    const { status, result } = await callToolWith(
      "arxiv_search_papers",
      { query: "testing" },
      { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/${scenario}` },
    );
    expect(status).toBe(200);
    return toolError(result);
  }

  it.each([
    ["empty", "upstream_unavailable", 2],
    ["status-500", "upstream_unavailable", 2],
    ["html", "upstream_malformed", 1],
    ["not-xml", "upstream_malformed", 1],
    ["truncated-xml", "upstream_malformed", 1],
    ["entity-expansion", "upstream_malformed", 1],
    ["status-429", "rate_limited", 1],
    ["rate-exceeded", "rate_limited", 1],
    ["status-400", "invalid_request", 1],
  ])("%s -> %s after %i request(s), nothing cached", async (scenario, reason, requests) => {
    const error = await searchAgainst(scenario);
    expect(error.reason).toBe(reason);
    expect(error.recovery.length).toBeGreaterThan(5);
    expect(await upstreamHits()).toHaveLength(requests);
    const cached = await env.DB.prepare("SELECT count(*) AS n FROM api_cache").first<{ n: number }>();
    expect(cached!.n).toBe(0);
  });
});

describe("search from the mirror", () => {
  beforeEach(() => seedMirror());

  it("answers a field search from the mirror, with served_from, an exact total and every hit matching", async () => {
    const result = await search({ query: "ti:quantum" });
    const expected = records.filter((r) => hasWord(r.title, "quantum"));
    expect(result.served_from).toBe("mirror");
    expect(result.total_is_lower_bound).toBe(false);
    expect(result.total).toBe(expected.length);
    expect(result.papers.length).toBe(Math.min(50, expected.length));
    for (const paper of result.papers) expect(paper.title.toLowerCase()).toContain("quantum");
    expect(result.notices).toContain("Ranked by the mirror's BM25 (arXiv's own relevance order differs).");
  });

  it("applies a category, an archive, and cat: terms exactly as the junction table holds them", async () => {
    const cases: [Record<string, unknown>, (r: MirrorRecord) => boolean][] = [
      [{ query: "cat:hep-th" }, (r) => r.categories.includes("hep-th")],
      [{ query: "cat:math.*" }, (r) => inArchive(r, "math")],
      // A bare archive is the whole archive, as the category parameter reads it (docs/mirror.md).
      [{ query: "cat:astro-ph" }, (r) => inArchive(r, "astro-ph")],
      [{ query: "cat:astro-ph", category: "astro-ph" }, (r) => inArchive(r, "astro-ph")],
      [
        { query: "cat:hep-th ANDNOT cat:hep-ph" },
        (r) => r.categories.includes("hep-th") && !r.categories.includes("hep-ph"),
      ],
      [{ query: "(cat:cs.* OR cat:math.*)" }, (r) => inArchive(r, "cs") || inArchive(r, "math")],
      [
        { query: "cat:cond-mat.*", category: "cond-mat.stat-mech" },
        (r) => inArchive(r, "cond-mat") && r.categories.includes("cond-mat.stat-mech"),
      ],
    ];
    for (const [args, keep] of cases) {
      const result = await search(args);
      expect(result.served_from, JSON.stringify(args)).toBe("mirror");
      expect(result.total, JSON.stringify(args)).toBe(records.filter(keep).length);
    }
  });

  it("date windows count exactly, boundary days included, through the key ranges and the boundary-month check", async () => {
    const windows: [string, string][] = [
      ["1995-03-15", "1995-04-10"],
      ["1994-11-01", "1994-11-30"],
      ["2007-04-01", "2007-04-02"],
      ["2007-03-01", "2007-03-31"],
      ["1995-08-15", "1995-10-04"],
      ["1995-08-15", "1995-10-06"],
      ["1991-08-01", "2000-12-31"],
      ["1999-12-31", "2001-01-01"],
    ];
    for (const [from, to] of windows) {
      const inWindow = (r: MirrorRecord) => published(r) >= day(from) && published(r) <= day(to, true);
      const byParams = await search({ query: "cat:hep-th", submitted_from: from, submitted_to: to });
      expect(byParams.total, `${from}..${to}`).toBe(
        records.filter((r) => r.categories.includes("hep-th") && inWindow(r)).length,
      );
      const everything = await search({
        query: "cat:hep-th OR cat:adap-org OR cat:hep-ph OR cat:math.*",
        submitted_from: from,
        submitted_to: to,
      });
      const inAny = (r: MirrorRecord) =>
        r.categories.some((c) => ["hep-th", "adap-org", "hep-ph"].includes(c) || c.startsWith("math."));
      expect(everything.total, `any ${from}..${to}`).toBe(records.filter((r) => inAny(r) && inWindow(r)).length);
      const byQuery = await search({
        query: `abs:field AND submittedDate:[${from.replaceAll("-", "")}0000 TO ${to.replaceAll("-", "")}2359]`,
      });
      expect(byQuery.served_from).toBe("mirror");
      expect(byQuery.total, `abs:field ${from}..${to}`).toBe(
        records.filter((r) => hasWord(r.abstract, "field") && inWindow(r)).length,
      );
    }
  });

  it("a window holding a paper whose ID is of a far-off month goes live; if arXiv fails, the mirror answers and says what it may miss", async () => {
    const planned = planMirrorSearch("cat:hep-th OR cat:gr-qc OR cat:math.*", {
      submittedFrom: "2013-12-01",
      submittedTo: "2013-12-31",
    });
    if (!("plan" in planned)) throw new Error("expected a mirror plan");
    const routed = await searchMirror(oneDatabase(env.DB), planned.plan, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 5,
    });
    expect(routed).toMatchObject({
      kind: "live",
      mirrorCouldApproximate: true,
      reason: expect.stringContaining("carry IDs of other months"),
    });
    const { result } = await callToolWith(
      "arxiv_search_papers",
      { query: "cat:hep-th", submitted_from: "2013-12-01", submitted_to: "2013-12-31" },
      { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/status-503` },
    );
    expect(result.structuredContent.served_from).toBe("mirror");
    expect(result.structuredContent.notices.join(" ")).toContain("may miss some papers");
  });

  it("booleans follow arXiv's grouping; ANDNOT excludes; common words are dropped the way arXiv drops them", async () => {
    const has = (r: MirrorRecord, word: string) =>
      hasWord(`${r.title} ${r.authors} ${r.abstract} ${r.comment ?? ""} ${r.journal_ref ?? ""}`, word);
    const cases: [string, (r: MirrorRecord) => boolean][] = [
      ["gauge AND string", (r) => has(r, "gauge") && has(r, "string")],
      ["gauge ANDNOT string", (r) => has(r, "gauge") && !has(r, "string")],
      ["lattice gauge", (r) => has(r, "lattice") || has(r, "gauge")],
      ["lattice AND gauge OR boson", (r) => has(r, "lattice") && (has(r, "gauge") || has(r, "boson"))],
      ["the AND lattice", (r) => has(r, "lattice")],
    ];
    for (const [query, keep] of cases) {
      const result = await search({ query });
      expect(result.total, query).toBe(records.filter(keep).length);
    }
  });

  it("sorts by submission date both ways, and pages with start", async () => {
    const ascending = await search({
      query: "cat:hep-th",
      sort_by: "submitted",
      sort_order: "ascending",
      max_results: 5,
    });
    const dates = ascending.papers.map((p: { published: string }) => p.published);
    expect(dates).toEqual([...dates].sort());
    const expectedFirst = records
      .filter((r) => r.categories.includes("hep-th"))
      .sort((a, b) => published(a) - published(b))[0]!;
    expect(ascending.papers[0].base_id).toBe(expectedFirst.id);
    const next = await search({
      query: "cat:hep-th",
      sort_by: "submitted",
      sort_order: "ascending",
      max_results: 5,
      start: 5,
    });
    expect(next.papers[0].published >= dates[4]).toBe(true);
    expect(ascending.next_start).toBe(5);
    const updated = await search({ query: "cat:hep-th", sort_by: "updated", sort_order: "descending", max_results: 5 });
    const updates = updated.papers.map((p: { updated: string }) => p.updated);
    expect(updates).toEqual([...updates].sort().reverse());
  });

  it("returns the same paper record shape as the live API", async () => {
    const result = await search({ query: 'ti:"prompt diphoton"' });
    expect(result.papers[0]).toMatchObject({
      id: "0704.0001v2",
      base_id: "0704.0001",
      version: 2,
      primary_category: "hep-ph",
      categories: ["hep-ph"],
      published: "2007-04-02T19:18:42Z",
      updated: "2007-07-24T20:10:27Z",
      journal_ref: "Phys.Rev.D76:013009,2007",
      doi: "10.1103/PhysRevD.76.013009",
      abs_url: "https://arxiv.org/abs/0704.0001v2",
    });
    expect(result.papers[0].authors.map((a: { name: string }) => a.name)).toEqual([
      "C. Bal\\'azs",
      "E. L. Berger",
      "P. M. Nadolsky",
      "C.-P. Yuan",
    ]);
  });

  it("caps counts and marks them as lower bounds, and still ranks by relevance past the cap", async () => {
    const planned = planMirrorSearch("abs:field", {});
    if (!("plan" in planned)) throw new Error("expected a mirror plan");
    const capped = await searchMirror(oneDatabase(env.DB), planned.plan, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 5,
      caps: { count: 20, scan: 40, rank: 10 },
    });
    expect(capped).toMatchObject({ kind: "answer", total: 20, totalIsLowerBound: true, ordering: "relevance" });
    const filtered = planMirrorSearch("abs:field", { category: "hep-th" });
    if (!("plan" in filtered)) throw new Error("expected a mirror plan");
    const scanned = await searchMirror(oneDatabase(env.DB), filtered.plan, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 5,
      caps: { count: 1000, scan: 15, rank: 10 },
    });
    expect(scanned).toMatchObject({ kind: "answer", totalIsLowerBound: true });
    const updated = await searchMirror(oneDatabase(env.DB), planned.plan, {
      sortBy: "updated",
      sortOrder: "descending",
      start: 0,
      limit: 5,
      caps: { count: 20, scan: 40, rank: 10 },
    });
    expect(updated).toMatchObject({ kind: "live" });
  });
});

describe("routing to arXiv's API", () => {
  it("says the mirror is not ready when nothing was harvested", async () => {
    const result = await search({ query: "testing", max_results: 15 });
    expect(result.served_from).not.toBe("mirror");
    expect(result.notices.join(" ")).toContain("the mirror is not ready");
  });

  it("sends what the mirror cannot answer to the live API with the reason, and keeps the mirror for the rest", async () => {
    await seedMirror();
    const recent = await search({ query: "testing", sort_by: "submitted", max_results: 15 });
    expect(recent.served_from).not.toBe("mirror");
    expect(recent.notices.join(" ")).toContain("newest-first searches reaching into the last 2 days");
    const old = await search({ query: "testing", sort_by: "submitted", submitted_to: "2020-01-01", max_results: 15 });
    expect(old.served_from).toBe("mirror");
    for (const [query, reason] of [
      ["rn:CERN-TH-2000", "rn:"],
      ["ti:quantum OR cat:hep-th", "joined to words by OR"],
      ["cat:hep-th ANDNOT quantum", "only ANDNOT terms"],
      ["the", "no searchable word"],
    ]) {
      const planned = planMirrorSearch(query!, {});
      expect("live" in planned && planned.live, query).toContain(reason);
    }
  });

  it("sends a search to the live API, saying why, when the mirror's database fails on it", async () => {
    await seedMirror();
    // A table the ranker reads, gone (D1 raises, as it does when SQLite runs out of memory).
    await env.DB.prepare("DROP TABLE arxiv_rank_terms").run();
    const result = await search({ query: "testing", max_results: 15 });
    expect(result.served_from).not.toBe("mirror");
    expect(result.returned).toBeGreaterThan(0);
    expect(result.notices.join(" ")).toContain("Answered by arXiv's API: the mirror failed to answer this search.");
  });

  it("answers from the mirror, saying so, when a newest-first search's live call fails", async () => {
    await seedMirror();
    const { result } = await callToolWith(
      "arxiv_search_papers",
      { query: "ti:quantum", sort_by: "submitted" },
      { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/status-503` },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.served_from).toBe("mirror");
    expect(result.structuredContent.notices.join(" ")).toContain("arXiv's API failed (upstream_unavailable)");
  });

  it("ARXIV_MIRROR_ENABLED=false keeps search and lookup off the mirror", async () => {
    await seedMirror();
    const { result } = await callToolWith(
      "arxiv_search_papers",
      { query: "testing", max_results: 15 },
      { ARXIV_MIRROR_ENABLED: "false" },
    );
    expect(result.structuredContent.served_from).not.toBe("mirror");
    expect(result.structuredContent.notices.filter((notice: string) => /mirror/.test(notice))).toEqual([]);
    const lookup = await callToolWith(
      "arxiv_get_metadata",
      { paper_ids: ["1605.08386"] },
      { ARXIV_MIRROR_ENABLED: "false" },
    );
    expect(lookup.result.structuredContent.papers[0].served_from).toBe("live");
  });

  it("a query error is the same typed error on every route", async () => {
    await seedMirror();
    const result = await callTool("arxiv_search_papers", { query: "ti:" });
    expect(toolError(result).reason).toBe("invalid_query");
  });
});

describe("a partial mirror (its first harvest under way) is never served as a whole one", () => {
  beforeEach(() => seedPartialMirror());

  const arxivDown = { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/status-503` };

  it("searches go to arXiv with the reason; only when arXiv fails does the mirror answer, saying how much it holds", async () => {
    const live = await callTool("arxiv_search_papers", { query: "testing", max_results: 15 });
    expect(live.structuredContent.served_from).not.toBe("mirror");
    expect(live.structuredContent.notices.join(" ")).toContain(
      `the mirror is partial: it holds ${records.length.toLocaleString("en-US")} papers so far`,
    );
    const { result } = await callToolWith(
      "arxiv_search_papers",
      { query: "ti:quantum", sort_by: "relevance" },
      arxivDown,
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.served_from).toBe("mirror");
    expect(result.structuredContent.notices.join(" ")).toMatch(
      /arXiv's API failed \(upstream_unavailable\).*the mirror is partial/,
    );
  });
});

describe("a search page within an agent's budget (issue 32)", () => {
  beforeEach(() => seedMirror());

  // The whole result, content and structuredContent: what a client that reads both pays.
  const tokensOf = (result: unknown) => estimateTokens(JSON.stringify(result));
  type Page = {
    papers: { id: string; abstract: string; abstract_truncated?: boolean; authors: unknown[]; categories: string[] }[];
    notices: string[];
    detail: string;
  };

  it("keeps a default page under 6,000 tokens on the worst real records, cutting long abstracts and saying so", async () => {
    // cat:hep-ex lists the three many-author collaboration papers with their long abstracts and comments.
    for (const query of ["cat:hep-ex", "all:measurement", "cat:quant-ph", "all:quantum", "au:LHCb"]) {
      const result = await callTool("arxiv_search_papers", { query });
      expect(result.isError, query).toBeFalsy();
      expect(tokensOf(result), query).toBeLessThan(6_000);
      const page = result.structuredContent as Page;
      expect(page.detail, query).toBe("full");
      for (const paper of page.papers) {
        // What the ID gives, and the version list, are left to arxiv_get_metadata.
        expect(paper).not.toHaveProperty("pdf_url");
        expect(paper).not.toHaveProperty("html_url");
        expect(paper).not.toHaveProperty("versions");
      }
    }
    const hepEx = (await callTool("arxiv_search_papers", { query: "cat:hep-ex" })).structuredContent as Page;
    const cut = hepEx.papers.filter((paper) => paper.abstract_truncated);
    expect(cut.length).toBeGreaterThan(0);
    for (const paper of cut) expect(paper.abstract).toMatch(/…$/);
    expect(hepEx.notices.join(" ")).toMatch(
      /Abstracts longer than \d+ characters were cut \(abstract_truncated\) to keep this page within 6,000 tokens: arxiv_get_metadata gives whole abstracts/,
    );
    // The whole abstract is one call away.
    const whole = (await callTool("arxiv_get_metadata", { paper_ids: [cut[0]!.id] })).structuredContent as {
      papers: { abstract: string }[];
    };
    expect(whole.papers[0]!.abstract.startsWith(cut[0]!.abstract.slice(0, -1))).toBe(true);
    expect(whole.papers[0]!.abstract.length).toBeGreaterThan(cut[0]!.abstract.length);
  });

  it("keeps a 50-result page under 20,000 tokens: shorter abstracts first, brief records past them", async () => {
    for (const args of [
      { query: "cat:hep-ex", max_results: 50 },
      { query: "all:measurement", max_results: 50 },
      { query: "cat:quant-ph", max_results: 50 },
      { query: "all:measurement", max_results: 20 },
    ]) {
      const result = await callTool("arxiv_search_papers", args);
      expect(result.isError).toBeFalsy();
      expect(tokensOf(result), JSON.stringify(args)).toBeLessThan(20_000);
      const { papers, total } = result.structuredContent as Page & { total: number };
      expect(papers).toHaveLength(Math.min(args.max_results, total));
    }
    const big = await callTool("arxiv_search_papers", { query: "all:measurement", max_results: 50 });
    const page = big.structuredContent as Page;
    expect(page.notices.join(" ")).toMatch(/The records are brief .* within 20,000 tokens: arxiv_get_metadata/);
    for (const paper of page.papers) {
      expect(paper.abstract.length).toBeLessThanOrEqual(201);
      expect(paper.authors.length).toBeLessThanOrEqual(3);
      expect(paper.categories).toHaveLength(1);
    }
    // Asked for, a page is brief at any size; asked full, it is full, whole abstracts and all.
    const asked = await callTool("arxiv_search_papers", { query: "cat:hep-ex", detail: "brief" });
    expect((asked.structuredContent as Page).papers.every((p) => p.authors.length <= 3)).toBe(true);
    const full = await callTool("arxiv_search_papers", { query: "all:measurement", max_results: 50, detail: "full" });
    expect(tokensOf(full)).toBeGreaterThan(20_000);
    expect((full.structuredContent as Page).papers.some((paper) => paper.abstract_truncated)).toBe(false);
  });
});
