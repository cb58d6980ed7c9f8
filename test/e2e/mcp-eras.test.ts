// Both MCP eras against wrangler dev, as real clients see them: the v2 SDK client
// (@modelcontextprotocol/client 2.4.0) negotiating by itself and pinned to 2026-07-28, next to the
// 1.x SDK client of the 2025 era; every tool called in both; a refusal of ours in both; and raw
// POSTs for what a client library would never send.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { envelope, MODERN, modernPost } from "../support/mcp-eras.ts";
import { MCP_HEADERS, mcpMessage } from "../support/mcp-http.ts";

const mcpUrl = inject("mcpUrl");
// This file's clients count as their own (the per-client limits): one address for the calls, one
// whose expensive-call allowance the refusal test uses up.
const CALLER = "198.18.59.1";
const SPENT = "198.18.59.2";

type ToolResult = { isError?: boolean; content: unknown; structuredContent?: unknown };
type CallTool = (call: { name: string; arguments: Record<string, unknown> }) => Promise<ToolResult>;

const legacyClient = async (ip: string, path = "") => {
  const client = new LegacyClient({ name: "e2e-eras-2025", version: "1.0.0" });
  const headers = { "cf-connecting-ip": ip, "x-papers-workspace": "e2e-eras" };
  await client.connect(new LegacyTransport(new URL(mcpUrl + path), { requestInit: { headers } }));
  return client;
};

const modernClient = async (ip: string, mode: "auto" | { pin: string }, path = "") => {
  const client = new ModernClient({ name: "e2e-eras-2026", version: "1.0.0" }, { versionNegotiation: { mode } });
  const headers = { "cf-connecting-ip": ip, "x-papers-workspace": "e2e-eras" };
  await client.connect(new ModernTransport(new URL(mcpUrl + path), { requestInit: { headers } }));
  return client;
};

// A second call is answered from the cache, which says how old it is: not a difference of eras.
const CACHE_FIELDS = new Set(["cache_age_seconds", "cached_at"]);

/** The outcome of a call, comparable across eras: ok with its structured fields, or the error's reason. */
function outcome(result: ToolResult): string {
  const first = (result.content as { text?: string }[])[0]?.text ?? "";
  if (result.isError) return `error:${JSON.parse(first).error.reason}`;
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  const fields = Object.keys(structured ?? {}).filter((field) => !CACHE_FIELDS.has(field));
  return `ok:${structured ? fields.sort().join(",") : "text"}`;
}

// One call per tool, answered from the fake upstream or the local stores. The papers read here are
// ones no other end-to-end test reads: those test a first read (progress, the PDF fetched).
const CALLS: Record<string, Record<string, unknown>> = {
  arxiv_search_papers: { query: "testing", max_results: 10 },
  arxiv_get_metadata: { paper_ids: ["1707.08567"] },
  arxiv_read_paper: { paper_id: "1905.00506v2", max_characters: 500 },
  arxiv_list_categories: { group: "econ" },
  nber_search_papers: { query: "artificial intelligence" },
  nber_get_paper_info: { paper_id: "w10000" },
  nber_download_paper: { paper_id: "w10000" },
  nber_read_paper: { paper_id: "w10000", max_characters: 500 },
  papers_export_citations: { ids: ["1707.08567"], format: "bibtex" },
  papers_resolve_reference: { reference: "arXiv:1707.08567" },
  papers_check_bibliography: { bibliography: "@article{a, title={Compositeness}, eprint={1512.03905}}" },
  // One entry: each resolved entry may wait its turn at arXiv (a request per 3 s).
  arxiv_get_references: { paper_id: "cs/9912018v1", max_results: 1 },
  papers_find_in_paper: { paper_id: "1905.00506v2", query: "results" },
  papers_watch: { action: "list" },
  papers_library: { action: "list" },
  papers_citations: { id: "1707.08567" },
};
const CONNECTOR_CALLS: Record<string, Record<string, unknown>> = {
  search: { query: "testing" },
  fetch: { id: "arxiv:1905.00506v2" },
};

async function outcomes(call: CallTool, calls: Record<string, Record<string, unknown>>) {
  const seen: Record<string, string> = {};
  for (const [name, args] of Object.entries(calls)) seen[name] = outcome(await call({ name, arguments: args }));
  return seen;
}

describe("the v2 SDK client (@modelcontextprotocol/client 2.4.0)", () => {
  let auto: ModernClient;
  let pinned: ModernClient;
  beforeAll(async () => {
    auto = await modernClient(CALLER, "auto");
    pinned = await modernClient(CALLER, { pin: MODERN });
  });
  afterAll(async () => {
    await auto?.close();
    await pinned?.close();
  });

  it("negotiates 2026-07-28 by itself (versionNegotiation auto) and learns no list_changed is coming", () => {
    for (const client of [auto, pinned]) {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getServerVersion()?.name).toBe("papers-mcp");
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    }
    expect(auto.getInstructions()).toContain("arxiv_list_categories");
  });

  it("lists and reads what the 2025 client lists and reads", async () => {
    const legacy = await legacyClient(CALLER);
    try {
      const names = async (client: { listTools(): Promise<{ tools: { name: string }[] }> }) =>
        (await client.listTools()).tools.map((tool) => tool.name);
      expect(await names(auto)).toEqual(await names(legacy));
      expect((await auto.listPrompts()).prompts.length).toBe((await legacy.listPrompts()).prompts.length);
      const taxonomy = await auto.readResource({ uri: "arxiv://categories/stat.ML" });
      expect(JSON.parse((taxonomy.contents[0] as { text: string }).text)).toMatchObject({ code: "stat.ML" });
    } finally {
      await legacy.close();
    }
  });

  it("every tool, called in both eras, answers the same way (the 2026 client validates every result)", async () => {
    const legacy = await legacyClient(CALLER);
    try {
      const listed = (await legacy.listTools()).tools.map((tool) => tool.name).sort();
      expect(Object.keys(CALLS).sort(), "a tool without a call here").toEqual(listed);
      const before = await outcomes((call) => legacy.callTool(call) as Promise<ToolResult>, CALLS);
      const after = await outcomes((call) => pinned.callTool(call) as Promise<ToolResult>, CALLS);
      expect(after).toEqual(before);
      // Only these answer with an error here: the recordings have no OpenAlex work for the paper.
      const failed = Object.entries(before).filter(([, answer]) => answer.startsWith("error:"));
      expect(failed).toEqual([["papers_citations", "error:not_in_openalex"]]);
    } finally {
      await legacy.close();
    }
    const connector2025 = await legacyClient(CALLER, "/chatgpt");
    const connector2026 = await modernClient(CALLER, { pin: MODERN }, "/chatgpt");
    try {
      const before = await outcomes((call) => connector2025.callTool(call) as Promise<ToolResult>, CONNECTOR_CALLS);
      expect(await outcomes((call) => connector2026.callTool(call) as Promise<ToolResult>, CONNECTOR_CALLS)).toEqual(
        before,
      );
    } finally {
      await connector2025.close();
      await connector2026.close();
    }
  }, 120_000);
});

/** Calls an expensive tool from `ip` until its per-minute allowance is spent (30 a minute). */
async function spendExpensiveCalls(ip: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const call = legacyPost("tools/call", { name: "nber_download_paper", arguments: { paper_id: "nope" } });
    const { message } = await post(call, { "cf-connecting-ip": ip });
    if (JSON.parse(message.result.content[0].text).error.reason === "rate_limited") return;
  }
  throw new Error(`${ip}: the expensive-call limit never refused`);
}

describe("a refusal of ours, in both eras", () => {
  it("a client past its expensive-call limit gets the same readable tool error from a 2025 and a 2026 client", async () => {
    const legacy = await legacyClient(SPENT);
    const modern = await modernClient(SPENT, { pin: MODERN });
    try {
      const read = { name: "nber_download_paper", arguments: { paper_id: "w10000" } };
      await spendExpensiveCalls(SPENT);
      const before = (await legacy.callTool(read)) as ToolResult;
      // Before issue 59 the 2026 client threw here: the refusal had no resultType.
      const after = (await modern.callTool(read)) as ToolResult;
      expect(outcome(before)).toBe("error:rate_limited");
      expect(outcome(after)).toBe("error:rate_limited");
      expect(after.content).toEqual(before.content);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});

function post(init: { headers: Record<string, string>; body: string }, extra: Record<string, string> = {}) {
  return fetch(mcpUrl, {
    method: "POST",
    headers: { "cf-connecting-ip": CALLER, ...init.headers, ...extra },
    body: init.body,
  }).then(async (response) => ({ status: response.status, message: mcpMessage(await response.text()) }));
}

function legacyPost(method: string, params: object = {}) {
  return { headers: { ...MCP_HEADERS }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) };
}

describe("raw HTTP in the 2026-07-28 era", () => {
  it("a protocol-version header that disagrees with the body -> 400, -32020 (HeaderMismatch), the request's id", async () => {
    const { status, message } = await post(modernPost("tools/list", {}, { id: 21, header: "2025-06-18" }));
    expect(status).toBe(400);
    expect(message).toMatchObject({ id: 21, error: { code: -32020 } });
  });

  it("claude-code#93290's pair (a 2025-11-25 header, a 2026-07-28 body) is served as 2026-07-28", async () => {
    const call = modernPost("tools/call", { name: "arxiv_list_categories", arguments: { group: "econ" } }, { id: 22 });
    const { status, message } = await post({
      ...call,
      headers: { ...call.headers, "mcp-protocol-version": "2025-11-25" },
    });
    expect(status).toBe(200);
    expect(message).toMatchObject({ id: 22, result: { resultType: "complete", structuredContent: { count: 3 } } });
  });

  it("a 2026-07-28 header without _meta -> 400, -32602 naming what is missing", async () => {
    const { status, message } = await post(modernPost("tools/list", {}, { id: 23, meta: null }));
    expect(status).toBe(400);
    expect(message.error.code).toBe(-32602);
    expect(message.error.message).toContain("_meta");
  });

  it("an unknown method -> 404, -32601; GET (the 2025 era's stream) -> 405", async () => {
    const { status, message } = await post(modernPost("papers/teleport", {}, { id: 24, meta: envelope() }));
    expect(status).toBe(404);
    expect(message).toMatchObject({ id: 24, error: { code: -32601 } });
    const get = await fetch(mcpUrl, { headers: { accept: "text/event-stream", "mcp-protocol-version": MODERN } });
    expect(get.status).toBe(405);
    await get.text();
  });

  it("a body over the cap -> 413 with a code outside JSON-RPC's reserved range and no id (the body was never read)", async () => {
    const big = modernPost("tools/call", { name: "arxiv_search_papers", arguments: { query: "x".repeat(300_000) } });
    const { status, message } = await post(big);
    expect(status).toBe(413);
    expect(message.error.code).toBe(-31000);
    expect(message.error.data.reason).toBe("request_too_large");
    expect(message).not.toHaveProperty("id");
  });
});
