// The /mcp endpoint through the Worker's own fetch handler: the protocol, tools/list, bad input, deployment
// settings and the HTTP routes. Each tool's and resource's contract is in test/tools/ and test/resources/.

import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { app } from "../src/app";
import type { ConfigVars } from "../src/config";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../src/sources/text/tokens";
import { callTool, mcpCall, toolError } from "./helpers";
import { sampleRecords, seedMirror } from "./mirror/driver";
import { seedNberMirror } from "./support/nber";

// tools/list's budget (issue 32): under 14 KB with every tool, papers_citations (issue 35)
// included; no tool takes over 1.5 KB.
const TOOLS_LIST_BUDGET = 14_000;
const TOOL_BUDGET = 1_536;
/** The tools whose answer is one large text, sent once in content: no outputSchema. */
const TEXT_PAYLOAD_TOOLS = ["arxiv_read_paper", "nber_read_paper", "papers_export_citations"];

describe("protocol", () => {
  it("initializes with instructions and the server's capabilities", async () => {
    const { status, message } = await mcpCall("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    });
    expect(status).toBe(200);
    expect(message.result.serverInfo.name).toBe("papers-mcp");
    expect(message.result.capabilities.tools).toBeDefined();
    expect(message.result.capabilities.resources).toBeDefined();
    expect(message.result.instructions).toContain("arxiv_list_categories");
    expect(message.result.instructions).toContain("recovery");
  });

  it("lists the tool with a bounded, described input schema and an output schema", async () => {
    const { message } = await mcpCall("tools/list");
    const tool = message.result.tools.find((t: { name: string }) => t.name === "arxiv_list_categories");
    // Only what the spec does not already imply: a read-only tool's idempotence goes without saying.
    expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(tool.inputSchema.properties.group).toMatchObject({ type: "string", maxLength: 40 });
    expect(tool.inputSchema.properties.group.description).toBeTruthy();
    expect(Object.keys(tool.outputSchema.properties)).toEqual(["group", "count", "categories"]);
    const watch = message.result.tools.find((t: { name: string }) => t.name === "papers_watch");
    expect(watch.annotations).toEqual({ readOnlyHint: false, openWorldHint: false, idempotentHint: false });
  });

  it("keeps tools/list under its budget: no $schema, output schemas as field names, no tool over 1.5 KB", async () => {
    const { message } = await mcpCall("tools/list");
    const json = JSON.stringify(message.result);
    expect(json).not.toContain("$schema");
    expect(json.length).toBeLessThan(TOOLS_LIST_BUDGET);
    for (const tool of message.result.tools) {
      expect(JSON.stringify(tool).length, tool.name).toBeLessThan(TOOL_BUDGET);
      if (TEXT_PAYLOAD_TOOLS.includes(tool.name)) {
        expect(tool.outputSchema, tool.name).toBeUndefined();
        continue;
      }
      for (const field of Object.values(tool.outputSchema.properties)) expect(field).toEqual({});
    }
  });

  it("describes every input field of every tool", async () => {
    const { message } = await mcpCall("tools/list");
    const undescribed = message.result.tools.flatMap((tool: { name: string; inputSchema: { properties?: object } }) =>
      Object.entries(tool.inputSchema.properties ?? {})
        .filter(([, field]) => !(field as { description?: string }).description)
        .map(([field]) => `${tool.name}.${field}`),
    );
    expect(undescribed).toEqual([]);
  });

  it("answers the same schema to every request (built once per isolate)", async () => {
    const first = JSON.stringify((await mcpCall("tools/list")).message.result);
    const second = JSON.stringify((await mcpCall("tools/list")).message.result);
    expect(second).toBe(first);
  });
});

describe("every answer within an agent's budget (issue 32)", () => {
  // The worst records of the sample: the many-author collaboration papers, the longest abstracts.
  const MANY_AUTHORS = ["1411.4413", "2103.11058", "1310.8286"];
  const tokensOf = (result: unknown) => estimateTokens(JSON.stringify(result));

  it("keeps lookups, category lists, NBER pages and every resource under 20,000 tokens", async () => {
    await seedMirror();
    await seedNberMirror();
    const longest = [...sampleRecords()]
      .sort((a, b) => b.abstract.length + (b.comment?.length ?? 0) - a.abstract.length - (a.comment?.length ?? 0))
      .slice(0, 7)
      .map((record) => record.id);
    const calls: [string, Record<string, unknown>][] = [
      ["arxiv_get_metadata", { paper_ids: [...MANY_AUTHORS, ...longest] }],
      ["arxiv_get_metadata", { paper_ids: MANY_AUTHORS, full_authors: true }],
      ["arxiv_list_categories", {}],
      ["nber_search_papers", { query: "trade", per_page: 100 }],
      ["papers_export_citations", { ids: MANY_AUTHORS, format: "csl-json", full_authors: true }],
    ];
    for (const [name, args] of calls) {
      const result = await callTool(name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBeFalsy();
      expect(tokensOf(result), `${name} ${JSON.stringify(args)}`).toBeLessThan(20_000);
    }
    const { message: listed } = await mcpCall("resources/list");
    const uris = [
      ...listed.result.resources.map((resource: { uri: string }) => resource.uri),
      "arxiv://categories/hep-ex",
      ...MANY_AUTHORS.map((id) => `arxiv://paper/${id}`),
      "nber://paper/w10000",
    ];
    for (const uri of uris) {
      const { message } = await mcpCall("resources/read", { uri }, { headers: { "x-papers-workspace": "budget" } });
      expect(message.result, `${uri}: ${JSON.stringify(message.error)}`).toBeDefined();
      expect(tokensOf(message.result), uri).toBeLessThan(20_000);
    }
    // Every resource there is: the four listed and the three templates (arXiv category, arXiv paper, NBER paper).
    expect(uris).toHaveLength(9);
  });
});

describe("bad input never crashes", () => {
  it("malformed JSON -> JSON-RPC parse error, HTTP 400", async () => {
    const { status, message } = await mcpCall("", undefined, { rawBody: "{not json" });
    expect(status).toBe(400);
    expect(message.error.code).toBe(-32700);
  });

  it("a JSON-RPC body that is not a request -> invalid request, not a 500", async () => {
    const { status, message } = await mcpCall("", undefined, { rawBody: JSON.stringify({ hello: "world" }) });
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(message.error.code).toBeLessThan(0);
  });

  it("unknown tool -> invalid params protocol error", async () => {
    const { status, message } = await mcpCall("tools/call", { name: "no_such_tool", arguments: {} });
    expect(status).toBe(200);
    expect(message.error.code).toBe(-32602);
    expect(message.error.message).toContain("no_such_tool");
  });

  it.each([
    ["a number", { group: 42 }],
    ["an array", { group: ["cs"] }],
    ["an empty string", { group: "" }],
    ["a huge string", { group: "x".repeat(100_000) }],
  ])("wrong argument type (%s) -> typed invalid_argument", async (_label, args) => {
    const result = await callTool("arxiv_list_categories", args);
    const error = toolError(result);
    expect(error.reason).toBe("invalid_argument");
    expect(error.message).toContain("group");
    expect(error.recovery).toBeTruthy();
    expect(result.content[0]!.text.length).toBeLessThan(1000);
  });

  it("an argument name the tool does not have -> typed invalid_argument naming the closest one", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      [
        "papers_resolve_reference",
        { text: "Neumark and Wascher (1994), Minimum wage effects on employment and school enrollment" },
        "`text` is not an argument of papers_resolve_reference; did you mean `reference`?",
      ],
      ["arxiv_search_papers", { query: "all:quantum", max_result: 5 }, "did you mean `max_results`?"],
      [
        "arxiv_list_categories",
        { grup: "econ" },
        "`grup` is not an argument of arxiv_list_categories; did you mean `group`?",
      ],
      ["arxiv_get_metadata", { id: "0704.0001" }, "did you mean `paper_ids`?"],
      [
        "arxiv_list_categories",
        { zzzzzzzzzz: 1 },
        "`zzzzzzzzzz` is not an argument of arxiv_list_categories. Its arguments: group.",
      ],
    ];
    for (const [tool, args, message] of cases) {
      const error = toolError(await callTool(tool, args));
      expect(error.reason).toBe("invalid_argument");
      expect(error.message).toContain(message);
      expect(error.recovery).toContain("only its own arguments");
    }
  });

  it("unknown method -> method not found", async () => {
    const { message } = await mcpCall("papers/teleport", {});
    expect(message.error.code).toBe(-32601);
  });

  it("a foreign Origin is refused with 403", async () => {
    const { status, message } = await mcpCall("tools/list", undefined, { headers: { origin: "https://evil.example" } });
    expect(status).toBe(403);
    expect(message.error.message).toMatch(/origin/i);
  });

  it("a foreign Host is refused with 403", async () => {
    const response = await exports.default.fetch("http://localhost/mcp", {
      method: "POST",
      headers: {
        host: "evil.example",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(403);
  });
});

describe("deployment settings", () => {
  const ping = (host: string, vars: ConfigVars) =>
    app.fetch(
      new Request(`http://${host}/mcp`, {
        method: "POST",
        headers: {
          host,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      }),
      { ...env, ...vars },
      createExecutionContext(),
    );

  it("accepts a custom domain only once MCP_ALLOWED_HOSTNAMES lists it", async () => {
    expect((await ping("papers.example.org", {})).status).toBe(403);
    expect((await ping("papers.example.org", { MCP_ALLOWED_HOSTNAMES: "papers.example.org" })).status).toBe(200);
    expect((await ping("other.example.org", { MCP_ALLOWED_HOSTNAMES: "papers.example.org" })).status).toBe(403);
  });

  it("answers 503 server_misconfigured, naming the variable, when a var does not parse", async () => {
    const response = await ping("localhost", { ARXIV_API_BASE_URL: "ftp://nope" });
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { reason: string; message: string } };
    expect(body.error.reason).toBe("server_misconfigured");
    expect(body.error.message).toContain("ARXIV_API_BASE_URL");
  });
});

describe("HTTP routes", () => {
  it("/health reports version, D1 and mirror counts", async () => {
    const response = await exports.default.fetch("http://localhost/health");
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ name: "papers-mcp", status: "ok", d1: { reachable: true } });
    expect(body.d1.mirrors.map((m: { source: string }) => m.source)).toEqual(["arxiv", "nber"]);
    expect(body.d1.mirrors[0]).toMatchObject({ status: "idle", records: 0 });
  });

  it("/ is a landing page with the MCP URL, client configs and the tool list", async () => {
    const response = await exports.default.fetch("http://papers.example.org/");
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain("http://papers.example.org/mcp");
    expect(html).toContain("mcp-remote");
    expect(html).toContain("streamable-http");
    expect(html).toContain("arxiv_list_categories");
  });

  it("unknown routes are a JSON 404 with a hint", async () => {
    const response = await exports.default.fetch("http://localhost/nope");
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.recovery).toContain("/mcp");
  });
});
