// arxiv_get_metadata: every ID spelling, the cache, the mirror (whole and partial), live lookups for what it
// lacks, typed misses, version history and the links to other sources.

import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { FAKE, callTool, callToolWith, resetUpstream, toolError, upstreamHits, structuredOf } from "../helpers";
import { sampleRecords, seedMirror, seedPartialMirror } from "../mirror/driver";
import { estimateTokens } from "../../src/sources/text/tokens";

/** arXiv API requests only (a lookup also asks OpenAlex for citation counts: test/citation-counts.test.ts). */
const arxivApiHits = async () => (await upstreamHits()).filter((hit) => hit.path.startsWith("/arxiv-api/"));

beforeEach(resetUpstream);

describe("arxiv_get_metadata", () => {
  it("returns a full record from the live API, then from the cache without touching arXiv", async () => {
    const first = await callTool("arxiv_get_metadata", { paper_ids: ["1605.08386"] });
    expect(first.isError).toBeFalsy();
    const paper = first.structuredContent.papers[0];
    expect(paper).toMatchObject({
      id: "1605.08386v1",
      base_id: "1605.08386",
      version: 1,
      served_from: "live",
      abs_url: "https://arxiv.org/abs/1605.08386v1",
      pdf_url: "https://arxiv.org/pdf/1605.08386v1",
      html_url: "https://arxiv.org/html/1605.08386v1",
    });
    expect(paper.title).not.toMatch(/\s{2,}|\n/);
    expect(paper.abstract).not.toMatch(/\s{2,}|\n/);
    expect(paper.categories).toContain(paper.primary_category);

    const second = await callTool("arxiv_get_metadata", { paper_ids: ["arXiv:1605.08386"] });
    expect(second.structuredContent.papers[0]).toMatchObject({ id: "1605.08386v1", served_from: "cache" });
    expect(second.structuredContent.papers[0].cache_age_seconds).toBeGreaterThanOrEqual(0);
    expect(await arxivApiHits()).toHaveLength(1);
  });

  it("keeps input order and types every miss", async () => {
    // 0808.05394 was recorded as an empty answer, but it is malformed (before 2015 IDs have four
    // digits after the dot), so it is never sent: invalid_id says exactly why.
    const result = await callTool("arxiv_get_metadata", { paper_ids: ["not-an-id", "1707.08567", "0808.05394"] });
    expect(result.structuredContent.papers.map((p: { base_id: string }) => p.base_id)).toEqual(["1707.08567"]);
    expect(result.structuredContent.not_found).toEqual([
      expect.objectContaining({ id: "not-an-id", reason: "invalid_id" }),
      expect.objectContaining({
        id: "0808.05394",
        reason: "invalid_id",
        detail: expect.stringContaining("four digits"),
      }),
    ]);
    const hit = (await arxivApiHits())[0]!;
    expect(decodeURIComponent(hit.path)).toContain("id_list=1707.08567&");
  });

  it("asks arXiv only for what the cache lacks, and marks a well-formed ID it does not have as not_in_arxiv", async () => {
    await callTool("arxiv_get_metadata", { paper_ids: ["1605.08386"] }); // now cached
    const result = await callTool("arxiv_get_metadata", { paper_ids: ["1605.08386", "2401.99999"] });
    expect(result.structuredContent.papers).toEqual([
      expect.objectContaining({ id: "1605.08386v1", served_from: "cache" }),
    ]);
    expect(result.structuredContent.not_found).toEqual([
      expect.objectContaining({ id: "2401.99999", reason: "not_in_arxiv" }),
    ]);
    const paths = (await arxivApiHits()).map((hit) => decodeURIComponent(hit.path));
    expect(paths[1]).toContain("id_list=2401.99999&");
  });

  it("names the latest version when arXiv will not serve a superseded pre-2007 version (HTTP 500)", async () => {
    const error = toolError(await callTool("arxiv_get_metadata", { paper_ids: ["hep-th/9901001v1"] }));
    expect(error.reason).toBe("version_not_served");
    expect(error.message).toContain("hep-th/9901001v2");
    const paths = (await arxivApiHits()).map((hit) => decodeURIComponent(hit.path));
    expect(paths).toHaveLength(2);
    expect(paths[1]).toContain("id_list=hep-th/9901001&");
  });

  it("reads authors with affiliations, journal_ref and comment (old-style ID)", async () => {
    const result = await callTool("arxiv_get_metadata", { paper_ids: ["https://arxiv.org/abs/astro-ph/0601001"] });
    const paper = result.structuredContent.papers[0];
    expect(paper.base_id).toBe("astro-ph/0601001");
    expect(paper.journal_ref).toBeTruthy();
    expect(paper.comment).toBeTruthy();
    expect(paper.authors.some((a: { affiliations?: string[] }) => (a.affiliations ?? []).length > 0)).toBe(true);
  });

  it("answers the exact version asked for", async () => {
    const result = await callTool("arxiv_get_metadata", { paper_ids: ["https://arxiv.org/pdf/2104.12255v1.pdf"] });
    expect(result.structuredContent.papers[0]).toMatchObject({ id: "2104.12255v1", version: 1 });
  });

  it("looks up the first 10 and returns the rest as remaining_ids", async () => {
    const ids = ["1605.08386", ...Array.from({ length: 11 }, (_, i) => `2401.${String(10000 + i)}`)];
    const result = await callTool("arxiv_get_metadata", {
      paper_ids: [ids[0], "9999", "x", "y", "z", "w", "v", "u", "t", "s", ...ids.slice(1)],
    });
    expect(result.structuredContent.remaining_ids).toEqual(ids.slice(1));
  });

  it("fails invalid_id when no ID is well formed", async () => {
    const error = toolError(await callTool("arxiv_get_metadata", { paper_ids: ["abc", "1234.5", "hep-th/99"] }));
    expect(error.reason).toBe("invalid_id");
    expect(error.recovery).toContain("2401.12345");
    expect(await upstreamHits()).toHaveLength(0);
  });

  it("fails no_match when every ID misses", async () => {
    const error = toolError(await callTool("arxiv_get_metadata", { paper_ids: ["2401.99999"] }));
    expect(error.reason).toBe("no_match");
    expect(error.message).toContain("2401.99999");
  });

  it("passes rate limiting on as rate_limited with retry_after_ms when nothing could be answered", async () => {
    const gate = env.CRAWL_GATE.get(env.CRAWL_GATE.idFromName("arxiv-api"));
    await gate.reportRateLimited(60_000);
    const error = toolError(await callTool("arxiv_get_metadata", { paper_ids: ["1605.08386"] }));
    expect(error.reason).toBe("rate_limited");
    expect(error.retry_after_ms).toBeGreaterThan(50_000);
    expect(await upstreamHits()).toHaveLength(0);
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
});

describe("a partial mirror (its first harvest under way) is never served as a whole one", () => {
  beforeEach(() => seedPartialMirror());

  const arxivDown = { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/status-503` };

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
});

describe("version history in arxiv_get_metadata", () => {
  it("lists every version with its date from the mirror", async () => {
    await seedMirror();
    const record = sampleRecords().find((r) => r.versions.length > 1)!;
    const paper = structuredOf(await callTool("arxiv_get_metadata", { paper_ids: [record.id] })).papers[0];
    expect(paper.versions).toEqual(
      record.versions.map((seconds, i) => ({
        version: i + 1,
        date: new Date(seconds * 1000).toISOString().replace(".000Z", "Z"),
      })),
    );
  });
});

describe("links across sources", () => {
  it("gives an arXiv paper its journal DOI and its DataCite DOI", async () => {
    await seedMirror();
    const result = await callTool("arxiv_get_metadata", { paper_ids: ["0704.0001"] });
    expect(result.structuredContent.papers[0].links).toEqual([
      {
        kind: "journal_doi",
        source: "doi",
        id_or_doi: "10.1103/PhysRevD.76.013009",
        how: "the DOI arXiv's metadata gives for the published version",
      },
      {
        kind: "arxiv_doi",
        source: "datacite",
        id_or_doi: "10.48550/arXiv.0704.0001",
        how: "arXiv's DataCite DOI, which every arXiv ID has",
      },
    ]);
  });
});

describe("author lists the way the field shortens them (issue 32)", () => {
  beforeEach(() => seedMirror());

  it("shows a collaboration's first ten authors with the count and the collaboration, and every author on request", async () => {
    const short = structuredOf(await callTool("arxiv_get_metadata", { paper_ids: ["1411.4413", "0704.0001"] }));
    const [cms, small] = short.papers as {
      authors: { name: string }[];
      authors_total?: number;
      collaboration?: string;
    }[];
    expect(cms!.authors).toHaveLength(10);
    expect(cms!.authors_total).toBeGreaterThan(2_000);
    expect(cms!.collaboration).toBe("CMS and LHCb Collaborations");
    // A paper under the threshold is as it was.
    expect(small!.authors).toHaveLength(4);
    expect(small!.authors_total).toBeUndefined();
    // The whole list, in slices that keep each answer within 20,000 tokens (2,831 names are 28,000).
    const names: string[] = [];
    let authorsStart: number | undefined = 0;
    while (authorsStart !== undefined) {
      const answer = await callTool("arxiv_get_metadata", {
        paper_ids: ["1411.4413"],
        full_authors: true,
        authors_start: authorsStart,
      });
      expect(estimateTokens(JSON.stringify(answer))).toBeLessThan(20_000);
      const paper = structuredOf(answer).papers[0] as {
        authors: { name: string }[];
        authors_total: number;
        authors_next_start?: number;
      };
      expect(paper.authors_total).toBe(cms!.authors_total);
      names.push(...paper.authors.map((author) => author.name));
      if (paper.authors_next_start !== undefined)
        expect(answer.content[0]!.text).toContain(`full_authors and authors_start=${paper.authors_next_start}`);
      authorsStart = paper.authors_next_start;
    }
    expect(names).toHaveLength(cms!.authors_total!);
    expect(names.slice(0, 10)).toEqual(cms!.authors.map((author) => author.name));
    expect(new Set(names).size).toBeGreaterThan(2_800);
    // Several papers with whole lists: in order while they fit, the rest in remaining_ids.
    const three = structuredOf(
      await callTool("arxiv_get_metadata", { paper_ids: ["2103.11058", "1310.8286", "1411.4413"], full_authors: true }),
    );
    const base = (id: string) => id.replace(/v\d+$/, "");
    expect([...three.papers.map((paper: { id: string }) => paper.id), ...three.remaining_ids].map(base)).toEqual([
      "2103.11058",
      "1310.8286",
      "1411.4413",
    ]);
    expect(three.remaining_ids.length).toBeGreaterThan(0);
    // The answer an agent gets by default is a few kilobytes, not 67.
    const answer = await callTool("arxiv_get_metadata", { paper_ids: ["1411.4413", "2103.11058", "1310.8286"] });
    expect(JSON.stringify(answer).length).toBeLessThan(30_000);
  });

  it("shortens them in search results, with a notice saying how to get them whole", async () => {
    const page = structuredOf(
      await callTool("arxiv_search_papers", { query: 'ti:"combined analysis of CMS and LHCb data"', max_results: 5 }),
    );
    const papers = page.papers as { id: string; authors: unknown[]; authors_total?: number }[];
    const cms = papers.find((paper) => paper.id.startsWith("1411.4413"))!;
    expect(cms.authors).toHaveLength(10);
    expect(cms.authors_total).toBeGreaterThan(2_000);
    expect((page.notices as string[]).join(" ")).toMatch(/full_authors/);
  });

  it("cites a large collaboration as INSPIRE does: the first author, others, and the collaboration", async () => {
    const cms = sampleRecords()
      .find((record) => record.id === "1411.4413")!
      .authors.split(/,\s*|\s+and\s+/);
    const bibtex = structuredOf(await callTool("papers_export_citations", { ids: ["1411.4413"] })).text as string;
    expect(bibtex).toMatch(/author = \{[^\n]* and others\},\n/);
    expect(bibtex).toContain("collaboration = {CMS and LHCb Collaborations}");
    expect(bibtex.length).toBeLessThan(2_000);
    const csl = structuredOf(await callTool("papers_export_citations", { ids: ["1411.4413"], format: "csl-json" }));
    expect(JSON.parse(csl.text as string)[0].author).toHaveLength(1);
    const full = structuredOf(await callTool("papers_export_citations", { ids: ["1411.4413"], full_authors: true }));
    expect((full.text as string).length).toBeGreaterThan(20_000);
    // CSL-JSON of 2,831 names is 40,000 tokens: the entry lists those that fit, and says so.
    const whole = await callTool("papers_export_citations", {
      ids: ["1411.4413"],
      format: "csl-json",
      full_authors: true,
    });
    expect(estimateTokens(JSON.stringify(whole))).toBeLessThan(20_000);
    const listed = JSON.parse(structuredOf(whole).text as string)[0].author.length;
    expect(listed).toBeGreaterThan(100);
    expect(whole.content[0]!.text).toContain(
      `1411.4413 lists its first ${listed} of ${cms.length} authors and "others", to keep this answer within 20,000 tokens`,
    );
  });
});
