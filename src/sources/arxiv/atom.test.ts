// The Atom parser against both recorded feed generations, the API's error entry, and broken input.
import { describe, expect, it } from "vitest";
import { PapersError } from "../../errors";
import { ArxivApiError, parseAtomFeed } from "./atom";
import { FAKE } from "../../../test/helpers";

const fixture = async (path: string) => (await fetch(`${FAKE}/_fixtures/${path}`)).text();

describe("parseAtomFeed", () => {
  it("reads a 2026 search page: totals, offsets and 10 entries", async () => {
    const feed = parseAtomFeed(await fixture("arxiv-api/v2026/search_all-testing_start0_max10.xml"));
    expect(feed.start).toBe(0);
    expect(feed.itemsPerPage).toBe(10);
    expect(feed.total).toBeGreaterThan(1000);
    expect(feed.papers).toHaveLength(10);
    for (const paper of feed.papers) {
      expect(paper.id).toMatch(/v\d+$/);
      expect(paper.title.length).toBeGreaterThan(0);
      expect(paper.authors.length).toBeGreaterThan(0);
      expect(paper.categories).toContain(paper.primary_category);
    }
  });

  it("reads the 100-entry page", async () => {
    expect(parseAtomFeed(await fixture("arxiv-api/v2026/search_all-testing_start0_max100.xml")).papers).toHaveLength(
      100,
    );
  });

  it("reads the classic (pre-2026) feed shape with wrapped summaries and typed titles", async () => {
    const feed = parseAtomFeed(await fixture("arxiv-api/classic-2025/search_au-agdur.xml"));
    expect(feed.papers).toHaveLength(4);
    for (const paper of feed.papers) {
      expect(paper.abstract).not.toMatch(/\n|\s{2,}/);
      expect(paper.title).not.toMatch(/\n|\s{2,}/);
    }
    const single = parseAtomFeed(await fixture("arxiv-api/classic-2025/idlist_2507.17541.xml"));
    expect(single.papers[0]).toMatchObject({ base_id: "2507.17541" });
  });

  it("keeps LaTeX and non-ASCII author names intact", async () => {
    const feed = parseAtomFeed(await fixture("arxiv-api/v2026/idlist_1707.08567.xml"));
    expect(feed.papers[0]!.authors).toHaveLength(34);
    expect(feed.papers[0]!.authors.some((a) => /[^\u0000-\u007f]/.test(a.name))).toBe(true);
  });

  it("reads DOI, journal reference and affiliations where present", async () => {
    const paper = parseAtomFeed(await fixture("arxiv-api/v2026/idlist_astro-ph-0601001_old-style.xml")).papers[0]!;
    expect(paper.journal_ref).not.toBeNull();
    expect(paper.authors.flatMap((a) => a.affiliations ?? []).length).toBeGreaterThan(0);
  });

  it("an empty result is a feed with no papers, not an error", async () => {
    const feed = parseAtomFeed(await fixture("arxiv-api/v2026/idlist_0000.0000_empty.xml"));
    expect(feed).toMatchObject({ total: 0, papers: [] });
  });

  it("turns the API's error entry into ArxivApiError with its message", async () => {
    const body = await fixture("arxiv-api/v2026/idlist_abc_http400_error-entry.xml");
    expect(() => parseAtomFeed(body)).toThrow(ArxivApiError);
    expect(() => parseAtomFeed(body)).toThrow("incorrect id format for abc");
  });

  it.each([
    ["an HTML page", "<!doctype html><html><body>Error</body></html>"],
    ["a DOCTYPE with entities", '<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "x">]><feed>&a;</feed>'],
    ["plain text", "Rate exceeded."],
    ["truncated XML", "<feed xmlns='http://www.w3.org/2005/Atom'><entry><id>http://arxiv.org/abs/2401.1"],
    ["a feed without counts", "<feed xmlns='http://www.w3.org/2005/Atom'></feed>"],
    [
      "an entry id that is not an abs URL",
      "<feed><totalResults>1</totalResults><startIndex>0</startIndex><itemsPerPage>1</itemsPerPage><entry><id>javascript:alert(1)</id></entry></feed>",
    ],
  ])("rejects %s as upstream_malformed", (_label, body) => {
    try {
      parseAtomFeed(body);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PapersError);
      expect((error as PapersError).reason).toBe("upstream_malformed");
    }
  });
});
