// papers_export_citations: BibTeX parsed back by a real BibTeX parser, CSL-JSON validated against the CSL
// schema, RIS read back by citation.js; DOIs, the mirror and typed misses.

import { env } from "cloudflare:workers";
import { Validator } from "@cfworker/json-schema";
import { Cite } from "@citation-js/core";
import "@citation-js/plugin-bibtex";
import "@citation-js/plugin-ris";
import { beforeEach, describe, expect, it } from "vitest";
import cslSchema from "../fixtures/csl/csl-data.json";
import { upsertMirror } from "../../src/store/nber-mirror";
import { answerOf, callTool, resetUpstream, upstreamHits } from "../helpers";
import { sampleRecords, seedMirror } from "../mirror/driver";
import { estimateTokens } from "../../src/sources/text/tokens";
import { parseBibtex } from "../support/bibtex";
import { NBER_SEED } from "../support/nber";

beforeEach(resetUpstream);

async function exportIds(ids: string[], format: "bibtex" | "ris" | "csl-json") {
  const result = await callTool("papers_export_citations", { ids, format });
  if (result.isError) throw new Error(result.content[0]!.text);
  return answerOf(result) as {
    format: string;
    entries: { id: string; key: string; kind: string; source: string }[];
    text: string;
    not_found: { id: string; reason: string; detail: string }[];
  };
}

// Real sample records: a published paper with TeX accents in its authors, a maths title, a
// collaboration with "et al", a pinned version, and an NBER paper from the mirror and one from its page.
const MIXED = [
  "0704.0001",
  "arXiv:acc-phys/9411002v1",
  "https://arxiv.org/abs/0704.0020",
  "w25000",
  "w10000",
  "not an id",
  "0704.9999",
  "2101.99999",
];

describe("papers_export_citations", () => {
  beforeEach(async () => {
    await seedMirror();
    await upsertMirror(
      env.DB,
      NBER_SEED.filter((paper) => paper.id === "w25000"),
    );
  });

  it("writes BibTeX that a BibTeX parser reads back field for field, with typed misses beside it", async () => {
    const result = await exportIds(MIXED, "bibtex");
    expect(result.entries.map((entry) => entry.id)).toEqual([
      "0704.0001",
      "acc-phys/9411002v1",
      "0704.0020",
      "w25000",
      "w10000",
    ]);
    expect(result.not_found.map((miss) => miss.id)).toEqual(["not an id", "0704.9999", "2101.99999"]);
    expect(result.not_found[0]!.reason).toBe("invalid_id");
    // Not in the mirror, so arXiv's API was asked; the fake has no recording for them.
    for (const miss of result.not_found.slice(1)) expect(["not_in_arxiv", "live_lookup_failed"]).toContain(miss.reason);
    const parsed = parseBibtex(result.text);
    expect(parsed.entries.map((entry) => entry.label)).toEqual(result.entries.map((entry) => entry.key));
    const [published, pinned, collaboration, nberMirror, nberPage] = parsed.entries.map((entry) => ({
      type: entry.type,
      fields: entry.properties,
    }));
    const [publishedCsl, pinnedCsl, collaborationCsl] = parsed.csl;

    expect(published!.type).toBe("article");
    expect(published!.fields.eprint).toBe("0704.0001");
    expect(published!.fields.archiveprefix).toBe("arXiv");
    expect(published!.fields.primaryclass).toBe("hep-ph");
    expect(published!.fields.doi).toBe("10.1103/PhysRevD.76.013009");
    // arXiv's journal_ref "Phys.Rev.D76:013009,2007" as the journal version's own fields.
    expect(published!.fields.journal).toBe("Phys. Rev. D");
    expect(published!.fields.volume).toBe("76");
    expect(published!.fields.pages).toBe("013009");
    expect(published!.fields.note).toContain("10.48550/arXiv.0704.0001");
    expect(published!.fields.year).toBe("2007");
    // The month was the preprint's: a published entry gives the journal's year alone.
    expect(published!.fields.month).toBeUndefined();
    // C. Bal\'azs: the TeX accent survives as the letter it means.
    expect(publishedCsl!.author.map((name: { family: string }) => name.family)).toEqual([
      "Balázs",
      "Berger",
      "Nadolsky",
      "Yuan",
    ]);
    expect(publishedCsl!.title).toBe(
      "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
    );
    expect(result.entries[0]!.key).toBe("balazs2007calculation");
    expect(result.entries[0]!.source).toBe("arXiv metadata mirror (OAI-PMH)");

    expect(pinned!.type).toBe("misc");
    expect(pinned!.fields.version).toBe("1");
    expect(pinned!.fields.doi).toBe("10.48550/arXiv.acc-phys/9411002");
    expect(pinned!.fields.url).toBe("https://arxiv.org/abs/acc-phys/9411002v1");
    expect(pinned!.fields.primaryclass).toBe("acc-phys");
    // "Order $\hbar$ Corrections ...": the maths is braced, so a style's case change leaves it.
    expect(pinned!.fields.title).toMatch(/^Order \{\$\\hbar\$\} Corrections to the Classical Dynamics/);
    // The affiliation is not part of the name.
    expect(pinnedCsl!.author).toEqual([{ given: "Patrick L.", family: "Nash" }]);

    // A braced name is one name, never split into given and family parts.
    expect(collaborationCsl!.author[0]).toEqual({ family: "The BABAR Collaboration" });
    expect(collaboration!.fields.author).toBe("{The BABAR Collaboration} and Aubert, B. and others");

    expect(nberMirror!.type).toBe("techreport");
    expect(nberMirror!.fields.institution).toBe("National Bureau of Economic Research");
    expect(nberMirror!.fields.number).toBe("25000");
    expect(nberMirror!.fields.doi).toBe("10.3386/w25000");
    expect(result.entries[3]!.source).toBe("NBER metadata mirror");

    expect(nberPage!.fields.note).toContain("Published as: Placeholder Journal of Hand-made Tests");
    expect(result.entries[4]!.source).toBe("NBER paper page");
    // Every entry says where it came from, in a comment BibTeX ignores.
    expect(result.text.match(/^% .+: from .+$/gm)).toHaveLength(5);
  });

  it("writes CSL-JSON that the CSL schema accepts", async () => {
    const result = await exportIds(MIXED, "csl-json");
    const items = JSON.parse(result.text) as Record<string, any>[];
    const validation = new Validator(cslSchema as object, "7").validate(items);
    expect(validation.errors).toEqual([]);
    expect(validation.valid).toBe(true);
    expect(items.map((item) => item.type)).toEqual([
      "article-journal",
      "article",
      "article-journal",
      "report",
      "report",
    ]);
    expect(items[0]!.DOI).toBe("10.1103/PhysRevD.76.013009");
    expect(items[0]).toMatchObject({ "container-title": "Phys. Rev. D", volume: "76", page: "013009" });
    expect(items[1]!.DOI).toBe("10.48550/arXiv.acc-phys/9411002");
    expect(items[1]!.number).toBe("arXiv:acc-phys/9411002v1");
    expect(items[0]!.issued).toEqual({ "date-parts": [[2007]] });
    expect(items[0]!["original-date"]).toEqual({ "date-parts": [[2007]] });
    expect(items[3]!.number).toBe("25000");
    expect(items.map((item) => item.id)).toEqual(result.entries.map((entry) => entry.key));
  });

  it("writes RIS that citation.js reads back to the same titles, authors, years and DOIs", async () => {
    const bib = await exportIds(MIXED, "csl-json");
    const expected = JSON.parse(bib.text) as Record<string, any>[];
    const result = await exportIds(MIXED, "ris");
    expect(result.text.match(/^TY {2}- /gm)).toHaveLength(5);
    expect(result.text.match(/^ER {2}- $/gm)).toHaveLength(5);
    const back = new Cite(result.text).data as Record<string, any>[];
    expect(back).toHaveLength(5);
    back.forEach((item, i) => {
      expect(item.title).toBe(expected[i]!.title);
      expect(item.DOI).toBe(expected[i]!.DOI);
      expect(item.issued["date-parts"][0][0]).toBe(expected[i]!.issued["date-parts"][0][0]);
      expect(item.author.map((name: any) => name.family ?? name.literal)).toEqual(
        expected[i]!.author.map((name: any) => name.family ?? name.literal),
      );
    });
    // The journal version's fields read back as CSL's (volume and first page from VL and SP).
    expect(back[0]).toMatchObject({ "container-title": "Phys. Rev. D", volume: "76" });
    expect(String(back[0]!.page)).toContain("013009");
    // RIS has no preprint type: an arXiv preprint is GEN, which reads back as CSL's "document".
    expect(back.map((item) => item.type)).toEqual([
      "article-journal",
      "document",
      "article-journal",
      "report",
      "report",
    ]);
  });

  it("dates a published arXiv paper by its year of publication, whatever way arXiv's journal_ref writes it", async () => {
    // 0704.0008: first version March 2007, journal_ref "Journal of Applied Physics, vol 104, 073536 (2008)".
    const result = await exportIds(["0704.0008"], "bibtex");
    const entry = parseBibtex(result.text).entries[0]!;
    expect(entry.type).toBe("article");
    expect(entry.properties).toMatchObject({ journal: "Journal of Applied Physics", volume: "104", year: "2008" });
    expect(entry.properties.month).toBeUndefined();
  });

  it("answers from the mirror and cache without asking arXiv", async () => {
    await exportIds(["0704.0001", "0704.0007", "w25000"], "bibtex");
    expect(
      (await upstreamHits()).filter((hit) => hit.path.startsWith("/arxiv") || hit.path.startsWith("/nber")),
    ).toEqual([]);
  });

  it("refuses more than 50 IDs and an unknown format with typed errors", async () => {
    const tooMany = await callTool("papers_export_citations", {
      ids: Array.from({ length: 51 }, (_, i) => `0704.${String(i + 1).padStart(4, "0")}`),
    });
    expect(tooMany.isError).toBe(true);
    expect(JSON.parse(tooMany.content[0]!.text).error.reason).toBe("invalid_argument");
    const format = await callTool("papers_export_citations", { ids: ["0704.0001"], format: "endnote" });
    expect(JSON.parse(format.content[0]!.text).error.reason).toBe("invalid_argument");
  });

  it("answers only misses, each typed, when no ID is known", async () => {
    const result = await exportIds(["0704.9999", "garbage"], "bibtex");
    expect(result.entries).toEqual([]);
    expect(result.text).toBe("");
    expect(result.not_found.map((miss) => miss.id)).toEqual(["0704.9999", "garbage"]);
    // Not in the mirror, so arXiv's API is asked (live fallback on): "not in arXiv" or, when the fake cannot answer, a failed live lookup.
    expect(["not_in_arxiv", "live_lookup_failed"]).toContain(result.not_found[0]!.reason);
    expect(result.not_found[1]!.reason).toBe("invalid_id");
  });
});

describe("an export within an agent's budget (issue 32)", () => {
  beforeEach(() => seedMirror());

  it("sends the export once: the entries in one content item, no structuredContent", async () => {
    const answer = await callTool("papers_export_citations", { ids: ["1411.4413"], format: "csl-json" });
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toBeUndefined();
    expect(answer.content[0]!.text).toBe("1 CSL-JSON entry:");
    const entries = JSON.parse(answer.content[1]!.text);
    // "Nature 522, 68-72 (04 June 2015)" as fields.
    expect(entries[0]).toMatchObject({ "container-title": "Nature", volume: "522", page: "68-72" });
    expect(JSON.stringify(answer).split("68-72")).toHaveLength(2);
  });

  it("keeps 50 IDs under 20,000 tokens in every format, and says which IDs are left for the next call", async () => {
    const many = ["1411.4413", "2103.11058", "1310.8286"];
    const others = sampleRecords()
      .map((record) => record.id)
      .filter((id) => !many.includes(id))
      .slice(0, 47);
    const ids = [...many, ...others];
    for (const format of ["bibtex", "ris", "csl-json"] as const) {
      const answer = await callTool("papers_export_citations", { ids, format });
      expect(estimateTokens(JSON.stringify(answer)), format).toBeLessThanOrEqual(20_000);
      const result = answerOf(answer) as { entries: { id: string }[]; remaining_ids: string[]; text: string };
      if (format === "csl-json") JSON.parse(result.text);
      // Every ID is either exported here or named for the next call, in order.
      expect([...result.entries.map((entry) => entry.id), ...result.remaining_ids]).toEqual(ids);
      if (result.remaining_ids.length > 0) {
        expect(answer.content[0]!.text).toMatch(
          /more papers? (was|were) left out .* pass remaining_ids \(.*\) as ids next/,
        );
        const next = answerOf(await callTool("papers_export_citations", { ids: result.remaining_ids, format })) as {
          entries: unknown[];
        };
        expect(next.entries.length).toBeGreaterThan(0);
      }
    }
  });
});
