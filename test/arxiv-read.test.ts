// arxiv_read_paper against recorded HTML and PDFs: content, structure, paging, caching,
// fallbacks and hostile inputs.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { htmlToDocument } from "../src/sources/arxiv/read/html";
import { pdfToDocument } from "../src/sources/text/pdf";
import { PapersError } from "../src/errors";
import { flateContentPdf } from "./support/pdf";
import { fixtureResponse } from "./support/fixtures";
import { FAKE, callTool, callToolWith, resetUpstream, toolError, upstreamHits } from "./helpers";

beforeEach(resetUpstream);

const read = async (args: Record<string, unknown>) => {
  const result = await callTool("arxiv_read_paper", args);
  if (result.isError) throw new Error(result.content[0]!.text);
  return result.structuredContent;
};

describe("arXiv HTML (LaTeXML) -> text", () => {
  it("keeps a known sentence, headings with numbers, TeX maths (not doubled) and the bibliography", async () => {
    const page = await read({ paper_id: "https://arxiv.org/html/2501.11120v1", max_characters: null });
    expect(page).toMatchObject({
      paper_id: "2501.11120v1",
      source: "arxiv_html",
      served_from: "live",
      revision_unconfirmed: false,
      truncated: false,
      next_start: null,
    });
    expect(page.title).toBe("Tell me about yourself: LLMs are aware of their learned behaviors");
    const text: string = page.text;
    expect(text).toContain(
      "We study behavioral self-awareness — an LLM’s ability to articulate its behaviors without requiring in-context examples.",
    );
    expect(text).toContain("## 1 Introduction");
    expect(text).toContain("### 3.1 Finetuning on multiple-choice responses (economic decisions)");
    expect(text).toContain("$z\\in Z$");
    expect(text).not.toContain("z∈Z"); // the MathML rendering of the same formula
    expect(text).toContain("| Economic decisions (Section 3.1) |");
    expect(text).toContain("Table 1: Overview of experiments");
    expect(text).toContain("[Footnote 1: We replicate some of our experiments on open-weight models");
    expect(text).toMatch(/\n48\. /);
    expect(text).not.toMatch(/<script|ltx_|bootstrap\.bundle|html2canvas|\n{3,}/);
  });

  it("gives an outline whose offsets point at the headings", async () => {
    const page = await read({ paper_id: "2501.11120v1", max_characters: null });
    const entry = page.outline.find((e: { id: string }) => e.id === "S3");
    expect(entry).toMatchObject({ level: 2, title: "3 Awareness of behaviors" });
    expect(page.text.slice(entry.offset)).toMatch(/^## 3 Awareness of behaviors\n/);
    const bibliography = page.outline.find((e: { title: string }) => e.title === "References");
    expect(bibliography).toBeDefined();
    for (const e of page.outline) expect(page.text.slice(e.offset, e.offset + 1)).toBe("#");
  });

  it("turns display maths into $$...$$ from alttext (arXiv's LaTeXML sample)", async () => {
    const doc = await htmlToDocument(
      (await fixtureResponse("html/latexml_2012.02205_arxiv-view-as-html-sample.html")).body!,
      {
        maxBytes: 30e6,
        maxChars: 3e6,
      },
    );
    expect(doc.text).toContain("$${\\bf\\it u}\\cdot{\\bf\\it f^{\\prime}}=d^{\\prime},$$");
    expect(doc.outline.length).toBeGreaterThan(3);
    expect(doc.text).not.toMatch(/\$\$\s*\$\$/);
  });
});

describe("paging, sections and caching", () => {
  it("pages by a token budget with start/next_start; the first page alone carries the outline; the pages add up to the text", async () => {
    const whole = await read({ paper_id: "2501.11120v1", max_characters: null });
    const first = await read({ paper_id: "2501.11120v1" });
    // The default budget is 10,000 estimated tokens, cut at a line break.
    expect(first.tokens).toBeLessThanOrEqual(10_000);
    expect(first.tokens).toBeGreaterThan(8_000);
    expect(first.text.endsWith("\n")).toBe(true);
    expect(first).toMatchObject({
      start: 0,
      next_start: first.text.length,
      truncated: true,
      total_characters: whole.total_characters,
    });
    expect(first.outline.length).toBeGreaterThan(50);
    let text = first.text;
    let next = first.next_start;
    while (next !== null) {
      const page = await read({ paper_id: "2501.11120v1", start: next });
      expect(page.outline).toBeUndefined();
      text += page.text;
      next = page.next_start;
    }
    expect(text).toBe(whole.text);
  });

  it("a second read and every next page come from R2 without touching arXiv", async () => {
    await read({ paper_id: "2501.11120v1" });
    const hitsAfterFirst = (await upstreamHits()).length;
    const again = await read({ paper_id: "arXiv:2501.11120v1", start: 40_000 });
    expect(again.served_from).toBe("cache");
    expect((await upstreamHits()).length).toBe(hitsAfterFirst);
    expect(await env.BLOBS.head("arxiv/text/2501.11120v1.arxiv_html.json")).not.toBeNull();
  });

  it("returns one section by id or by title", async () => {
    const byId = await read({ paper_id: "2501.11120v1", section: "S3.SS1" });
    expect(byId.text).toMatch(/^### 3\.1 Finetuning on multiple-choice responses/);
    expect(byId.text).not.toContain("### 3.2 ");
    expect(byId.section).toMatchObject({ id: "S3.SS1", offset: 0 });
    const byTitle = await read({ paper_id: "2501.11120v1", section: "Awareness of behaviors" });
    expect(byTitle.text).toMatch(/^## 3 Awareness of behaviors/);
    expect(byTitle.text).toContain("### 3.1 ");
  });

  it("an unknown section fails section_not_found listing the outline", async () => {
    const error = toolError(
      await callTool("arxiv_read_paper", { paper_id: "2501.11120v1", section: "Conclusions of nothing" }),
    );
    expect(error.reason).toBe("section_not_found");
    expect(error.recovery).toContain("S1");
  });
});

describe("fallbacks", () => {
  it("HTML 404 -> ar5iv, marked revision_unconfirmed", async () => {
    const page = await read({ paper_id: "1904.07818v1" });
    expect(page).toMatchObject({
      source: "ar5iv",
      revision_unconfirmed: true,
      pdf_url: "https://arxiv.org/pdf/1904.07818v1",
    });
    expect(page.title).toBe("Maximizing Drift is Not Optimal for Solving OneMax");
    expect(page.text).not.toMatch(/html2canvas|ar5iv-footer/);
  });

  it("an unversioned read resolves the version from arXiv's metadata; ar5iv counts as confirmed only when v1 is the only version", async () => {
    const unversioned = await read({ paper_id: "1605.08386" });
    expect(unversioned).toMatchObject({
      paper_id: "1605.08386v1",
      source: "ar5iv",
      revision_unconfirmed: false,
      pdf_url: "https://arxiv.org/pdf/1605.08386v1",
    });
    expect((await upstreamHits()).map((h) => h.path)).toEqual([
      "/arxiv-api/query?id_list=1605.08386&max_results=1",
      "/arxiv/html/1605.08386v1",
      "/ar5iv/html/1605.08386",
    ]);
    const pinned = await read({ paper_id: "1605.08386v1" });
    expect(pinned.revision_unconfirmed).toBe(true);
  });

  it("ar5iv 307 (not converted) -> PDF text of exactly that revision, PDF kept in R2", async () => {
    const page = await read({ paper_id: "1512.03905v1" });
    expect(page).toMatchObject({ source: "pdf_text", pdf_url: "https://arxiv.org/pdf/1512.03905v1" });
    // No bookmarks in this PDF: the outline comes from its heading lines, and says so.
    expect(page.outline.map((entry: { title: string }) => entry.title)).toEqual([
      "INTRODUCTION",
      "ACKNOWLEDGMENTS",
      "REFERENCES",
    ]);
    expect(page.notices).toContain(
      "The outline was made from heading-like lines of the PDF text (the PDF has no bookmarks).",
    );
    expect(page.text).toContain("Compositeness of Near Threshold Quasi-Bound States");
    expect((await upstreamHits()).map((h) => h.path)).toEqual([
      "/arxiv/html/1512.03905v1",
      "/ar5iv/html/1512.03905",
      "/arxiv/pdf/1512.03905v1",
    ]);
    expect(await env.BLOBS.head("arxiv/pdf/1512.03905v1.pdf")).not.toBeNull();
  });

  it("ar5iv 503 -> PDF, without failing the call", async () => {
    const page = await read({ paper_id: "1704.01689v1" });
    expect(page.source).toBe("pdf_text");
    expect(page.text).toContain("Existence and stability of circular orbits");
  });

  it("reads a legacy-ID PDF", async () => {
    const page = await read({ paper_id: "hep-th/9108004v1", max_characters: null });
    expect(page.text).toContain("GROUND RING OF TWO DIMENSIONAL STRING THEORY");
    expect(page.text).toContain("Edward Witten");
  });

  it("nothing anywhere -> content_unavailable saying what each source answered", async () => {
    const error = toolError(await callTool("arxiv_read_paper", { paper_id: "2401.99998v1" }));
    expect(error.reason).toBe("content_unavailable");
    expect(error.message).toContain("arxiv_html: HTTP 404");
    expect(error.message).toContain("ar5iv: HTTP 404");
    expect(error.message).toContain("pdf_text: HTTP 404");
  });

  it("a PDF without a text layer -> pdf_extraction_failed", async () => {
    const error = toolError(await callTool("arxiv_read_paper", { paper_id: "2401.00002v1" }));
    expect(error.reason).toBe("pdf_extraction_failed");
    expect(error.message).toContain("no text layer");
  });

  it("a truncated PDF -> pdf_extraction_failed, not a crash", async () => {
    const error = toolError(await callTool("arxiv_read_paper", { paper_id: "2401.00003v1" }));
    expect(error.reason).toBe("pdf_extraction_failed");
  });

  it.each([["not an id"], ["https://example.org/abs/2401.12345"]])(
    "invalid ID %j -> invalid_id without a request",
    async (paper_id) => {
      expect(toolError(await callTool("arxiv_read_paper", { paper_id })).reason).toBe("invalid_id");
      expect(await upstreamHits()).toHaveLength(0);
    },
  );
});

describe("hostile content and budgets", () => {
  const readWith = async (vars: Record<string, string>, args: Record<string, unknown>) =>
    (await callToolWith("arxiv_read_paper", args, vars)).result;

  it("a 50 MB HTML body is cut off at the size limit and the read moves on", async () => {
    const result = await readWith(
      { ARXIV_BASE_URL: `${FAKE}/arxiv/_scenario/huge-html`, ARXIV_READ_MAX_HTML_BYTES: "5000000" },
      { paper_id: "2501.11120v1" },
    );
    const error = toolError(result);
    expect(error.reason).toBe("content_unavailable");
    expect(error.message).toContain("content_too_large");
  });

  it("a PDF above the configured size fails content_too_large without being stored", async () => {
    const result = await readWith({ ARXIV_READ_MAX_PDF_BYTES: "10000" }, { paper_id: "1512.03905v1" });
    expect(toolError(result)).toMatchObject({ reason: "content_too_large" });
    expect(await env.BLOBS.head("arxiv/pdf/1512.03905v1.pdf")).toBeNull();
  });

  it("a slow source ends in timeout within the read's budget, naming what was tried", async () => {
    const started = Date.now();
    const result = await readWith(
      { ARXIV_BASE_URL: `${FAKE}/arxiv/_scenario/slow`, ARXIV_READ_TIMEOUT_MS: "800" },
      { paper_id: "2501.11120v1" },
    );
    const error = toolError(result);
    expect(error.reason).toBe("timeout");
    expect(error.message).toContain("arxiv_html");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("deeply nested HTML: converted when merely deep, a typed error when pathological", async () => {
    const nested = (depth: number) =>
      `<html><body><section id="S1"><h2 class="ltx_title ltx_title_section">1 Deep</h2>${"<div><span>".repeat(depth)}bottom${"</span></div>".repeat(depth)}</section></body></html>`;
    const doc = await htmlToDocument(new Response(nested(500)).body!, { maxBytes: 30e6, maxChars: 1e6 });
    expect(doc.text).toContain("bottom");
    expect(doc.outline[0]).toMatchObject({ id: "S1", title: "1 Deep" });
    await expect(
      htmlToDocument(new Response(nested(50_000)).body!, { maxBytes: 30e6, maxChars: 1e6 }),
    ).rejects.toMatchObject({ reason: "upstream_malformed" });
  });

  it("caps the extracted characters and says the text is truncated", async () => {
    const doc = await htmlToDocument((await fixtureResponse("html/arxiv-html_2501.11120v1.html")).body!, {
      maxBytes: 30e6,
      maxChars: 5000,
    });
    expect(doc.text.length).toBeLessThanOrEqual(5000);
    expect(doc.extraction_truncated).toBe(true);
  });

  it("a PDF bomb (a tiny file inflating to 40 MB of drawing operators) ends in a typed error", async () => {
    const inflated = new TextEncoder().encode("q Q\n".repeat(10_000_000));
    const compressed = new Uint8Array(
      await new Response(new Blob([inflated]).stream().pipeThrough(new CompressionStream("deflate"))).arrayBuffer(),
    );
    expect(compressed.byteLength).toBeLessThan(1_000_000);
    const pdf = flateContentPdf(compressed);
    try {
      await pdfToDocument(pdf, { maxPages: 10, maxChars: 100_000 }, "r");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PapersError);
      expect((error as PapersError).reason).toBe("pdf_extraction_failed");
    }
  });
});
