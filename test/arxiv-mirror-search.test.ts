// Search and lookup answered from the mirror (seeded with the 1,128 real records of
// data/arxiv-sample), the routing rules that send a request to arXiv's API instead, and exact
// agreement of filters (categories, archives, date windows) with a brute-force count.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { planMirrorSearch } from "../src/sources/arxiv/mirror-query";
import { searchMirror } from "../src/store/arxiv-mirror-search";
import type { MirrorRecord } from "../src/store/arxiv-row";
import { FAKE, callTool, callToolWith, mcpCall, resetUpstream, toolError } from "./helpers";
import { sampleRecords, seedMirror } from "./mirror/driver";

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
    const routed = await searchMirror(env.DB, planned.plan, {
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
    const capped = await searchMirror(env.DB, planned.plan, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 5,
      caps: { count: 20, scan: 40, rank: 10 },
    });
    expect(capped).toMatchObject({ kind: "answer", total: 20, totalIsLowerBound: true, ordering: "relevance" });
    const filtered = planMirrorSearch("abs:field", { category: "hep-th" });
    if (!("plan" in filtered)) throw new Error("expected a mirror plan");
    const scanned = await searchMirror(env.DB, filtered.plan, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 5,
      caps: { count: 1000, scan: 15, rank: 10 },
    });
    expect(scanned).toMatchObject({ kind: "answer", totalIsLowerBound: true });
    const updated = await searchMirror(env.DB, planned.plan, {
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
    expect(result.structuredContent.notices).toEqual([]);
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

describe("lookup from the mirror", () => {
  beforeEach(() => seedMirror());

  it("serves held papers from the mirror, old-style IDs included", async () => {
    const result = await callTool("arxiv_get_metadata", {
      paper_ids: ["0704.0001", "arXiv:acc-phys/9411001", "https://arxiv.org/abs/0704.0002v2"],
    });
    expect(
      result.structuredContent.papers.map((p: { id: string; served_from: string }) => [p.id, p.served_from]),
    ).toEqual([
      ["0704.0001v2", "mirror"],
      ["acc-phys/9411001v1", "mirror"],
      ["0704.0002v2", "mirror"],
    ]);
    expect(result.structuredContent.not_found).toEqual([]);
  });

  it("looks up live what the mirror lacks (fallback on), and reports it when the fallback is off", async () => {
    const live = await callTool("arxiv_get_metadata", { paper_ids: ["0704.0001", "1605.08386"] });
    expect(
      live.structuredContent.papers.map((p: { base_id: string; served_from: string }) => [p.base_id, p.served_from]),
    ).toEqual([
      ["0704.0001", "mirror"],
      ["1605.08386", "live"],
    ]);
    const { result } = await callToolWith(
      "arxiv_get_metadata",
      { paper_ids: ["0704.0001", "0704.0001v1", "2401.99999"] },
      { ARXIV_MIRROR_FALLBACK_LIVE: "false" },
    );
    expect(result.structuredContent.not_found).toEqual([
      expect.objectContaining({ id: "0704.0001v1", reason: "version_not_in_mirror", latest_version: "0704.0001v2" }),
      expect.objectContaining({ id: "2401.99999", reason: "not_in_arxiv", detail: expect.stringContaining("mirror") }),
    ]);
  });

  it("arxiv://mirror/status shows that the mirror serves, and the harvest's progress", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://mirror/status" });
    const body = JSON.parse(message.result.contents[0].text);
    expect(body.serving).toBe(true);
    expect(body.harvest).toMatchObject({
      source: "arxiv",
      status: "done",
      records: records.length,
      last_datestamp: "2026-11-29",
    });
  });
});

describe("reading a paper when arXiv's API cannot be asked", () => {
  it("takes the version from the mirror and says so", async () => {
    // A HAND-MADE mirror record for a paper whose recorded PDF is a fixture (1512.03905v1).
    await seedMirror([
      {
        id: "1512.03905",
        style: "new",
        title: "A paper whose PDF is a recorded fixture",
        authors: "A. Author",
        abstract: "Hand-made mirror record for this test.",
        categories: ["cs.LG"],
        versions: [1450000000],
        comment: null,
        journal_ref: null,
        doi: null,
        license: null,
        datestamp: "2015-12-13",
      },
    ]);
    const { result } = await callToolWith(
      "arxiv_read_paper",
      { paper_id: "1512.03905", max_characters: 2000 },
      { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/status-503` },
    );
    expect(result.isError, JSON.stringify(result).slice(0, 400)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ paper_id: "1512.03905v1", source: "pdf_text" });
    expect(result.structuredContent.notices.join(" ")).toContain("the latest version the metadata mirror holds");
  });
});

describe("a partial mirror (its first harvest under way) is never served as a whole one", () => {
  beforeEach(async () => {
    await seedMirror();
    // The first cold run is at work: papers are in, the mirror is not complete.
    await env.DB.prepare(
      "UPDATE harvest_state SET status = 'running', mode = 'cold', complete_at = NULL, complete_scope = NULL, watermark = NULL WHERE source = 'arxiv'",
    ).run();
  });
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

  it("lookups go to arXiv; the partial mirror answers what arXiv cannot, and with live lookups off a paper it lacks is not_yet_harvested, never not_in_arxiv", async () => {
    const live = await callTool("arxiv_get_metadata", { paper_ids: ["1605.08386"] });
    expect(live.structuredContent.papers[0].served_from).toBe("live");
    const down = await callToolWith("arxiv_get_metadata", { paper_ids: ["0704.0001", "2401.99999"] }, arxivDown);
    expect(
      down.result.structuredContent.papers.map((p: { id: string; served_from: string }) => [p.id, p.served_from]),
    ).toEqual([["0704.0001v2", "mirror"]]);
    expect(down.result.structuredContent.not_found).toEqual([
      expect.objectContaining({ id: "2401.99999", reason: "live_lookup_failed" }),
    ]);
    const off = await callToolWith(
      "arxiv_get_metadata",
      { paper_ids: ["0704.0001", "2401.99999"] },
      { ARXIV_MIRROR_FALLBACK_LIVE: "false" },
    );
    expect(
      off.result.structuredContent.papers.map((p: { id: string; served_from: string }) => [p.id, p.served_from]),
    ).toEqual([["0704.0001v2", "mirror"]]);
    expect(off.result.structuredContent.not_found).toEqual([
      expect.objectContaining({
        id: "2401.99999",
        reason: "not_yet_harvested",
        detail: expect.stringContaining("partial"),
      }),
    ]);
  });

  it("arxiv://mirror/status says it is not serving, why, and how much it holds", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://mirror/status" });
    const body = JSON.parse(message.result.contents[0].text);
    expect(body).toMatchObject({
      serving: false,
      partial: { papers: records.length },
      harvest: { complete: null, status: "running" },
    });
    expect(body.not_serving_because).toContain("first full harvest has not completed");
  });
});
