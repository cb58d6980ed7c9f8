// arxiv_search_papers, arxiv_get_metadata and arxiv://paper through /mcp, against recorded feeds.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { FAKE, callTool, callToolWith, mcpCall, resetUpstream, toolError, upstreamHits } from "./helpers";

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
    expect(await upstreamHits()).toHaveLength(1);
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
    const hit = (await upstreamHits())[0]!;
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
    const paths = (await upstreamHits()).map((hit) => decodeURIComponent(hit.path));
    expect(paths[1]).toContain("id_list=2401.99999&");
  });

  it("names the latest version when arXiv will not serve a superseded pre-2007 version (HTTP 500)", async () => {
    const error = toolError(await callTool("arxiv_get_metadata", { paper_ids: ["hep-th/9901001v1"] }));
    expect(error.reason).toBe("version_not_served");
    expect(error.message).toContain("hep-th/9901001v2");
    const paths = (await upstreamHits()).map((hit) => decodeURIComponent(hit.path));
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

describe("arxiv://paper/{paperId}", () => {
  it("reads a paper, with a legacy ID's slash percent-encoded", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://paper/astro-ph%2F0601001" });
    expect(JSON.parse(message.result.contents[0].text)).toMatchObject({ base_id: "astro-ph/0601001" });
  });

  it("fails empty_id for a blank ID", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://paper/%20" });
    expect(message.error.data).toMatchObject({ reason: "empty_id" });
  });

  it("fails invalid_id and no_match as JSON-RPC errors", async () => {
    const invalid = await mcpCall("resources/read", { uri: "arxiv://paper/banana" });
    expect(invalid.message.error.data).toMatchObject({ reason: "invalid_id" });
    const missing = await mcpCall("resources/read", { uri: "arxiv://paper/2401.99999" });
    expect([-32002, -32602]).toContain(missing.message.error.code);
    expect(missing.message.error.message).toContain("2401.99999");
  });

  it("a malformed percent-encoding is a typed invalid-params error on every template, never an internal error", async () => {
    for (const [uri, reason] of [
      ["arxiv://paper/%E0%A4%A", "invalid_id"],
      ["nber://paper/%E0%A4%A", "invalid_id"],
      ["arxiv://categories/%E0%A4%A", "invalid_category"],
    ]) {
      const { message } = await mcpCall("resources/read", { uri });
      expect(message.error, uri).toMatchObject({ code: -32602, data: { reason } });
    }
  });

  it("an upstream that is down or rate-limits is a retryable internal error with its reason, not invalid params", async () => {
    const { default: worker } = await import("../src/index");
    const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
    const ctx = createExecutionContext();
    const request = new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        host: "localhost",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "resources/read",
        params: { uri: "arxiv://paper/1605.08386" },
      }),
    });
    const vars = { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/status-429`, ARXIV_MIRROR_ENABLED: "false" };
    const response = await worker.fetch(request as never, { ...env, ...vars } as Env, ctx);
    await waitOnExecutionContext(ctx);
    const text = await response.text();
    const message = JSON.parse(
      text.startsWith("event:")
        ? text
            .split("\n")
            .find((line) => line.startsWith("data: "))!
            .slice(6)
        : text,
    );
    expect(message.error).toMatchObject({ code: -32603, data: { reason: "rate_limited", retryable: true } });
    expect(message.error.data.retry_after_ms).toBeGreaterThan(0);
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
