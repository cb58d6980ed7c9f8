// arxiv_get_references on the recorded papers: bibliographies cut into entries, their identifiers read, and
// the entries resolved to the mirror's papers.

import { beforeEach, describe, expect, it } from "vitest";
import gold from "../fixtures/hand-made/references-gold.json";
import type { MirrorRecord } from "../../src/store/arxiv-row";
import { callTool, callToolWith, resetUpstream, toolError, upstreamHits } from "../helpers";
import { sampleRecords, seedMirror } from "../mirror/driver";

beforeEach(resetUpstream);

// The ID each recorded file is served under by the fixture router.
const PAPER_IDS: Record<string, string> = {
  "html/arxiv-html_2501.11120v1.html": "2501.11120v1",
  "html/latexml_2012.02205_arxiv-view-as-html-sample.html": "2012.02205v1",
  "html/ar5iv_1904.07818_saved-modified.html": "1904.07818v1",
  "pdf/arxiv_1512.03905v1.pdf": "1512.03905v1",
  "pdf/arxiv_1704.01689v1.pdf": "1704.01689v1",
  "pdf/arxiv_1905.00506v2.pdf": "1905.00506v2",
  "pdf/arxiv_cs_9912018v1.pdf": "cs/9912018v1",
  "pdf/arxiv_hep-th_9108004v1.pdf": "hep-th/9108004v1",
};

interface Entry {
  number: number;
  text: string;
  title?: string;
  authors?: string[];
  year?: number;
  doi?: string;
  arxiv_id?: string;
  resolved: { status: string; id?: string; source?: string };
}

async function allReferences(paperId: string, vars: Record<string, unknown> = {}) {
  const entries: Entry[] = [];
  let start: number | null = 0;
  let textSource = "";
  while (start !== null) {
    const { result } = await callToolWith(
      "arxiv_get_references",
      { paper_id: paperId, start, max_results: 100 },
      { ARXIV_MIRROR_FALLBACK_LIVE: "false", ...vars },
    );
    if (result.isError) throw new Error(`${paperId}: ${result.content[0].text}`);
    entries.push(...result.structuredContent.references);
    textSource = result.structuredContent.text_source;
    start = result.structuredContent.next_start;
  }
  return { entries, textSource };
}

const norm = (value: string | undefined) => value?.toLowerCase().replace(/v\d+$/, "");

describe("arxiv_get_references on the recorded papers", () => {
  beforeEach(() => seedMirror());

  it("cuts every bibliography into its entries and reads their identifiers with precision >= 99%", async () => {
    let output = 0;
    let correct = 0;
    let goldTotal = 0;
    let found = 0;
    let withTitleOrId = 0;
    let entriesTotal = 0;
    const perPaper: string[] = [];
    for (const paper of gold.papers) {
      const { entries, textSource } = await allReferences(PAPER_IDS[paper.file]!);
      expect(entries.length, paper.file).toBe(paper.entries);
      expect(entries.map((entry) => entry.number)).toEqual(entries.map((_, i) => i + 1));
      const identifiers = paper.identifiers as Record<string, { arxiv_id?: string; doi?: string }>;
      for (const entry of entries) {
        entriesTotal++;
        if (entry.title || entry.arxiv_id || entry.doi) withTitleOrId++;
        const expected = identifiers[String(entry.number)] ?? {};
        for (const field of ["arxiv_id", "doi"] as const) {
          if (entry[field] !== undefined) {
            output++;
            if (norm(entry[field]) === norm(expected[field])) correct++;
            else
              console.log(
                `wrong ${field} in ${paper.file} [${entry.number}]: ${entry[field]} (gold ${expected[field] ?? "none"})`,
              );
          }
          if (expected[field] !== undefined) {
            goldTotal++;
            if (norm(entry[field]) === norm(expected[field])) found++;
          }
        }
      }
      perPaper.push(`${paper.file} (${textSource}): ${entries.length} entries`);
    }
    const precision = correct / output;
    const recall = found / goldTotal;
    console.log(
      `references: ${entriesTotal} entries, ${withTitleOrId} with a title or identifier; identifiers precision ${precision.toFixed(3)} (${correct}/${output}), recall ${recall.toFixed(3)} (${found}/${goldTotal})\n  ${perPaper.join("\n  ")}`,
    );
    expect(precision).toBeGreaterThanOrEqual(0.99);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it("reads authors, title and year from LaTeXML's blocks", async () => {
    const { entries, textSource } = await allReferences("2501.11120v1");
    expect(textSource).toBe("arxiv_html");
    expect(entries[2]).toMatchObject({
      number: 3,
      title: "Knowledge of knowledge: Exploring known-unknowns uncertainty with large language models",
      authors: ["Amayuelas", "Pan", "Chen", "Wang"],
      year: 2023,
      arxiv_id: "2305.13712",
    });
    // A DOI that only a link carries (the "MNRAS" anchor of an astro reference).
    const astro = await allReferences("2012.02205v1");
    expect(astro.entries[1]).toMatchObject({
      number: 2,
      doi: "10.1111/j.1365-2966.2010.16592.x",
      year: 2010,
      authors: ["Benson", "Bower"],
    });
  });

  it("resolves entries to the mirror's papers by identifier and title, and nothing it does not hold", async () => {
    // Hand-made mirror records for four of the papers 1704.01689 cites (IDs and DOIs as cited),
    // plus one whose title matches entry 10 of cs/9912018 exactly (no identifier there).
    const cited = (id: string, title: string, authors: string, doi: string | null, year: number): MirrorRecord => ({
      id,
      style: id.includes("/") ? "legacy" : "new",
      title,
      authors,
      abstract: "Hand-made record for the references test.",
      categories: ["gr-qc"],
      versions: [Date.UTC(year, 0, 15) / 1000],
      comment: null,
      journal_ref: null,
      doi,
      license: null,
      datestamp: "2026-11-01",
    });
    await seedMirror([
      ...sampleRecords(),
      cited("gr-qc/0401028", "Hand-made title A", "P. K. Kuhfittig", null, 2004),
      cited("1602.03837", "Hand-made title B", "B. Abbott", null, 2016),
      cited("1107.5250", "Hand-made title C", "E. Hackmann", "10.1103/PhysRevD.85.044049", 2011),
      cited("1205.5666", "Hand-made title D", "P. Pradhan", "10.1007/s12043-016-1214-x", 2012),
    ]);
    const { entries } = await allReferences("1704.01689v1");
    const resolved = entries
      .filter((entry) => entry.resolved.status === "match")
      .map((entry) => [entry.number, entry.resolved.id]);
    // Entry 28 cites arXiv:1205.5656 but carries the DOI of the mirror's 1205.5666: the ID decides, and the mirror has no 1205.5656.
    expect(resolved).toEqual([
      [9, "gr-qc/0401028"],
      [13, "1602.03837"],
      [15, "1107.5250"],
    ]);
    expect((await upstreamHits()).filter((hit) => hit.path.startsWith("/arxiv-api"))).toEqual([]);
  });

  it("asks arXiv's API once for a page's IDs that the mirror lacks, not once per entry", async () => {
    const { result } = await callToolWith("arxiv_get_references", { paper_id: "2501.11120v1", max_results: 48 }, {});
    expect(result.structuredContent.references.filter((entry: Entry) => entry.arxiv_id)).toHaveLength(35);
    expect((await upstreamHits()).filter((hit) => hit.path.startsWith("/arxiv-api"))).toHaveLength(1);
  });

  it("pages by entry and refuses bad input with typed errors", async () => {
    const first = await callToolWith(
      "arxiv_get_references",
      { paper_id: "1512.03905v1", start: 0, max_results: 10 },
      { ARXIV_MIRROR_FALLBACK_LIVE: "false" },
    );
    expect(first.result.structuredContent).toMatchObject({ total: 36, start: 0, next_start: 10 });
    expect(first.result.structuredContent.references.map((entry: Entry) => entry.number)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    const last = await callToolWith(
      "arxiv_get_references",
      { paper_id: "1512.03905v1", start: 30, max_results: 10 },
      { ARXIV_MIRROR_FALLBACK_LIVE: "false" },
    );
    expect(last.result.structuredContent).toMatchObject({ start: 30, next_start: null });
    expect(last.result.structuredContent.references).toHaveLength(6);
    expect(toolError(await callTool("arxiv_get_references", { paper_id: "not-an-id" })).reason).toBe("invalid_id");
    expect(
      toolError(await callTool("arxiv_get_references", { paper_id: "1512.03905v1", max_results: 1000 })).reason,
    ).toBe("invalid_argument");
  });

  it("on the free plan's budget, answers the page and leaves the entries it has no room for not tried", async () => {
    await seedMirror();
    const free = { CALL_MAX_D1_QUERIES: "45", CALL_MAX_SUBREQUESTS: "45", ARXIV_MIRROR_FALLBACK_LIVE: "false" };
    const { result } = await callToolWith("arxiv_get_references", { paper_id: "2501.11120v1", max_results: 100 }, free);
    expect(result.isError).toBeFalsy();
    const references = result.structuredContent.references as Entry[];
    const statuses = references.map((entry) => (entry as unknown as { resolved: { status: string } }).resolved.status);
    expect(statuses.filter((status) => status !== "not_tried").length).toBeGreaterThan(0);
    const left = references.filter((entry) =>
      (entry as unknown as { resolved: { why?: string } }).resolved.why?.includes("budget"),
    );
    expect(left.length).toBeGreaterThan(0);
  });
});
