// Reading for agents on the recorded papers: token budgets (the estimate against two real
// tokenizers), the figure/table/equation index and reading one of them, PDF outlines, and
// papers_find_in_paper.
import { encode as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { encode as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { beforeEach, describe, expect, it } from "vitest";
import { estimateTokens } from "../src/sources/text/tokens";
import { callTool, resetUpstream, toolError, upstreamHits } from "./helpers";

beforeEach(resetUpstream);

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

async function call(name: string, args: Record<string, unknown>) {
  const result = await callTool(name, args);
  if (result.isError) throw new Error(result.content[0]!.text);
  return result.structuredContent;
}
const read = (args: Record<string, unknown>) => call("arxiv_read_paper", args);

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

  it("pages by max_tokens, each page within its budget, the pages adding up to the text", async () => {
    const whole = await call("nber_read_paper", { paper_id: "w10000", max_characters: null });
    let text = "";
    let start: number | null = 0;
    let pages = 0;
    while (start !== null) {
      const page = await call("nber_read_paper", { paper_id: "w10000", start, max_tokens: 2_000 });
      expect(page.tokens).toBeLessThanOrEqual(2_000);
      expect(page.start).toBe(start);
      text += page.text;
      start = page.next_start;
      pages++;
    }
    expect(text).toBe(whole.text);
    expect(pages).toBeGreaterThan(5);
  });

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

describe("papers_find_in_paper", () => {
  it("answers the passages that hold the question's words, with their sections and offsets into the read text", async () => {
    const result = await call("papers_find_in_paper", {
      paper_id: "2501.11120v1",
      query: "Which backdoor triggers did the models learn?",
      max_passages: 3,
    });
    expect(result.passages).toHaveLength(3);
    const whole = await read({ paper_id: "2501.11120v1", max_characters: null });
    for (const passage of result.passages) {
      expect(whole.text.slice(passage.start, passage.end)).toBe(passage.text);
      expect(passage.text.toLowerCase()).toMatch(/backdoor|trigger/);
      expect(estimateTokens(passage.text)).toBeLessThan(700);
    }
    expect(result.passages[0].score).toBeGreaterThanOrEqual(result.passages[2].score);
    expect(result.passages.some((p: { section_title: string | null }) => /backdoor/i.test(p.section_title ?? ""))).toBe(
      true,
    );
  });

  it("works on PDF text and on NBER papers, from the cache after the first read", async () => {
    const arxiv = await call("papers_find_in_paper", { paper_id: "hep-th/9108004v1", query: "ground ring" });
    expect(arxiv.passages[0].section_title).toMatch(/Ground Ring/i);
    await call("papers_find_in_paper", { paper_id: "w10000", query: "circular orbits stability" });
    const before = (await upstreamHits()).length;
    const nber = await call("papers_find_in_paper", { paper_id: "w10000", query: "circular orbits stability" });
    expect(nber).toMatchObject({ paper_id: "w10000", source: "pdf_text", served_from: "cache" });
    expect(nber.passages.length).toBeGreaterThan(0);
    expect((await upstreamHits()).length).toBe(before);
  });

  it("passes on the read's typed error for a paper without text", async () => {
    const error = toolError(await callTool("papers_find_in_paper", { paper_id: "2401.00002v1", query: "river raft" }));
    expect(error.reason).toBe("pdf_extraction_failed");
    expect(error.message).toMatch(/no text layer/);
  });

  it("says so when nothing matches, and refuses a question without words, an oversized one or a bad ID", async () => {
    const none = await call("papers_find_in_paper", { paper_id: "1512.03905v1", query: "zebrafish husbandry" });
    expect(none.passages).toEqual([]);
    expect(none.notices[0]).toMatch(
      /No passage contains any of the question's words \(zebrafish, husbandri\)\. The paper's sections: INTRODUCTION/,
    );
    expect(toolError(await callTool("papers_find_in_paper", { paper_id: "1512.03905v1", query: "?!" })).reason).toBe(
      "invalid_query",
    );
    expect(
      toolError(await callTool("papers_find_in_paper", { paper_id: "1512.03905v1", query: "x".repeat(1_001) })).reason,
    ).toBe("invalid_argument");
    expect(
      toolError(await callTool("papers_find_in_paper", { paper_id: "nonsense", query: "ground ring" })).reason,
    ).toBe("invalid_id");
  });
});
