// /mcp/chatgpt's search (OpenAI's contract for ChatGPT connectors and deep research): one query over
// arXiv's mirror and NBER, results { id, title, url } as one JSON text item plus structuredContent,
// mixed by one relevance score; other clients' /mcp does not list it.

import { beforeEach, describe, expect, it } from "vitest";
import { mixByRelevance } from "../../src/sources/connector/search";
import { mcpCall, resetUpstream } from "../helpers";
import { connectorCall, connectorTool } from "../support/connector";
import { seedMirror } from "../mirror/driver";
import { seedNberMirror } from "../support/nber";

beforeEach(resetUpstream);

type Results = { results: { id: string; title: string; url: string }[] };

describe("search (/mcp/chatgpt)", () => {
  beforeEach(async () => {
    await seedMirror();
    await seedNberMirror();
  });

  it("is one of exactly two tools at /mcp/chatgpt, and not in /mcp's list", async () => {
    const listed = (await connectorCall("tools/list")).result.tools;
    expect(listed.map((tool: { name: string }) => tool.name)).toEqual(["search", "fetch"]);
    const search = listed[0];
    expect(Object.keys(search.inputSchema.properties)).toEqual(["query"]);
    expect(search.inputSchema.required).toEqual(["query"]);
    const full = (await mcpCall("tools/list")).message.result.tools.map((tool: { name: string }) => tool.name);
    expect(full).not.toContain("search");
    expect(full).not.toContain("fetch");
  });

  it("answers { results: [{ id, title, url }] } as one JSON text item and as structuredContent, from both sources", async () => {
    const result = await connectorTool("search", { query: "trade wars and the economic debate" });
    expect(result.isError).toBeFalsy();
    expect(result.content).toHaveLength(1);
    expect(result.content[0].type).toBe("text");
    const parsed = JSON.parse(result.content[0].text) as Results;
    expect(parsed).toEqual(result.structuredContent);
    for (const entry of parsed.results) {
      expect(Object.keys(entry).sort()).toEqual(["id", "title", "url"]);
      // Every url is the canonical page, so that ChatGPT cites it.
      if (entry.id.startsWith("arxiv:"))
        expect(entry.url).toBe(`https://arxiv.org/abs/${entry.id.slice("arxiv:".length)}`);
      else expect(entry.url).toBe(`https://www.nber.org/papers/${entry.id.slice("nber:".length)}`);
    }
    // The NBER paper the question names comes first, above arXiv's papers on other things.
    expect(parsed.results[0]).toEqual({
      id: "nber:w10000",
      title: "Trade Wars: The Exaggerated Impact of Trade in Economic Debate",
      url: "https://www.nber.org/papers/w10000",
    });
    expect(parsed.results.some((entry) => entry.id.startsWith("arxiv:"))).toBe(true);
    expect(parsed.results.length).toBeLessThanOrEqual(20);
  });

  it("puts arXiv's matching papers first for an arXiv question", async () => {
    const { structuredContent } = await connectorTool("search", { query: "prompt diphoton production cross sections" });
    expect((structuredContent as Results).results[0]!.id).toBe("arxiv:0704.0001");
  });

  it("mixes two rankings on the question's words: a title holding them all beats another source's first", () => {
    const mixed = mixByRelevance("minimum wage employment", [
      { id: "arxiv:1", title: "Spin chains at finite temperature", url: "", text: "spin chains", rank: 0 },
      { id: "arxiv:2", title: "Employment in physics", url: "", text: "careers", rank: 1 },
      { id: "nber:w4679", title: "Minimum Wage Effects on Employment", url: "", text: "", rank: 3 },
    ]);
    expect(mixed.map((entry) => entry.id)).toEqual(["nber:w4679", "arxiv:2", "arxiv:1"]);
  });

  it("still answers from one source when the other refuses the query", async () => {
    // NBER refuses a control character (invalid_query); arXiv is given the words alone.
    const result = await connectorTool("search", { query: "prompt diphoton\u0001 production" });
    expect(result.isError).toBeFalsy();
    const ids = (result.structuredContent as Results).results.map((entry) => entry.id);
    expect(ids[0]).toBe("arxiv:0704.0001");
    expect(ids.every((id) => id.startsWith("arxiv:"))).toBe(true);
  });

  it("refuses an empty or unknown argument with a typed error", async () => {
    const empty = await connectorTool("search", { query: "" });
    expect(JSON.parse(empty.content[0].text).error.reason).toBe("invalid_argument");
    const extra = await connectorTool("search", { q: "trade" });
    expect(JSON.parse(extra.content[0].text).error.message).toContain("did you mean `query`?");
  });
});
