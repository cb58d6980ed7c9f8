// /mcp/chatgpt's fetch (OpenAI's contract): { id, title, text, url, metadata } as one JSON text
// item, the text once (no structuredContent), within the answer budget, continued by metadata.next_id.

import { beforeEach, describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/sources/text/tokens";
import { resetUpstream } from "../helpers";
import { connectorTool } from "../support/connector";
import { seedMirror } from "../mirror/driver";
import { seedNberMirror } from "../support/nber";

beforeEach(resetUpstream);

type Fetched = { id: string; title: string; text: string; url: string; metadata: Record<string, unknown> };
const fetched = (result: { content: { text: string }[] }) => JSON.parse(result.content[0]!.text) as Fetched;

describe("fetch (/mcp/chatgpt)", () => {
  beforeEach(async () => {
    await seedMirror();
    await seedNberMirror();
  });

  it("gives an arXiv paper's metadata and text once, within 20,000 tokens, and the id that continues it", async () => {
    const result = await connectorTool("fetch", { id: "arxiv:2501.11120v1" });
    expect(result.isError, result.content[0].text).toBeFalsy();
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toHaveLength(1);
    expect(estimateTokens(JSON.stringify(result))).toBeLessThan(20_000);
    const first = fetched(result);
    expect(first).toMatchObject({
      id: "arxiv:2501.11120v1",
      title: "Tell me about yourself: LLMs are aware of their learned behaviors",
      url: "https://arxiv.org/abs/2501.11120",
      metadata: { source: "arXiv", full_text: true, text_source: "arxiv_html" },
    });
    expect(first.text.startsWith(first.title)).toBe(true);
    expect(first.text).toContain("## 1 Introduction");
    const nextId = first.metadata.next_id as string;
    expect(nextId).toMatch(/^arxiv:2501\.11120v1\?start=\d+$/);
    const second = fetched(await connectorTool("fetch", { id: nextId }));
    expect(second.id).toBe(nextId);
    // The next piece starts where the first one's text stopped; it has no metadata header.
    expect(second.text.startsWith(first.title)).toBe(false);
    expect(second.metadata.characters).toMatch(new RegExp(`^${nextId.split("=")[1]}-`));
  });

  it("gives an NBER paper's text from its PDF, and takes the w-number as search gives it", async () => {
    const paper = fetched(await connectorTool("fetch", { id: "nber:w10000" }));
    expect(paper).toMatchObject({ id: "nber:w10000", url: "https://www.nber.org/papers/w10000" });
    expect(paper.metadata).toMatchObject({ source: "NBER", nber_id: "w10000", full_text: true });
    expect(paper.text.length).toBeGreaterThan(2_000);
  });

  it("falls back to the metadata, saying why, when the text cannot be had now", async () => {
    // NBER withholds w33509's PDF (403): the answer is the record, with the reason.
    const paper = fetched(await connectorTool("fetch", { id: "nber:w33509" }));
    expect(paper.metadata).toMatchObject({ full_text: false, text_missing: "not_downloadable_now" });
    expect(paper.text).toContain("The full text is not available now");
  });

  it("refuses an id search does not give, with a typed error and a recovery", async () => {
    for (const id of ["bogus", "arxiv:w10000", "nber:2501.11120"]) {
      const error = JSON.parse((await connectorTool("fetch", { id })).content[0].text).error;
      expect(error.reason, id).toBe("invalid_id");
      expect(error.recovery).toContain("arxiv:<arXiv ID> or nber:w<number>");
    }
  });
});
