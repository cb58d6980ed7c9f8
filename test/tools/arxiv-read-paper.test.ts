// arxiv_read_paper on the recorded papers: LaTeXML HTML to text, paging by characters and tokens, sections,
// the HTML -> ar5iv -> PDF fallbacks, figures, tables, equations and PDF outlines, hostile content and budgets.

import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { answerOf, callToolOk, FAKE, callTool, callToolWith, resetUpstream, toolError, upstreamHits } from "../helpers";
import { seedMirror } from "../mirror/driver";
import { htmlToDocument } from "../../src/sources/arxiv/read/html";
import { pdfToDocument } from "../../src/sources/text/pdf";
import { PapersError } from "../../src/errors";
import { flateContentPdf } from "../support/pdf";
import { fixtureResponse } from "../support/fixtures";
import { encode as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { encode as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { estimateTokens } from "../../src/sources/text/tokens";

beforeEach(resetUpstream);

const read = (args: Record<string, unknown>) => callToolOk("arxiv_read_paper", args);

const PAPERS = [
  "2501.11120v1",
  "2012.02205v1",
  "1904.07818v1",
  "1512.03905v1",
  "1704.01689v1",
  "1905.00506v2",
  "cs/9912018v1",
  "hep-th/9108004v1",
];

describe("reading a paper when arXiv's API cannot be asked", () => {
  it("takes the version from the mirror and says so", async () => {
    // A HAND-MADE mirror record for a paper whose recorded PDF is a fixture (1512.03905v1).
    await seedMirror([
      {
        id: "1512.03905",
        style: "new",
        title: "A paper whose PDF is a recorded fixture",
        authors: "A. Author",
        abstract: "Hand-made mirror record for this test.",
        categories: ["cs.LG"],
        versions: [1450000000],
        comment: null,
        journal_ref: null,
        doi: null,
        license: null,
        datestamp: "2015-12-13",
      },
    ]);
    const { result } = await callToolWith(
      "arxiv_read_paper",
      { paper_id: "1512.03905", max_characters: 2000 },
      { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/status-503` },
    );
    expect(result.isError, JSON.stringify(result).slice(0, 400)).toBeFalsy();
    expect(answerOf(result)).toMatchObject({ paper_id: "1512.03905v1", source: "pdf_text" });
    expect(answerOf(result).notices.join(" ")).toContain("the latest version the metadata mirror holds");
  });
});

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

  it("sends the page's text once: in content, between the outline and the cursor, with the other fields in _meta", async () => {
    const result = await callTool("arxiv_read_paper", { paper_id: "2501.11120v1" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toBeUndefined();
    const [head, body, cursor] = result.content;
    expect(head!.text).toMatch(/^2501\.11120v1 via arxiv_html \(live\): characters 0-\d+ of \d+/);
    expect(head!.text).toContain("Outline:\n");
    expect(body!._meta).toEqual({ "papers-mcp/field": "text" });
    expect(body!.text).toContain("## 1 Introduction");
    expect(cursor!.text).toMatch(/^More: call again with start=\d+\.$/);
    // A known sentence of the page appears once in the whole answer, whatever part a client reads.
    const sentence = "articulate its behaviors without requiring in-context examples";
    expect(JSON.stringify(result).split(sentence)).toHaveLength(2);
    const fields = result._meta?.["papers-mcp/answer"] as Record<string, unknown>;
    expect(fields).toMatchObject({ paper_id: "2501.11120v1", source: "arxiv_html", start: 0 });
    expect(fields).not.toHaveProperty("text");
    expect(fields.next_start).toBe(body!.text.length);
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
    // The default budget is 10,000 estimated tokens, cut at a line break; the first page leaves
    // room for its outline and figures (70 headings, 100 figures here) within the answer's 20,000.
    expect(first.tokens).toBeLessThan(10_000);
    expect(first.tokens).toBeGreaterThan(5_000);
    const answer = await callTool("arxiv_read_paper", { paper_id: "2501.11120v1" });
    expect(estimateTokens(JSON.stringify(answer))).toBeLessThan(20_000);
    const second = await read({ paper_id: "2501.11120v1", start: first.next_start });
    expect(second.tokens).toBeGreaterThan(9_000);
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
    // pdf.js walks all 10 million operators before it finds no text: about 4.3 s on a 2-core machine
    // (inside a Worker's 30 s CPU limit); the assertion is the typed error. With another test file's
    // workerd busy beside it the walk has taken 24-34 s, so this test has a longer timeout of its own.
  }, 90_000);
});

describe("token budgets", () => {
  it("estimates tokens within 10% of o200k_base and cl100k_base on every recorded paper", async () => {
    const rows: string[] = [];
    for (const id of PAPERS) {
      const { text, source } = await read({ paper_id: id, max_characters: null });
      const estimate = estimateTokens(text);
      for (const [name, encode] of [
        ["o200k", o200k],
        ["cl100k", cl100k],
      ] as const) {
        const real = encode(text).length;
        const error = (estimate - real) / real;
        rows.push(`${id} (${source}) ${name}: estimate ${estimate}, real ${real}, error ${(error * 100).toFixed(1)}%`);
        expect(Math.abs(error), `${id} ${name}`).toBeLessThan(0.1);
      }
    }
    console.log(rows.join("\n"));
  }, 60_000);

  it("refuses a start past the end with the length to use", async () => {
    const error = toolError(await callTool("arxiv_read_paper", { paper_id: "1512.03905v1", start: 10_000_000 }));
    expect(error.reason).toBe("invalid_argument");
    expect(error.message).toMatch(/past the end of the text \(\d+ characters\)/);
  });
});

describe("figures, tables and equations", () => {
  it("indexes LaTeXML's figures and tables on the first page, with captions and offsets", async () => {
    const page = await read({ paper_id: "2501.11120v1", max_tokens: 200 });
    const figures = page.figures as {
      id: string;
      kind: string;
      number: string | null;
      caption: string;
      start: number;
    }[];
    expect(figures.find((f) => f.id === "S1.F1")).toMatchObject({
      kind: "figure",
      number: "1",
      caption: "Models can describe a learned behavioral policy that is only implicit in…",
    });
    expect(figures.find((f) => f.id === "S3.T1")).toMatchObject({ kind: "table", number: "1" });
    // 36 figures and 47 tables, every numbered one indexed; subfigures (a), (b) ... are not.
    expect(figures.filter((f) => f.kind === "figure")).toHaveLength(36);
    expect(figures.filter((f) => f.kind === "table")).toHaveLength(47);
    const whole = await read({ paper_id: "2501.11120v1", max_characters: null });
    for (const figure of figures)
      expect(whole.text.slice(figure.start, figure.start + 3_000)).toMatch(
        new RegExp(`${figure.kind === "table" ? "Table" : "Figure"} ${figure.number}:`),
      );
    // About 45 tokens an entry as JSON: a paper with a few figures costs a few hundred, this one with 83 about 3,800.
    const tokens = estimateTokens(JSON.stringify(figures));
    console.log(`figure index of 2501.11120v1: ${figures.length} entries, ${tokens} tokens as JSON`);
    expect(tokens / figures.length).toBeLessThan(50);
    const small = (await read({ paper_id: "2012.02205v1", max_tokens: 200 })).figures;
    console.log(
      `figure index of 2012.02205v1: ${small.length} entries, ${estimateTokens(JSON.stringify(small))} tokens as JSON`,
    );
  });

  it("reads one table as rows, and one figure as its caption with the text that refers to it", async () => {
    const table = await read({ paper_id: "2501.11120v1", section: "S3.T1" });
    expect(table.figure).toMatchObject({ id: "S3.T1", kind: "table" });
    expect(table.text).toContain("| Economic decisions (Section 3.1) |");
    const figure = await read({ paper_id: "2501.11120v1", section: "Figure 1" });
    expect(figure.text).toMatch(/^Figure 1: Models can describe/);
    expect(figure.text).toContain("Referred to in:");
    expect(figure.text.split("Referred to in:")[1]).toMatch(/Figure\s*1/);
  });

  it("indexes numbered equations with their TeX", async () => {
    const page = await read({ paper_id: "2012.02205v1", max_tokens: 200 });
    const equation = (page.figures as { id: string; kind: string; number: string; caption: string }[]).find(
      (f) => f.id === "S3.E1",
    );
    expect(equation).toMatchObject({ kind: "equation", number: "1" });
    expect(equation!.caption.length).toBeGreaterThan(5);
    const eq = await read({ paper_id: "2012.02205v1", section: "Eq. 1" });
    expect(eq.text).toMatch(/^Equation \(1\): \$\$/);
  });

  it("finds table and figure captions in PDF text", async () => {
    const tables = (await read({ paper_id: "1512.03905v1", max_tokens: 200 })).figures.map((f: { id: string }) => f.id);
    expect(tables).toEqual(["tab-1", "tab-2", "tab-3"]);
    const figures = (await read({ paper_id: "cs/9912018v1", max_tokens: 200 })).figures.map(
      (f: { id: string }) => f.id,
    );
    expect(figures).toEqual(["fig-1", "fig-2", "fig-3"]);
  });

  it("names what exists when a section or figure does not", async () => {
    const error = toolError(await callTool("arxiv_read_paper", { paper_id: "2501.11120v1", section: "S99.T9" }));
    expect(error.reason).toBe("section_not_found");
    expect(error.recovery).toContain("S3.T1");
    expect(error.recovery).toContain("S1 (1 Introduction)");
  });
});

describe("PDF outlines", () => {
  it("takes the PDF's bookmarks when it has them, placed at the heading's text", async () => {
    const page = await read({ paper_id: "1905.00506v2", max_tokens: 200 });
    const whole = await read({ paper_id: "1905.00506v2", max_characters: null });
    const titles = page.outline.map((entry: { title: string }) => entry.title);
    expect(titles).toEqual([
      "1. Introduction",
      "Notation and conventions",
      "2. Bounding",
      "2.1. The case .",
      "2.2. The case .",
      "2.3. The proof of Theorem ??.",
      "3. Reducing arboreal representations modulo primes",
      "4. Theorem ?? at work: a conjecture of Jones",
      "References",
    ]);
    for (const title of ["1. Introduction", "3. Reducing arboreal representations modulo primes", "References"]) {
      const entry = page.outline.find((e: { title: string }) => e.title === title);
      expect(whole.text.slice(entry.offset)).toMatch(new RegExp(`^${title.replace(/\./g, "\\.")}`));
    }
    const section = await read({ paper_id: "1905.00506v2", section: "References" });
    expect(section.text).toMatch(/^References\n\[1\] Jean-Marie Arnaudi/);
  });

  it("reads REVTeX's Roman capitals and Roman table numbers; a hand-checked outline matches every heading", async () => {
    const revtex = await read({ paper_id: "1704.01689v1", max_tokens: 200 });
    expect(revtex.outline.map((entry: { title: string }) => entry.title.split(" ")[0])).toEqual([
      "I.",
      "II.",
      "III.",
      "IV.",
      "V.",
      "VI.",
      "VII.",
      "Acknowledgments",
    ]);
    expect(revtex.figures.map((f: { id: string }) => f.id)).toEqual(["tab-i"]);
    // hep-th/9108004, checked by hand against the PDF: every heading, in order, and nothing else.
    const witten = await read({ paper_id: "hep-th/9108004v1", max_tokens: 200 });
    expect(witten.outline.map((entry: { title: string }) => entry.title)).toEqual([
      "ABSTRACT",
      "1. Introduction",
      "2. The Discrete States",
      "2.1. Additional States At Other Values Of The Ghost Number",
      "2.2. The Ground Ring",
      "2.3. Determination Of The Ground Ring",
      "2.4. Determination Of The Chiral Symmetry Algebra",
      "2.5. The Quantum Symmetry Algebra",
      "2.6. Departures From The SU(2) Point",
      "3. The Uncompactified Theory; Comparison To The Matrix Model",
      "3.1. Symmetries Of The Matrix Model",
      "3.2. Level One",
      "3.3. Level Two",
      "REFERENCES",
    ]);
  });

  it("falls back to numbered heading lines, skipping the table of contents", async () => {
    const page = await read({ paper_id: "cs/9912018v1", max_tokens: 200 });
    const titles = page.outline.map((entry: { title: string }) => entry.title);
    expect(titles.slice(0, 4)).toEqual([
      "Abstract",
      "1 Introduction",
      "2 Example",
      "3 A language for test selection criteria",
    ]);
    expect(titles).toContain("7.3 Future work");
    expect(page.notices).toContain(
      "The outline was made from heading-like lines of the PDF text (the PDF has no bookmarks).",
    );
  });
});
