// /mcp in both MCP eras, through the Worker's own fetch: what 2026-07-28 clients are promised
// (capabilities, cache hints), our own refusals worded in the era that asked, and the header
// disagreement of claude-code#93290. The clients' view of the same is test/e2e/mcp-eras.test.ts.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { LOCAL_FREE_REQUESTS, REFUSAL_CODE } from "../src/http/limits";
import { LIST_TTL_MS, TAXONOMY_TTL_MS } from "../src/mcp/cache-hints";
import { envelope, modernPost } from "./support/mcp-eras";
import { MCP_HEADERS, mcpMessage } from "./support/mcp-http";

async function post(
  init: { headers: Record<string, string>; body: string },
  { ip = "192.0.2.1", vars = {}, path = "/mcp" }: { ip?: string; vars?: Record<string, unknown>; path?: string } = {},
) {
  const ctx = createExecutionContext();
  const request = new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { host: "localhost", "cf-connecting-ip": ip, ...init.headers },
    body: init.body,
  }) as unknown as Parameters<typeof worker.fetch>[0];
  const response = await worker.fetch(request, { ...env, ...vars } as Env, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { status: response.status, headers: response.headers, message: mcpMessage(text) };
}

const legacyPost = (method: string, params: object = {}, id: number | string = 1) => ({
  headers: { ...MCP_HEADERS },
  body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
});

/** A Rate Limiting binding that refuses everything. */
const refuseAll = { limit: async () => ({ success: false }) };

const PUBLIC_LIST = { ttlMs: LIST_TTL_MS, cacheScope: "public" };

describe("what a 2026-07-28 client is promised", () => {
  it("server/discover promises no list_changed notifications (a per-request Worker sends none), at /mcp and /mcp/chatgpt", async () => {
    const { message } = await post(modernPost("server/discover"));
    const { capabilities } = message.result;
    expect(capabilities.tools.listChanged).toBe(false);
    expect(capabilities.resources.listChanged).toBe(false);
    expect(capabilities.prompts.listChanged).toBe(false);
    const connector = await post(modernPost("server/discover"), { path: "/mcp/chatgpt" });
    expect(connector.message.result.capabilities).toEqual({ tools: { listChanged: false } });
    // The 2025 era's initialize says the same.
    const init = await post(
      legacyPost("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      }),
    );
    expect(init.message.result.capabilities.tools.listChanged).toBe(false);
  });

  it("server/discover and the lists may be kept by any cache for an hour; 2025-era lists carry no cache fields", async () => {
    for (const method of [
      "server/discover",
      "tools/list",
      "prompts/list",
      "resources/list",
      "resources/templates/list",
    ]) {
      const { message } = await post(modernPost(method));
      expect(message.result, method).toMatchObject(PUBLIC_LIST);
    }
    const connector = await post(modernPost("tools/list"), { path: "/mcp/chatgpt" });
    expect(connector.message.result).toMatchObject(PUBLIC_LIST);
    const legacy = await post(legacyPost("tools/list"));
    expect(legacy.message.result.tools.length).toBeGreaterThan(10);
    expect(legacy.message.result).not.toHaveProperty("ttlMs");
    expect(legacy.message.result).not.toHaveProperty("cacheScope");
  });

  it("the category taxonomy is public for a day; a caller's watches and library are private and never kept", async () => {
    for (const uri of ["arxiv://categories", "arxiv://categories/cs.CL"]) {
      const { message } = await post(modernPost("resources/read", { uri }));
      expect(message.result, uri).toMatchObject({ ttlMs: TAXONOMY_TTL_MS, cacheScope: "public" });
    }
    for (const uri of ["papers://watches", "papers://library"]) {
      const request = modernPost("resources/read", { uri });
      const { message } = await post({ ...request, headers: { ...request.headers, "x-papers-workspace": "eras" } });
      expect(message.result, uri).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    }
  });
});

describe("our refusals in each era", () => {
  const download = { name: "nber_download_paper", arguments: { paper_id: "w10000" } };

  it("a refused tool call: 2025 as it always was; 2026-07-28 a complete result naming the server, under the request's id", async () => {
    const vars = { RATE_LIMIT_EXPENSIVE: refuseAll };
    const legacy = await post(legacyPost("tools/call", download, 5), { ip: "192.0.2.10", vars });
    expect(legacy.status).toBe(200);
    expect(legacy.message.id).toBe(5);
    expect(Object.keys(legacy.message.result).sort()).toEqual(["content", "isError"]);
    const modern = await post(modernPost("tools/call", download, { id: "call-6" }), { ip: "192.0.2.10", vars });
    expect(modern.status).toBe(200);
    expect(modern.headers.get("retry-after")).toBe("60");
    expect(modern.message.id).toBe("call-6");
    expect(modern.message.result).toMatchObject({
      isError: true,
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "papers-mcp" } },
    });
    expect(JSON.parse(modern.message.result.content[0].text).error.reason).toBe("rate_limited");
  });

  it("the endpoint's rate limit: 2025 id null and -32000; 2026-07-28 the request's id and a code outside the reserved range", async () => {
    const vars = { RATE_LIMIT_ENDPOINT: refuseAll };
    const ip = "192.0.2.11";
    // A client's first requests of a minute skip the binding.
    for (let i = 0; i < LOCAL_FREE_REQUESTS; i++) await post(legacyPost("ping"), { ip, vars });
    const legacy = await post(legacyPost("tools/list", {}, 7), { ip, vars });
    expect(legacy.status).toBe(429);
    expect(legacy.message).toMatchObject({ id: null, error: { code: -32000, data: { reason: "rate_limited" } } });
    const modern = await post(modernPost("tools/list", {}, { id: 8 }), { ip, vars });
    expect(modern.status).toBe(429);
    expect(modern.message).toMatchObject({ id: 8, error: { code: REFUSAL_CODE, data: { reason: "rate_limited" } } });
  });

  it("a body over the cap: the header says which era asked, and an unread request has no id (never null)", async () => {
    const vars = { MCP_MAX_BODY_BYTES: "1024" };
    const big = { query: "x".repeat(2000) };
    const legacy = await post(legacyPost("tools/call", { name: "arxiv_search_papers", arguments: big }), { vars });
    expect(legacy.status).toBe(413);
    expect(legacy.message).toMatchObject({ id: null, error: { code: -32000, data: { reason: "request_too_large" } } });
    const modern = await post(modernPost("tools/call", { name: "arxiv_search_papers", arguments: big }), { vars });
    expect(modern.status).toBe(413);
    expect(modern.message.error).toMatchObject({ code: REFUSAL_CODE, data: { reason: "request_too_large" } });
    expect(modern.message).not.toHaveProperty("id");
  });
});

describe("claude-code#93290: a 2025-11-25 header on a 2026-07-28 body", () => {
  it("is served as the 2026-07-28 request its body is", async () => {
    const call = modernPost("tools/call", { name: "arxiv_list_categories", arguments: { group: "econ" } }, { id: 9 });
    const { status, message } = await post({
      ...call,
      headers: { ...call.headers, "mcp-protocol-version": "2025-11-25" },
    });
    expect(status).toBe(200);
    expect(message.id).toBe(9);
    expect(message.result).toMatchObject({ resultType: "complete", structuredContent: { count: 3 } });
  });

  it("any other disagreement is still refused with -32020 (HeaderMismatch), as the revision requires", async () => {
    for (const [header, version] of [
      ["2025-06-18", "2026-07-28"],
      ["2026-07-28", "v999.0.0"],
    ]) {
      const { status, message } = await post(modernPost("tools/list", {}, { header, meta: envelope(version) }));
      expect(status, `${header} / ${version}`).toBe(400);
      expect(message.error.code).toBe(-32020);
    }
  });
});
