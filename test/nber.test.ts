// NBER: IDs, search (mirror and live), paper info with its cache, downloads to R2 and /files,
// reading, the resource, the logs and the cron refresh. NBER answers come from hand-made
// fixtures in the documented shapes (no recordings exist); mirror rows are real nberwp records.
import { env, exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { nberHarvester } from "../src/harvest/nber";
import { parseNberId } from "../src/sources/nber/ids";
import { countRows } from "../src/store/nber-logs";
import { ftsQuery, upsertMirror } from "../src/store/nber-mirror";
import { FAKE, callTool, callToolWith, mcpCall, resetUpstream, toolError, upstreamHits } from "./helpers";
import { appContext } from "../src/context";

// Real records from data/nberwp (CC0).
const SEED = [
  { id: "w0001", title: "Education, Information, and Efficiency", authors: ["Finis Welch"], date: "1973-06" },
  {
    id: "w10000",
    title: "Trade Wars: The Exaggerated Impact of Trade in Economic Debate",
    authors: ["Richard B Freeman"],
    date: "2003-10",
  },
  {
    id: "w25000",
    title: "The Intergenerational Transmission of Human Capital: Evidence from the Golden Age of Upward Mobility",
    authors: ["David Card", "Lowell J Taylor", "Ciprian Domnisoru"],
    date: "2018-09",
  },
  {
    id: "w29623",
    title: "Worker Beliefs About Outside Options",
    authors: ["Christopher P Roth", "Benjamin Schoefer", "Simon Jager", "Nina Roussille"],
    date: "2021-12",
  },
  {
    id: "w29624",
    title: "The Political Economy of Anti-Bribery Enforcement",
    authors: ["Lauren H Cohen", "Bo Li"],
    date: "2021-12",
  },
].map((paper) => ({ ...paper, abstract: null, source: "nberwp" as const }));

const seed = () => upsertMirror(env.DB, SEED);
const rows = async (sql: string) => (await env.DB.prepare(sql).all()).results as Record<string, unknown>[];

beforeEach(resetUpstream);

describe("NBER IDs", () => {
  it.each([
    ["w25000", "w25000"],
    ["W25000", "w25000"],
    ["25000", "w25000"],
    ["w1", "w0001"],
    [" w0001 ", "w0001"],
    ["h0137", "h0137"],
    ["https://www.nber.org/papers/w25000", "w25000"],
    ["http://nber.org/papers/w25000/", "w25000"],
    ["https://www.nber.org/papers/w25000.pdf", "w25000"],
    ["https://www.nber.org/system/files/working_papers/w25000/w25000.pdf", "w25000"],
    ["https://www.nber.org/papers/w25000?utm=x", "w25000"],
  ])("accepts %j as %s", (input, expected) => {
    const parsed = parseNberId(input);
    expect(parsed.ok && parsed.id.id).toBe(expected);
  });

  it.each([
    "",
    "w",
    "w0",
    "0",
    "100000",
    "w-1",
    "x25000",
    "../w1",
    "w1/../../etc",
    "w25000.pdf/../x",
    "https://evil.example/papers/w1",
    "w1\u0000",
    "w 1",
    "２５０００",
    "1e5",
  ])("rejects %j", (input) => {
    expect(parseNberId(input).ok).toBe(false);
  });
});

describe("nber_search_papers", () => {
  it("answers from the mirror when the dates lie within it, and logs the search", async () => {
    await seed();
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
    const [log] = await rows("SELECT * FROM query_log");
    expect(log).toMatchObject({
      surface: "nber_search_papers",
      keyword: "trade wars",
      result_count: 1,
      served_from: "mirror",
    });
  });

  it("finds authors and respects inclusive date bounds on month-precision records", async () => {
    await seed();
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
    await seed();
    const result = await callTool("nber_search_papers", { query: "w25000" });
    expect(result.structuredContent).toMatchObject({ served_from: "mirror", total: 1 });
  });

  it("asks NBER's API for recent papers: plain authors, month dates, plain abstracts", async () => {
    await seed();
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
    await seed();
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
    await seed();
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
    await seed();
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

describe("nber_get_paper_info", () => {
  it("parses the paper page, caches it, and shows the cache's age on the next call", async () => {
    const live = await callTool("nber_get_paper_info", { paper_id: "https://www.nber.org/papers/w10000" });
    expect(live.structuredContent).toMatchObject({
      id: "w10000",
      title: "Trade Wars: The Exaggerated Impact of Trade in Economic Debate",
      authors: ["Richard B. Freeman"],
      date: "2003-10-26",
      doi: "10.3386/w10000",
      pdf_url: "https://www.nber.org/system/files/working_papers/w10000/w10000.pdf",
      topics: ["Labor Economics", "Labor Relations"],
      programs: ["International Trade and Investment", "Labor Studies"],
      jel_codes: ["F16", "J51"],
      served_from: "live",
    });
    expect(live.structuredContent.abstract).toMatch(/^The rules governing trade and capital flows/);
    expect(live.structuredContent.abstract).toContain("race to the bottom'.");
    expect(live.structuredContent.published_version).toContain("Placeholder Journal of Hand-made Tests");

    const cached = await callTool("nber_get_paper_info", { paper_id: "10000", include_all: false });
    expect(cached.structuredContent).toMatchObject({ served_from: "cache" });
    expect(cached.structuredContent.cache_age_seconds).toBeGreaterThanOrEqual(0);
    expect(cached.structuredContent.topics).toBeUndefined();
    expect(await upstreamHits()).toHaveLength(1);

    const refreshed = await callTool("nber_get_paper_info", { paper_id: "W10000", refresh: true });
    expect(refreshed.structuredContent.served_from).toBe("live");
    expect(await rows("SELECT served_from FROM info_log ORDER BY id")).toEqual([
      { served_from: "live" },
      { served_from: "cache" },
      { served_from: "live" },
    ]);
    expect(await rows("SELECT paper_id, fetch_count FROM info_cache")).toEqual([
      { paper_id: "w10000", fetch_count: 2 },
    ]);
    // The page's abstract enriches the mirror.
    expect((await rows("SELECT abstract FROM nber_papers WHERE id = 'w10000'"))[0]!.abstract).toMatch(
      /^The rules governing/,
    );
  });

  it("decodes entities and drops tags in the abstract", async () => {
    const info = await callTool("nber_get_paper_info", { paper_id: "w33509" });
    expect(info.structuredContent.abstract).toBe(
      "Placeholder abstract of a hand-made page: this is not NBER's text & stands in for it.",
    );
    expect(info.structuredContent.authors).toEqual([
      "Menaka Hampole",
      "Dimitris Papanikolaou",
      "Lawrence D.W. Schmidt",
      "Bryan Seegmiller",
    ]);
  });

  it("an unknown paper is no_match; a page without metadata is upstream_malformed; neither is cached", async () => {
    expect(toolError(await callTool("nber_get_paper_info", { paper_id: "w99999" })).reason).toBe("no_match");
    expect(toolError(await callTool("nber_get_paper_info", { paper_id: "w10002" })).reason).toBe("upstream_malformed");
    expect(await countRows(env.DB, "info_cache")).toBe(0);
    expect(await rows("SELECT paper_id, served_from, error FROM info_log ORDER BY id")).toEqual([
      { paper_id: "w99999", served_from: null, error: "no_match" },
      { paper_id: "w10002", served_from: null, error: "upstream_malformed" },
    ]);
  });

  it("a bad ID is invalid_id, with nothing logged and no request", async () => {
    expect(toolError(await callTool("nber_get_paper_info", { paper_id: "../../etc/passwd" })).reason).toBe(
      "invalid_id",
    );
    expect(await countRows(env.DB, "info_log")).toBe(0);
    expect(await upstreamHits()).toHaveLength(0);
  });

  it("reads nber://paper/{paperId}", async () => {
    const { message } = await mcpCall("resources/read", { uri: "nber://paper/w10000" });
    expect(JSON.parse(message.result.contents[0].text)).toMatchObject({ id: "w10000", served_from: "live" });
    const bad = await mcpCall("resources/read", { uri: "nber://paper/banana" });
    expect(bad.message.error.data).toMatchObject({ reason: "invalid_id" });
  });
});

describe("nber_download_paper and /files", () => {
  it("stores the PDF once in R2 and hands out a link with size and sha256", async () => {
    const first = await callTool("nber_download_paper", { paper_id: "w10000" });
    const out = first.structuredContent;
    expect(out).toMatchObject({
      paper_id: "w10000",
      url: "http://localhost/files/nber/w10000.pdf",
      filename: "w10000.pdf",
      served_from: "live",
    });
    const object = await env.BLOBS.get("nber/pdf/w10000.pdf");
    const bytes = new Uint8Array(await object!.arrayBuffer());
    expect(out.size).toBe(bytes.byteLength);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(out.sha256).toBe(digest);
    expect(first.content[1]).toMatchObject({ type: "resource_link", uri: out.url, mimeType: "application/pdf" });

    const second = await callTool("nber_download_paper", { paper_id: "10000" });
    expect(second.structuredContent).toMatchObject({ served_from: "cache", sha256: digest });
    expect(await upstreamHits()).toHaveLength(1);
    expect(await rows("SELECT status, size FROM download_log ORDER BY id")).toEqual([
      { status: "stored", size: bytes.byteLength },
      { status: "cached", size: bytes.byteLength },
    ]);

    const file = await exports.default.fetch("http://localhost/files/nber/w10000.pdf");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(file.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="w10000.pdf"');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
    const etag = file.headers.get("etag")!;
    const again = await exports.default.fetch("http://localhost/files/nber/w10000.pdf", {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
  });

  it("a cached download is described from R2's metadata without reading the PDF; an old copy without its digest is digested as a stream", async () => {
    const first = (await callTool("nber_download_paper", { paper_id: "w10000" })).structuredContent;
    let gets = 0;
    const blobs = new Proxy(env.BLOBS, {
      get(target, property, receiver) {
        if (property === "get") gets++;
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const cached = await callToolWith("nber_download_paper", { paper_id: "w10000" }, { BLOBS: blobs });
    expect(cached.result.structuredContent).toMatchObject({
      served_from: "cache",
      size: first.size,
      sha256: first.sha256,
    });
    expect(gets).toBe(0);
    // A copy stored without the digest in its metadata (as early versions did).
    const bytes = await (await env.BLOBS.get("nber/pdf/w10000.pdf"))!.arrayBuffer();
    await env.BLOBS.put("nber/pdf/w10000.pdf", bytes, { httpMetadata: { contentType: "application/pdf" } });
    const old = await callTool("nber_download_paper", { paper_id: "w10000" });
    expect(old.structuredContent).toMatchObject({ served_from: "cache", size: first.size, sha256: first.sha256 });
  });

  it("/files answers preconditions as HTTP says (412 for a failed If-Match, 304 for not modified), and HEAD reads no body", async () => {
    await callTool("nber_download_paper", { paper_id: "w10000" });
    const url = "http://localhost/files/nber/w10000.pdf";
    const etag = (await exports.default.fetch(url, { method: "HEAD" })).headers.get("etag")!;
    const status = async (init: RequestInit) => {
      const response = await exports.default.fetch(url, init);
      await response.arrayBuffer();
      return response.status;
    };
    expect(await status({ headers: { "if-match": '"not-this-one"' } })).toBe(412);
    expect(await status({ method: "HEAD", headers: { "if-match": '"not-this-one"' } })).toBe(412);
    expect(await status({ headers: { "if-match": etag } })).toBe(200);
    expect(await status({ headers: { "if-match": "*" } })).toBe(200);
    expect(await status({ headers: { "if-unmodified-since": "Mon, 01 Jan 2001 00:00:00 GMT" } })).toBe(412);
    expect(await status({ method: "HEAD", headers: { "if-none-match": etag } })).toBe(304);
    expect(await status({ headers: { "if-modified-since": new Date(Date.now() + 60_000).toUTCString() } })).toBe(304);
    expect(await status({ headers: { "if-none-match": '"other"' } })).toBe(200);
    // HEAD: the size and the validators from the object's metadata, and R2's get() never called.
    let gets = 0;
    const blobs = new Proxy(env.BLOBS, {
      get(target, property, receiver) {
        if (property === "get") gets++;
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const { default: worker } = await import("../src/index");
    const { createExecutionContext } = await import("cloudflare:test");
    const head = await worker.fetch(
      new Request(url, { method: "HEAD" }) as never,
      { ...env, BLOBS: blobs } as Env,
      createExecutionContext(),
    );
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(1000);
    expect(head.headers.get("last-modified")).toMatch(/GMT$/);
    expect(head.body).toBeNull();
    expect(gets).toBe(0);
  });

  it.each([
    "/files/nber/w20000.pdf",
    "/files/nber/..%2F..%2Fsecret.pdf",
    "/files/nber/w10000",
    "/files/nber/arxiv%2Fpdf%2Fx.pdf",
  ])("%s is a 404", async (path) => {
    const response = await exports.default.fetch(`http://localhost${path}`);
    expect(response.status).toBe(404);
  });

  it("NBER's 403 becomes not_downloadable_now, stores nothing, and is logged", async () => {
    const error = toolError(await callTool("nber_download_paper", { paper_id: "w33509" }));
    expect(error).toMatchObject({ reason: "not_downloadable_now", retryable: true });
    expect(await env.BLOBS.head("nber/pdf/w33509.pdf")).toBeNull();
    expect(await rows("SELECT status FROM download_log")).toEqual([{ status: "not_downloadable_now" }]);
  });
});

describe("nber_read_paper", () => {
  it("reads the PDF's text, then serves pages from R2", async () => {
    const first = await callTool("nber_read_paper", { paper_id: "w10000", max_characters: 1000 });
    expect(first.structuredContent).toMatchObject({
      paper_id: "w10000",
      source: "pdf_text",
      served_from: "live",
      start: 0,
      next_start: 1000,
    });
    // The stand-in PDF is a real arXiv paper (see test/fixtures/content-routes.json).
    expect(first.structuredContent.text).toContain("Existence and stability of circular orbits");
    const second = await callTool("nber_read_paper", { paper_id: "w10000", start: 1000, max_characters: 1000 });
    expect(second.structuredContent).toMatchObject({ served_from: "cache", start: 1000 });
    expect(await upstreamHits()).toHaveLength(1);
  });

  it("a PDF that does not parse is pdf_extraction_failed", async () => {
    expect(toolError(await callTool("nber_read_paper", { paper_id: "w10002" })).reason).toBe("pdf_extraction_failed");
  });
});

describe("mirror refresh (cron + queue)", () => {
  it("walks NBER's newest papers until it meets one the mirror has", async () => {
    await seed();
    await nberHarvester.onPage(appContext(env), { source: "nber", run_id: "test", cursor: "1" }, 1);
    const ids = (await rows("SELECT id FROM nber_papers ORDER BY id")).map((row) => row["id"]);
    expect(ids).toEqual(["w0001", "w10000", "w25000", "w29623", "w29624", "w33451", "w33509"]);
    const [state] = await rows("SELECT status, records, pages FROM harvest_state WHERE source = 'nber'");
    expect(state).toEqual({ status: "done", records: 7, pages: 1 });
    const hit = new URL((await upstreamHits())[0]!.path, FAKE);
    expect(hit.searchParams.get("sortBy")).toBe("public_date");
  });

  it("the FTS index follows inserts and updates", async () => {
    await seed();
    await upsertMirror(env.DB, [{ ...SEED[1]!, abstract: "globalization and labor standards" }]);
    const result = await callTool("nber_search_papers", { query: "globalization", end_date: "2020-01-01" });
    expect(result.structuredContent.papers.map((p: { id: string }) => p.id)).toEqual(["w10000"]);
    const check = await env.DB.prepare(
      "INSERT INTO nber_papers_fts(nber_papers_fts, rank) VALUES ('integrity-check', 1)",
    ).run();
    expect(check.success).toBe(true);
  });
});
