// nber_search_papers: the mirror (real nberwp rows) and NBER's API (hand-made fixtures in the documented shape;
// no recordings exist), the search cache and its age, coalescing, the fallback and typed refusals.

import { beforeEach, describe, expect, it } from "vitest";
import { ftsQuery } from "../../src/store/nber-mirror";
import { FAKE, callTool, callToolWith, resetUpstream, toolError, upstreamHits, dbRows } from "../helpers";
import { seedNberMirror } from "../support/nber";

beforeEach(resetUpstream);
describe("nber_search_papers", () => {
  it("answers from the mirror when the dates lie within it, and logs the search", async () => {
    await seedNberMirror();
    const result = await callTool("nber_search_papers", { query: "trade wars", end_date: "2020-12-31" });
    expect(result.structuredContent).toMatchObject({
      served_from: "mirror",
      total: 1,
      page: 1,
      per_page: 20,
      end_date: "2020-12-31",
    });
    expect(result.structuredContent.papers[0]).toMatchObject({
      id: "w10000",
      authors: ["Richard B Freeman"],
      url: "https://www.nber.org/papers/w10000",
    });
    expect(await upstreamHits()).toHaveLength(0);
    const [log] = await dbRows("SELECT * FROM query_log");
    expect(log).toMatchObject({
      surface: "nber_search_papers",
      keyword: "trade wars",
      result_count: 1,
      served_from: "mirror",
    });
  });

  it("finds authors and respects inclusive date bounds on month-precision records", async () => {
    await seedNberMirror();
    const byAuthor = await callTool("nber_search_papers", { query: "Card Taylor", end_date: "2021-01-01" });
    expect(byAuthor.structuredContent.papers.map((p: { id: string }) => p.id)).toEqual(["w25000"]);
    // The mirror's newest month may be incomplete, so NBER is asked first; it has no answer recorded
    // here, so the mirror answers, says so, and counts a December 2021 paper as within 2021-12-31.
    const window = await callTool("nber_search_papers", {
      query: "options",
      start_date: "2021-12-31",
      end_date: "2021-12-31",
    });
    expect(window.structuredContent).toMatchObject({ served_from: "mirror", total: 1 });
    expect(window.structuredContent.notices[0]).toContain("could not be asked");
    const bounded = await callTool("nber_search_papers", {
      query: "education",
      start_date: "1973-06-30",
      end_date: "1999-12-31",
    });
    expect(bounded.structuredContent.papers.map((p: { id: string }) => p.id)).toEqual(["w0001"]);
  });

  it("ignores words nearly every title has, unless the query has nothing else", async () => {
    expect(ftsQuery("The Effect of the Minimum Wage")).toBe('"effect" "minimum" "wage"');
    expect(ftsQuery("the of")).toBe('"the" "of"');
    expect(ftsQuery('NEAR("x" *) AND -- \'; DROP')).toBe('"near" "x" "drop"');
    expect(ftsQuery("!!!")).toBeUndefined();
  });

  it("looks a paper number up in the mirror", async () => {
    await seedNberMirror();
    const result = await callTool("nber_search_papers", { query: "w25000" });
    expect(result.structuredContent).toMatchObject({ served_from: "mirror", total: 1 });
  });

  it("asks NBER's API for recent papers: plain authors, month dates, plain abstracts", async () => {
    await seedNberMirror();
    const result = await callTool("nber_search_papers", { query: "artificial intelligence" });
    expect(result.structuredContent).toMatchObject({ served_from: "live", total: 5 });
    expect(result.structuredContent.papers[0]).toEqual({
      id: "w33509",
      title: "Artificial Intelligence and the Labor Market",
      authors: ["Menaka Hampole", "Dimitris Papanikolaou", "Lawrence D.W. Schmidt", "Bryan Seegmiller"],
      date: "2025-02",
      abstract: "Placeholder abstract of w33509 (hand-made fixture).",
      url: "https://www.nber.org/papers/w33509",
    });
    const hit = new URL((await upstreamHits())[0]!.path, FAKE);
    expect(hit.pathname).toBe("/nber/api/v1/working_page_listing/contentType/working_paper/_/_/search");
    expect(Object.fromEntries(hit.searchParams)).toEqual({ page: "1", perPage: "20", q: "artificial intelligence" });
    expect((await upstreamHits())[0]!.userAgent).toContain("Mozilla/5.0");
  });

  it("reuses an NBER search answer for NBER_SEARCH_CACHE_TTL_SECONDS, and says so with its age", async () => {
    await seedNberMirror();
    const first = await callTool("nber_search_papers", { query: "artificial intelligence" });
    expect(first.structuredContent.served_from).toBe("live");
    const again = await callTool("nber_search_papers", { query: "artificial intelligence" });
    expect(again.structuredContent).toMatchObject({ served_from: "cache", total: 5 });
    expect(again.structuredContent.cache_age_seconds).toBeGreaterThanOrEqual(0);
    expect(Date.parse(again.structuredContent.cached_at)).toBeLessThanOrEqual(Date.now());
    expect(again.structuredContent.papers).toEqual(first.structuredContent.papers);
    expect(await upstreamHits()).toHaveLength(1);
    // With the cache off, every search asks NBER.
    const uncached = await callToolWith(
      "nber_search_papers",
      { query: "artificial intelligence" },
      { NBER_SEARCH_CACHE_TTL_SECONDS: "0" },
    );
    const uncachedAgain = await callToolWith(
      "nber_search_papers",
      { query: "artificial intelligence" },
      { NBER_SEARCH_CACHE_TTL_SECONDS: "0" },
    );
    expect([uncached.result.structuredContent.served_from, uncachedAgain.result.structuredContent.served_from]).toEqual(
      ["live", "live"],
    );
    expect(await upstreamHits()).toHaveLength(3);
  });

  it("identical searches and paper lookups made at once go to NBER once, and every caller gets the answer", async () => {
    await seedNberMirror();
    const searches = await Promise.all(
      Array.from({ length: 6 }, () => callTool("nber_search_papers", { query: "artificial intelligence" })),
    );
    expect(
      searches.every(
        (result) => result.structuredContent.served_from === "live" && result.structuredContent.total === 5,
      ),
    ).toBe(true);
    const infos = await Promise.all(
      Array.from({ length: 4 }, () => callTool("nber_get_paper_info", { paper_id: "w10000", refresh: true })),
    );
    expect(infos.map((result) => [result.structuredContent.id, result.structuredContent.served_from])).toEqual(
      Array(4).fill(["w10000", "live"]),
    );
    const hits = (await upstreamHits()).map((hit) => new URL(hit.path, FAKE).pathname);
    expect(hits.filter((path) => path.endsWith("/search"))).toHaveLength(1);
    expect(hits.filter((path) => path === "/nber/papers/w10000")).toHaveLength(1);
  });

  it("falls back to the mirror, saying so, when NBER rate-limits", async () => {
    await seedNberMirror();
    const { message } = await callToolWith(
      "nber_search_papers",
      { query: "bribery" },
      { NBER_BASE_URL: `${FAKE}/nber/_scenario/status-429` },
    );
    expect(message.result.structuredContent).toMatchObject({ served_from: "mirror", total: 1 });
    expect(message.result.structuredContent.notices[0]).toContain("rate_limited");
  });

  it.each([
    [{ query: "x", per_page: 30 }, "invalid_argument"],
    [{ query: "x", page: 0 }, "invalid_argument"],
    [{ query: "x", start_date: "2020/01/01" }, "invalid_argument"],
    [{ query: "x", start_date: "2021-02-30" }, "invalid_date"],
    [{ query: "x", start_date: "2021-03-01", end_date: "2021-02-01" }, "invalid_date"],
    [{ query: "\u0001" }, "invalid_query"],
  ])("rejects %o with %s, without asking NBER", async (args, reason) => {
    expect(toolError(await callTool("nber_search_papers", args)).reason).toBe(reason);
    expect(await upstreamHits()).toHaveLength(0);
  });
});
