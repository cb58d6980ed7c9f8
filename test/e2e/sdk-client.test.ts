// A real MCP client (the SDK's Streamable HTTP client) against wrangler dev.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { answerOf } from "../support/mcp-http.ts";

const mcpUrl = inject("mcpUrl");
const errorReason = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  JSON.parse((result.content as { text: string }[])[0]!.text).error.reason as string;
let client: Client;

beforeAll(async () => {
  client = new Client({ name: "e2e-sdk-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
});

afterAll(async () => {
  await client.close();
});

describe("MCP SDK client over Streamable HTTP", () => {
  it("initializes and receives the server instructions", () => {
    expect(client.getServerVersion()?.name).toBe("papers-mcp");
    expect(client.getInstructions()).toContain("arxiv_list_categories");
  });

  it("lists the prompts apart from the tools, and each names the tools an agent calls in order", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual([
      "literature_search",
      "read_paper",
      "check_bibliography",
      "who_cites",
      "set_watch",
    ]);
    expect(prompts.find((prompt) => prompt.name === "read_paper")?.arguments).toEqual([
      { name: "paper_id", description: "arXiv ID or link, or NBER w-number", required: true },
      { name: "focus", description: "what to look for, e.g. the method's limits", required: false },
    ]);
    const { tools } = await client.listTools();
    const toolNames = tools.map((tool) => tool.name);
    const asked = {
      literature_search: { question: "Do transformers generalise out of distribution?", since: "2020" },
      read_paper: { paper_id: "1706.03762", focus: "training cost" },
      check_bibliography: { bibliography: "@article{a, title={Attention Is All You Need}, eprint={1706.03762}}" },
      who_cites: { paper_id: "1706.03762" },
      set_watch: { topic: "ti:diffusion AND cat:cs.CV" },
    };
    for (const [name, args] of Object.entries(asked)) {
      const { messages } = await client.getPrompt({ name, arguments: args });
      const text = (messages[0]!.content as { text: string }).text;
      const named = [...text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)]
        .map((match) => match[0])
        .filter((word) => toolNames.includes(word));
      expect(named.length, name).toBeGreaterThanOrEqual(2);
      for (const value of Object.values(args)) expect(text, name).toContain(value.slice(0, 20));
    }
    const missing = await client.getPrompt({ name: "read_paper", arguments: {} }).catch((error: Error) => error);
    expect(missing).toBeInstanceOf(Error);
  });

  it("lists and calls arxiv_list_categories", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("arxiv_list_categories");
    const result = await client.callTool({ name: "arxiv_list_categories", arguments: { group: "q-fin" } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { count: number; categories: { code: string }[] };
    expect(structured.count).toBe(9);
    expect(structured.categories.every((c) => c.code.startsWith("q-fin."))).toBe(true);
  });

  it("searches arXiv and looks a paper up (fake upstream, then the cache)", async () => {
    const search = await client.callTool({
      name: "arxiv_search_papers",
      arguments: { query: "testing", max_results: 10 },
    });
    expect(search.isError).toBeFalsy();
    const page = search.structuredContent as { query: string; returned: number; next_start: number | null };
    expect(page).toMatchObject({ query: "testing", returned: 10, next_start: 10 });
    const first = await client.callTool({
      name: "arxiv_get_metadata",
      arguments: { paper_ids: ["https://arxiv.org/abs/1707.08567"] },
    });
    const second = await client.callTool({
      name: "arxiv_get_metadata",
      arguments: { paper_ids: ["arXiv:1707.08567"] },
    });
    expect((first.structuredContent as { papers: { id: string }[] }).papers[0]!.id).toBe("1707.08567v1");
    expect((second.structuredContent as { papers: { served_from: string }[] }).papers[0]!.served_from).toBe("cache");
    const resource = await client.readResource({ uri: "arxiv://paper/astro-ph%2F0601001" });
    expect(JSON.parse((resource.contents[0] as { text: string }).text).base_id).toBe("astro-ph/0601001");
  });

  it("reads a paper through wrangler dev: ar5iv says not converted, the PDF is extracted by unpdf", async () => {
    const result = await client.callTool({
      name: "arxiv_read_paper",
      arguments: { paper_id: "1512.03905v1", max_characters: 2000 },
    });
    expect(result.isError).toBeFalsy();
    // The page's text comes once, in content (no structuredContent): what any client shows the model.
    expect(result.structuredContent).toBeUndefined();
    const shown = (result.content as { type: string; text: string }[]).map((item) => item.text).join("\n\n");
    expect(shown).toContain("Compositeness of Near Threshold Quasi-Bound States");
    expect(shown).toMatch(/More: call again with start=2000\.$/);
    expect(shown.split("Compositeness of Near Threshold Quasi-Bound States")).toHaveLength(2);
    // The other fields, for programs, in _meta.
    const page = answerOf(result) as { source: string; text: string; next_start: number | null };
    expect(page.source).toBe("pdf_text");
    expect(page.next_start).toBe(2000);
  });

  it("sends progress notifications on a long read when the client asks for them, and none when it does not", async () => {
    const events: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: "arxiv_read_paper", arguments: { paper_id: "hep-th/9108004v1", max_tokens: 500 } },
      undefined,
      {
        onprogress: (progress) => events.push(progress),
      },
    );
    expect(result.isError).toBeFalsy();
    const messages = events.map((event) => event.message);
    expect(messages).toContain("fetching the PDF");
    expect(messages.some((m) => /^PDF \d+\.\d MB fetched$/.test(m ?? ""))).toBe(true);
    const pages = events.filter((event) => /^page \d+ of \d+ extracted$/.test(event.message ?? ""));
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.at(-1)!.progress).toBe(pages.at(-1)!.total);
    // A second read comes from R2: nothing long happens, so nothing is reported.
    const quiet: unknown[] = [];
    await client.callTool(
      { name: "arxiv_read_paper", arguments: { paper_id: "hep-th/9108004v1", max_tokens: 500 } },
      undefined,
      { onprogress: (p) => quiet.push(p) },
    );
    expect(quiet).toEqual([]);
  });

  it("keeps a client's watches and library in its research agent, reached through wrangler dev", async () => {
    const mine = new Client({ name: "e2e-agent-client", version: "1.0.0" });
    await mine.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { "x-papers-workspace": "e2e-lab" } },
      }),
    );
    try {
      const created = await mine.callTool({
        name: "papers_watch",
        arguments: { action: "create", name: "lattice", arxiv_query: "ti:lattice" },
      });
      expect(created.isError).toBeFalsy();
      const check = await mine.callTool({ name: "papers_watch", arguments: { action: "check" } });
      expect((check.structuredContent as { news: { new_count: number }[] }).news[0]!.new_count).toBe(0);
      await mine.callTool({ name: "papers_library", arguments: { action: "add", ids: ["0704.0001"], tags: ["e2e"] } });
      const listed = await mine.callTool({ name: "papers_library", arguments: { action: "list", tag: "e2e" } });
      expect((listed.structuredContent as { papers: { id: string }[] }).papers.map((paper) => paper.id)).toEqual([
        "0704.0001",
      ]);
      const resource = await mine.readResource({ uri: "papers://watches" });
      expect(JSON.parse((resource.contents[0] as { text: string }).text).watches[0].name).toBe("lattice");
      // The shared client has no workspace: it sees none of this.
      const anonymous = await client.callTool({ name: "papers_watch", arguments: { action: "list" } });
      expect(errorReason(anonymous)).toBe("no_identity");
    } finally {
      await mine.close();
    }
  });

  it("downloads an NBER paper and fetches it from the link it returns", async () => {
    const result = await client.callTool({ name: "nber_download_paper", arguments: { paper_id: "w10000" } });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent as { url: string; size: number; sha256: string };
    expect(out.url).toBe(`${new URL(mcpUrl).origin}/files/nber/w10000.pdf`);
    expect((result.content as { type: string }[]).map((c) => c.type)).toEqual(["text", "resource_link"]);
    const file = await fetch(out.url);
    expect(file.status).toBe(200);
    expect((await file.arrayBuffer()).byteLength).toBe(out.size);
  });

  it("reads the category resources", async () => {
    const all = await client.readResource({ uri: "arxiv://categories" });
    expect(JSON.parse((all.contents[0] as { text: string }).text).categories).toHaveLength(155);
    const one = await client.readResource({ uri: "arxiv://categories/stat.ML" });
    expect(JSON.parse((one.contents[0] as { text: string }).text)).toMatchObject({
      code: "stat.ML",
      name: "Machine Learning",
    });
  });

  it("gets a typed error for an unknown group and for a wrong argument type", async () => {
    const unknown = await client.callTool({ name: "arxiv_list_categories", arguments: { group: "alchemy" } });
    expect(unknown.isError).toBe(true);
    expect(errorReason(unknown)).toBe("invalid_group");
    const wrong = await client.callTool({ name: "arxiv_list_categories", arguments: { group: { $ne: null } } });
    expect(wrong.isError).toBe(true);
    expect(errorReason(wrong)).toBe("invalid_argument");
  });

  it("gets a JSON-RPC error for an unknown tool", async () => {
    await expect(client.callTool({ name: "arxiv_teleport", arguments: {} })).rejects.toThrow(/arxiv_teleport/);
  });
});

describe("raw HTTP against /mcp", () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body,
    });

  it("malformed JSON -> 400 with a JSON-RPC parse error", async () => {
    const response = await post("{oops");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it("a foreign Origin -> 403", async () => {
    const response = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      origin: "https://attacker.example",
    });
    expect(response.status).toBe(403);
  });

  it("a foreign Host (DNS rebinding) -> 403", async () => {
    // fetch() will not forge Host; node:http will.
    const { request } = await import("node:http");
    const url = new URL(mcpUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: {
            host: "attacker.example",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    });
    expect(status).toBe(403);
  });
});

describe("ChatGPT's search and fetch at /mcp/chatgpt, with the SDK client", () => {
  let connector: Client;
  beforeAll(async () => {
    connector = new Client({ name: "e2e-connector-client", version: "1.0.0" });
    await connector.connect(new StreamableHTTPClientTransport(new URL(`${mcpUrl}/chatgpt`)));
  });
  afterAll(async () => {
    await connector.close();
  });

  it("lists exactly search and fetch, and answers both in OpenAI's documented shapes", async () => {
    const { tools } = await connector.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["search", "fetch"]);
    const search = await connector.callTool({ name: "search", arguments: { query: "testing" } });
    expect(search.isError, JSON.stringify(search.content)).toBeFalsy();
    const content = search.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    const { results } = JSON.parse(content[0]!.text) as { results: { id: string; title: string; url: string }[] };
    expect(search.structuredContent).toEqual({ results });
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) expect(Object.keys(result).sort()).toEqual(["id", "title", "url"]);
    expect(results[0]!.id).toMatch(/^(arxiv:|nber:w)/);
    // A paper whose text the fake upstream has (a recorded PDF; ar5iv says not converted).
    const fetched = await connector.callTool({ name: "fetch", arguments: { id: "arxiv:1512.03905v1" } });
    expect(fetched.isError, JSON.stringify(fetched.content).slice(0, 300)).toBeFalsy();
    expect(fetched.structuredContent).toBeUndefined();
    const document = JSON.parse((fetched.content as { text: string }[])[0]!.text);
    expect(Object.keys(document).sort()).toEqual(["id", "metadata", "text", "title", "url"]);
    expect(document).toMatchObject({ id: "arxiv:1512.03905v1", url: "https://arxiv.org/abs/1512.03905" });
    expect(document.text).toContain("Compositeness of Near Threshold Quasi-Bound States");
    expect(document.text.length).toBeGreaterThan(100);
  });
});
