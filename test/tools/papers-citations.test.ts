// papers_citations against the fake OpenAlex: recorded citing and cited pages (test/fixtures/openalex,
// routed by content-routes.json) and hand-made failure scenarios (scripts/fake-upstream/openalex.ts).
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { sampleRecords, seedMirror } from "../mirror/driver";
import {
  FAKE,
  callTool,
  callToolWith,
  dbRows,
  resetUpstream,
  statusJson,
  structuredOf,
  toolError,
  upstreamHits,
} from "../helpers";

beforeEach(resetUpstream);

const scenario = (name: string) => ({ OPENALEX_BASE_URL: `${FAKE}/openalex/_scenario/${name}` });
const listCalls = async () =>
  (await upstreamHits()).filter((hit) => /\/openalex(\/_scenario\/[a-z0-9-]+)?\/works\?/.test(hit.path));

describe("papers_citations", () => {
  it("lists the works citing an arXiv paper, with the total, resolved IDs, and the key never shown", async () => {
    const result = await callTool("papers_citations", { id: "arXiv:2007.14454v1" });
    const page = structuredOf(result);
    expect(page.paper).toMatchObject({ id: "2007.14454", source: "arxiv", openalex_id: "W3045921891" });
    expect(page).toMatchObject({ direction: "cited_by", sort: "most_cited", total: 3, start: 0, next_start: null });
    expect(page.served_from).toBe("live");
    expect(page.works.map((work: { openalex_id: string }) => work.openalex_id)).toEqual([
      "W4311043552",
      "W4293919086",
      "W4387316167",
    ]);
    const jcdl = page.works[2];
    expect(jcdl).toMatchObject({
      title: "Bibliometric Data Fusion for Biomedical Information Retrieval",
      year: 2023,
      doi: "10.1109/jcdl57899.2023.00026",
      arxiv_id: "2304.13012",
      matched_by: "arXiv location in OpenAlex",
    });
    expect(jcdl.authors.length).toBeLessThanOrEqual(3);
    expect(jcdl.authors_total).toBe(4);
    const hits = await upstreamHits();
    // One free lookup, one list call: the short first page ends the listing.
    expect(hits.map((hit) => hit.path.split("?")[0])).toEqual([
      "/openalex/works/https://doi.org/10.48550%2Farxiv.2007.14454",
      "/openalex/works",
    ]);
    expect(hits[1]!.path).toContain("sort=cited_by_count:desc");
    expect(hits[1]!.path).toContain("cursor=*");
    expect(result.content[0]!.text).not.toContain("fake-openalex-key");
    expect(JSON.stringify(result)).not.toContain("api_key");
  });

  it("serves the same page again from the cache with its age, without asking OpenAlex", async () => {
    await callTool("papers_citations", { id: "2007.14454" });
    await resetUpstream();
    const again = structuredOf(await callTool("papers_citations", { id: "https://arxiv.org/abs/2007.14454" }));
    expect(again.served_from).toBe("cache");
    expect(again.cache_age_seconds).toBeGreaterThanOrEqual(0);
    expect(again.cached_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(again.total).toBe(3);
    expect(await upstreamHits()).toEqual([]);
  });

  it("lists what a paper cites, pages through it, and names the works that are arXiv papers", async () => {
    const first = structuredOf(
      await callTool("papers_citations", { id: "2007.14454", direction: "references", limit: 20 }),
    );
    expect(first).toMatchObject({ direction: "references", total: 41, next_start: 20 });
    expect(first.works[0]).toMatchObject({
      title: "Glove: Global Vectors for Word Representation",
      cited_by_count: 33199,
    });
    const second = structuredOf(
      await callTool("papers_citations", { id: "2007.14454", direction: "references", start: 20, limit: 20 }),
    );
    expect(second).toMatchObject({ start: 20, next_start: 40 });
    const last = structuredOf(
      await callTool("papers_citations", { id: "2007.14454", direction: "references", start: 40, limit: 20 }),
    );
    expect(last.works).toHaveLength(1);
    expect(last.next_start).toBeNull();
    expect(last.served_from).toBe("cache");
    // The whole listing cost one list call: the other pages were cut from its cached chunk.
    expect(await listCalls()).toHaveLength(1);
    const all = [...first.works, ...second.works, ...last.works];
    expect(new Set(all.map((work: { openalex_id: string }) => work.openalex_id)).size).toBe(41);
    const ours = all.filter((work: { arxiv_id: string | null }) => work.arxiv_id);
    expect(ours.map((work: { arxiv_id: string }) => work.arxiv_id).sort()).toEqual([
      "1109.2128",
      "1411.5279",
      "1503.05702",
      "1609.08144",
      "1806.03537",
      "1807.03977",
      "1904.06052",
    ]);
  });

  it("names a listed work found in the mirror by title, authors and year, for the page read only", async () => {
    // A mirror record for the cited work "Distributed Representations of Words and Phrases..." (no DOI in
    // OpenAlex, no arXiv location): hand-made from the sample's shape with the paper's real arXiv ID.
    const [template] = sampleRecords();
    await seedMirror([
      {
        ...template!,
        id: "1310.4546",
        style: "new",
        title: "Distributed Representations of Words and Phrases and their Compositionality",
        authors: "Tomas Mikolov, Ilya Sutskever, Kai Chen, Greg Corrado, Jeffrey Dean",
        versions: [Date.UTC(2013, 9, 16) / 1000],
        doi: null,
        journal_ref: null,
      },
      ...sampleRecords().slice(1, 200),
    ]);
    const page = structuredOf(
      await callTool("papers_citations", { id: "2007.14454", direction: "references", limit: 5 }),
    );
    expect(page.works[2]).toMatchObject({
      openalex_id: "W2153579005",
      arxiv_id: "1310.4546",
      matched_by: "title, authors and year in the arXiv mirror",
    });
    // Works past the page were not looked for by title yet; the cached chunk says how far it went.
    const [row] = await dbRows(
      "SELECT value FROM api_cache WHERE key = 'openalex:list:W3045921891:references:most_cited:0'",
    );
    expect(JSON.parse(row!.value as string).titles_resolved).toBe(5);
    const next = structuredOf(
      await callTool("papers_citations", { id: "2007.14454", direction: "references", start: 5, limit: 5 }),
    );
    expect(next.served_from).toBe("cache");
    const [after] = await dbRows(
      "SELECT value FROM api_cache WHERE key = 'openalex:list:W3045921891:references:most_cited:0'",
    );
    expect(JSON.parse(after!.value as string).titles_resolved).toBe(10);
  });

  it("sorts by newest and oldest with OpenAlex's own sort", async () => {
    await callTool("papers_citations", { id: "10.1145/3383583.3398584", sort: "newest" });
    await callTool("papers_citations", { id: "https://doi.org/10.1145/3383583.3398584", sort: "oldest" });
    const sorts = (await listCalls()).map((hit) => new URL(hit.path, FAKE).searchParams.get("sort"));
    expect(sorts).toEqual(["publication_date:desc", "publication_date:asc"]);
  });

  it("takes an NBER number, and resolves a citing work to an arXiv ID by its arXiv location", async () => {
    const page = structuredOf(await callTool("papers_citations", { id: "w10000" }));
    expect(page.paper).toMatchObject({
      id: "w10000",
      source: "nber",
      doi: "10.3386/w10000",
      openalex_id: "W1999999999",
    });
    expect(page.total).toBe(1);
    expect(page.works[0].arxiv_id).toBe("2304.13012");
  });

  it("a listing ends on an empty page, and on next_cursor null, without a call more", async () => {
    const emptyEnd = await callToolWith(
      "papers_citations",
      { id: "2401.00001", start: 390, limit: 20 },
      scenario("empty-end"),
    );
    const answer = structuredOf(emptyEnd.result);
    expect(answer.works).toHaveLength(10);
    expect(answer.next_start).toBeNull();
    expect(await listCalls()).toHaveLength(3);

    await resetUpstream();
    const nullEnd = await callToolWith(
      "papers_citations",
      { id: "2401.00002", start: 190, limit: 20 },
      scenario("null-end"),
    );
    expect(structuredOf(nullEnd.result)).toMatchObject({ next_start: null });
    expect(structuredOf(nullEnd.result).works).toHaveLength(10);
    expect(await listCalls()).toHaveLength(1);

    await resetUpstream();
    const recordedNull = structuredOf(await callTool("papers_citations", { id: "2312.07559" }));
    expect(recordedNull).toMatchObject({ total: 3, next_start: null });
    expect(await listCalls()).toHaveLength(1);
  });

  it("a cursor that never ends and 10,000 citing works stop at 10,000, and start past it is refused", async () => {
    const endless = await callToolWith(
      "papers_citations",
      { id: "2401.00003", start: 9_980, limit: 20 },
      scenario("endless-cursor"),
    );
    const page = structuredOf(endless.result);
    expect(page.total).toBe(10_000_000);
    expect(page.works).toHaveLength(20);
    expect(page.next_start).toBeNull();
    expect(page.notices.join(" ")).toContain("the first 10,000 in this order are listed");
    expect(await listCalls()).toHaveLength(50);

    await resetUpstream();
    const tenThousand = await callToolWith(
      "papers_citations",
      { id: "2401.00004", start: 9_990, limit: 20 },
      scenario("ten-thousand"),
    );
    expect(structuredOf(tenThousand.result).works).toHaveLength(10);

    const beyond = await callTool("papers_citations", { id: "2401.00004", start: 10_000 });
    expect(toolError(beyond).reason).toBe("invalid_argument");
  });

  it("a paper OpenAlex does not know yet is not_in_openalex (the recorded HTML 404), cached briefly", async () => {
    const result = await callTool("papers_citations", { id: "2501.99999" });
    const error = toolError(result);
    expect(error.reason).toBe("not_in_openalex");
    expect(error.retryable).toBe(true);
    expect(error.recovery).toMatch(/try again later/i);
    const [row] = await dbRows(
      "SELECT value, expires_at - fetched_at AS kept FROM api_cache WHERE key LIKE 'openalex:work:%'",
    );
    expect(JSON.parse(row!.value as string).work).toBeNull();
    await resetUpstream();
    expect(toolError(await callTool("papers_citations", { id: "2501.99999" })).reason).toBe("not_in_openalex");
    expect(await upstreamHits()).toEqual([]);
  });

  it("a work with a null title is listed as untitled, not dropped or failed", async () => {
    const { result } = await callToolWith("papers_citations", { id: "2401.00007" }, scenario("null-title"));
    const page = structuredOf(result);
    expect(page.works).toHaveLength(3);
    expect(page.works[1].title).toBeNull();
    expect(result.content[0]!.text).toContain("2. (untitled)");
    // The recorded null-title work as the paper looked up: its title is null, the count 0, and it is cached as such.
    expect(toolError(await callTool("papers_citations", { id: "10.9999/null-title" })).reason).toBe(
      "upstream_malformed",
    );
    const [work] = await dbRows("SELECT value FROM api_cache WHERE key = 'openalex:work:10.9999/null-title'");
    expect(JSON.parse(work!.value as string).work).toMatchObject({
      openalex_id: "W4234567890",
      title: null,
      cited_by_count: 0,
    });
    // Its citing list has no recording: the fake's plain 404 is not a list, so no list row is cached for it.
    expect(await dbRows("SELECT key FROM api_cache WHERE key LIKE 'openalex:list:W4234567890%'")).toEqual([]);
  });

  it.each([
    ["truncated-json", "upstream_malformed"],
    ["html-200", "upstream_malformed"],
    ["status-503", "upstream_unavailable"],
    ["lookup-404", "not_in_openalex"],
  ])("%s -> %s, and no list row is cached", async (name, reason) => {
    const { result } = await callToolWith("papers_citations", { id: "2401.00005" }, scenario(name));
    expect(toolError(result).reason).toBe(reason);
    expect(await dbRows("SELECT key FROM api_cache WHERE key LIKE 'openalex:list:%'")).toEqual([]);
  });

  it("a refused filter (400, and 403 as in 2025) is a typed invalid_request, not cached", async () => {
    for (const id of ["2312.07559", "10.1145/3383583.3398584"]) {
      const result = await callTool("papers_citations", { id, direction: "references" });
      const error = toolError(result);
      expect(error.reason).toBe("invalid_request");
      expect(error.message).toContain("is not a valid field");
    }
    expect(await dbRows("SELECT key FROM api_cache WHERE key LIKE 'openalex:list:%'")).toEqual([]);
  });

  it("a 429 spends the day: rate_limited with retry_after_ms until midnight, then cached pages still answer", async () => {
    await callTool("papers_citations", { id: "2007.14454" });
    const spent = await callToolWith("papers_citations", { id: "2401.00006" }, scenario("status-429"));
    const error = toolError(spent.result);
    expect(error.reason).toBe("rate_limited");
    expect(error.retry_after_ms).toBeGreaterThan(0);
    expect(error.retry_after_ms).toBeLessThanOrEqual(86_400_000);
    const [day] = await dbRows("SELECT used, exhausted_at FROM upstream_budget WHERE upstream = 'openalex'");
    expect(day!.exhausted_at).not.toBeNull();
    // Past the allowance nothing more is sent, and a cached page still answers.
    await resetUpstream();
    const cached = structuredOf(await callTool("papers_citations", { id: "2007.14454" }));
    expect(cached.served_from).toBe("cache");
    const uncached = await callTool("papers_citations", { id: "2007.14454", direction: "references" });
    expect(toolError(uncached).reason).toBe("rate_limited");
    expect(await listCalls()).toEqual([]);
  });

  it("counts list calls against the daily allowance and answers stale pages from the cache when it is spent", async () => {
    const vars = { OPENALEX_DAILY_LIST_CALLS: "1", OPENALEX_LIST_TTL_SECONDS: "0" };
    const first = await callToolWith("papers_citations", { id: "2007.14454" }, vars);
    expect(structuredOf(first.result).served_from).toBe("live");
    const stale = await callToolWith("papers_citations", { id: "2007.14454" }, vars);
    const page = structuredOf(stale.result);
    expect(page.served_from).toBe("cache");
    expect(page.notices.join(" ")).toMatch(/allowance for today is spent/);
    expect(await listCalls()).toHaveLength(1);
    expect(await dbRows("SELECT used, daily_limit FROM upstream_budget")).toEqual([{ used: 1, daily_limit: 1 }]);
  });

  it("without a key: server_misconfigured naming OPENALEX_API_KEY, and nothing sent", async () => {
    const { result } = await callToolWith("papers_citations", { id: "2007.14454" }, { OPENALEX_API_KEY: undefined });
    const error = toolError(result);
    expect(error.reason).toBe("server_misconfigured");
    expect(error.recovery).toContain("OPENALEX_API_KEY");
    expect(await upstreamHits()).toEqual([]);
  });

  it("a key OpenAlex refuses (the recorded 401) is server_misconfigured", async () => {
    const { result } = await callToolWith(
      "papers_citations",
      { id: "2007.14454" },
      { OPENALEX_API_KEY: "not-the-key" },
    );
    expect(toolError(result)).toMatchObject({ reason: "server_misconfigured" });
  });

  it("identical requests at once make one upstream request", async () => {
    await Promise.all([1, 2, 3].map(() => callTool("papers_citations", { id: "2007.14454" })));
    expect(await listCalls()).toHaveLength(1);
  });

  it.each(["", "not an id", "10.1/x y", "w", "2007.1445"])(
    "refuses %j as invalid_id or invalid_argument",
    async (id) => {
      const reason = toolError(await callTool("papers_citations", { id })).reason;
      expect(["invalid_id", "invalid_argument"]).toContain(reason);
      expect(await upstreamHits()).toEqual([]);
    },
  );

  it("the budget row is shared: its used count is exact after concurrent list calls", async () => {
    await Promise.all(
      ["2007.14454", "10.1145/3383583.3398584", "2312.07559"].map((id) => callTool("papers_citations", { id })),
    );
    const row = await env.DB.prepare("SELECT used FROM upstream_budget WHERE upstream = 'openalex'").first<{
      used: number;
    }>();
    expect(row!.used).toBe(await listCalls().then((calls) => calls.length));
  });

  it("/status shows today's list calls against the allowance", async () => {
    await callTool("papers_citations", { id: "2007.14454" });
    const status = await statusJson();
    expect(status.upstream_allowances.openalex).toMatchObject({
      key_configured: true,
      list_calls_used: 1,
      list_calls_per_day: 9000,
      exhausted_at: null,
    });
  });
});
