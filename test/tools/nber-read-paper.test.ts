// nber_read_paper: the PDF's text, paged by characters and by tokens, then served from R2.

import { beforeEach, describe, expect, it } from "vitest";
import { answerOf, callTool, resetUpstream, toolError, upstreamHits, callToolOk } from "../helpers";

beforeEach(resetUpstream);

describe("token budgets", () => {
  it("pages by max_tokens, each page within its budget, the pages adding up to the text", async () => {
    const whole = await callToolOk("nber_read_paper", { paper_id: "w10000", max_characters: null });
    let text = "";
    let start: number | null = 0;
    let pages = 0;
    while (start !== null) {
      const page = await callToolOk("nber_read_paper", { paper_id: "w10000", start, max_tokens: 2_000 });
      expect(page.tokens).toBeLessThanOrEqual(2_000);
      expect(page.start).toBe(start);
      text += page.text;
      start = page.next_start;
      pages++;
    }
    expect(text).toBe(whole.text);
    expect(pages).toBeGreaterThan(5);
  });
});

describe("nber_read_paper", () => {
  it("reads the PDF's text, then serves pages from R2", async () => {
    const first = await callTool("nber_read_paper", { paper_id: "w10000", max_characters: 1000 });
    expect(answerOf(first)).toMatchObject({
      paper_id: "w10000",
      source: "pdf_text",
      served_from: "live",
      start: 0,
      next_start: 1000,
    });
    // The stand-in PDF is a real arXiv paper (see test/fixtures/content-routes.json).
    expect(answerOf(first).text).toContain("Existence and stability of circular orbits");
    const second = await callTool("nber_read_paper", { paper_id: "w10000", start: 1000, max_characters: 1000 });
    expect(answerOf(second)).toMatchObject({ served_from: "cache", start: 1000 });
    expect(await upstreamHits()).toHaveLength(1);
  });

  it("a PDF that does not parse is pdf_extraction_failed", async () => {
    expect(toolError(await callTool("nber_read_paper", { paper_id: "w10002" })).reason).toBe("pdf_extraction_failed");
  });
});
