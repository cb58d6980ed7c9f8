// papers_check_bibliography against the mirror seeded with the real sample records and NBER rows:
// a whole bibliography in one call, in each format, with a verdict per entry, progress while it
// works, nothing asked upstream for what the mirrors hold (Crossref for the rest), an answer within
// its token budget, and hostile input typed.

import { env, exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { upsertMirror } from "../../src/store/nber-mirror";
import { estimateTokens } from "../../src/sources/text/tokens";
import { callTool, callToolWith, FAKE, mcpMessages, resetUpstream, toolError, upstreamHits } from "../helpers";
import { seedMirror } from "../mirror/driver";
import { MINIMUM_WAGE_PAPER } from "../support/nber";
import { MCP_HEADERS } from "../support/mcp-http";
import { parseBibtex } from "../support/bibtex";

beforeEach(resetUpstream);

interface Checked {
  format: string;
  summary: Record<string, number>;
  entries: {
    n: number;
    verdict: string;
    id?: string;
    differences?: { field: string; cited: string | null; record: string | null }[];
    bibtex?: string;
    tried?: string[];
    why?: string;
    duplicate_of?: number;
  }[];
  notices: string[];
}

async function check(args: Record<string, unknown>): Promise<Checked> {
  const result = await callTool("papers_check_bibliography", args);
  if (result.isError) throw new Error(result.content[0]!.text);
  return result.structuredContent as unknown as Checked;
}

const DIPHOTON = "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies";

describe("papers_check_bibliography", () => {
  beforeEach(async () => {
    await seedMirror();
    await upsertMirror(env.DB, [MINIMUM_WAGE_PAPER]);
  });

  it("gives every entry of a .bib file its verdict, with the record's BibTeX and what differs", async () => {
    const bib = [
      `@article{balazs2007,\n  author = {Bal{\\'a}zs, C. and Berger, E. L. and Nadolsky, P. M. and Yuan, C.-P.},\n  title = {${DIPHOTON}},\n  journal = {Phys. Rev. D},\n  year = {2007}\n}`,
      `@techreport{neumark,\n  author = {Neumark, David and Wascher, William},\n  title = {Minimum Wage Effects on Employment and School Enrollment},\n  institution = {National Bureau of Economic Research},\n  number = {4679},\n  year = {2001}\n}`,
      `@misc{again,\n  author = {Bal{\\'a}zs, C.},\n  title = {${DIPHOTON}},\n  year = {2007}\n}`,
      `@misc{versioned,\n  title = {${DIPHOTON}},\n  author = {Balazs, C.},\n  eprint = {0704.0001v9},\n  archivePrefix = {arXiv},\n  year = {2007}\n}`,
      "@article{invented,\n  author = {Smith, John and Doe, Jane},\n  title = {Quantum gravity signatures in minimum wage employment data},\n  year = {2019}\n}",
      "@article{broken, title = {Unclosed",
      `@misc{huge,\n  author = {${"Someone, A. and ".repeat(400)}Last, Z.},\n  title = {Too long}\n}`,
    ].join("\n\n");
    const result = await check({ bibliography: bib });
    expect(result.format).toBe("bibtex");
    // The third names one of the paper's four authors, without "and others": a partial author list.
    expect(result.entries.map((e) => e.verdict)).toEqual([
      "verified",
      "differs",
      "differs",
      "differs",
      "not_found",
      "unreadable",
      "unreadable",
    ]);
    expect(result.summary).toEqual({ entries: 7, verified: 1, differs: 3, not_found: 1, unchecked: 0, unreadable: 2 });
    const [first, second, third, fourth, fifth, sixth, seventh] = result.entries;
    expect(first).toMatchObject({ id: "arxiv:0704.0001" });
    // The corrected entry is written from the record, and it is BibTeX a parser reads.
    const parsed = parseBibtex(first!.bibtex!);
    expect(parsed.entries[0]!.properties.eprint).toBe("0704.0001");
    expect(second).toMatchObject({ id: "nber:w4679", differences: [{ field: "year", cited: "2001", record: "1994" }] });
    expect(third).toMatchObject({ id: "arxiv:0704.0001", duplicate_of: 1 });
    expect(third!.differences).toEqual([
      {
        field: "authors",
        cited: expect.stringContaining("1 of the record's 4 authors"),
        record: expect.stringContaining("Berger"),
      },
    ]);
    expect(fourth!.differences).toEqual([
      expect.objectContaining({ field: "authors" }),
      { field: "arxiv_version", cited: "v9", record: expect.stringMatching(/^v\d$/) },
    ]);
    expect(fifth!.tried!.length).toBeGreaterThan(0);
    expect(sixth!.why).toMatch(/BibTeX that cannot be read/);
    expect(seventh!.why).toMatch(/at most 5000/);
    // The mirrors verified the others; the entry not found and the one that differs (a near miss,
    // not a match) were then asked of Crossref, then of OpenAlex (which holds what Crossref lacks).
    expect((await upstreamHits()).map((hit) => hit.path.split("?")[0]).sort()).toEqual([
      "/crossref/works",
      "/crossref/works",
      "/openalex/works",
      "/openalex/works",
    ]);
  });

  it("leaves @string, @comment and @preamble out: they are not entries", async () => {
    const result = await check({
      bibliography: `@string{prd = {Phys. Rev. D}}\n@comment{jabref-meta: databaseType:bibtex;}\n@preamble{"\\newcommand{\\noop}[1]{}"}\n@article{balazs, author = {Bal{\\'a}zs, C. and Berger, E. L. and Nadolsky, P. M. and Yuan, C.-P.}, title = {${DIPHOTON}}, year = {2007}}`,
    });
    expect(result.summary).toMatchObject({ entries: 1, verified: 1, unreadable: 0 });
  });

  it("reads a numbered plain list, RIS and CSL-JSON", async () => {
    const list = await check({
      bibliography: `[1] C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan, "${DIPHOTON}," Phys. Rev. D 76, 013009 (2007).\n[2] Neumark, D. and Wascher, W. (1994). Minimum wage effects on employment and school enrollment. NBER WP 4679.\n[3]\n[4] J. Smith, "Attention is all you need," arXiv:0704.0001, 2017.`,
    });
    expect(list.format).toBe("text");
    expect(list.entries.map((e) => [e.n, e.verdict])).toEqual([
      [1, "verified"],
      [2, "verified"],
      [3, "unreadable"],
      [4, "not_found"],
    ]);
    const ris = await check({
      bibliography:
        "TY  - RPRT\nAU  - Neumark, David\nAU  - Wascher, William\nTI  - Minimum Wage Effects on Employment and School Enrollment\nPY  - 1994\nER  - \nTY  - JOUR\nTI  - \nER  - ",
    });
    expect(ris.entries.map((e) => e.verdict)).toEqual(["verified", "unreadable"]);
    const csl = await check({
      bibliography: JSON.stringify([
        {
          type: "article",
          title: DIPHOTON,
          author: [{ family: "Balázs", given: "C." }],
          issued: { "date-parts": [[2007]] },
        },
        { type: "article", DOI: "10.48550/arXiv.0704.0001", title: "A different title altogether about birds" },
        "not an item",
      ]),
    });
    // The first names one of four authors without "et al.": it differs, like any partial author list.
    expect(csl.entries.map((e) => e.verdict)).toEqual(["differs", "not_found", "unreadable"]);
    expect(csl.entries[0]!.differences!.map((d) => d.field)).toEqual(["authors"]);
  });

  it("reports progress while it works", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `${i + 1}. Balazs, C. (2007). ${DIPHOTON}.`).join("\n");
    const response = await exports.default.fetch("http://localhost/mcp", {
      method: "POST",
      headers: { host: "localhost", ...MCP_HEADERS },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "papers_check_bibliography",
          arguments: { bibliography: lines },
          _meta: { progressToken: "bib" },
        },
      }),
    });
    const messages = mcpMessages(await response.text());
    const progress = messages.filter((m) => m.method === "notifications/progress").map((m) => m.params);
    expect(progress.at(-1)).toMatchObject({
      progressToken: "bib",
      progress: 30,
      total: 30,
      message: "30 of 30 entries checked",
    });
    expect(progress.length).toBeGreaterThan(5);
    const final = messages.at(-1)!.result.structuredContent as Checked;
    expect(final.summary.verified).toBe(30);
    expect(final.entries.filter((e) => e.duplicate_of === 1)).toHaveLength(29);
  });

  it("keeps the whole answer within its token budget, and pages what does not fit", async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `${i + 1}. Balazs, C. (2007). ${DIPHOTON}.`).join("\n");
    const result = await callTool("papers_check_bibliography", { bibliography: lines, max_tokens: 4_000 });
    const size = estimateTokens(JSON.stringify(result.structuredContent)) + estimateTokens(result.content[0]!.text);
    expect(size).toBeLessThanOrEqual(4_000);
    const checked = result.structuredContent as unknown as Checked & { next_start: number | null };
    expect(checked.entries.length).toBeLessThan(120);
    expect(checked.next_start).toBe(checked.entries.length);
    expect(checked.notices.join(" ")).toMatch(/start=/);
    const rest = (
      await callTool("papers_check_bibliography", {
        bibliography: lines,
        max_tokens: 20_000,
        start: checked.next_start,
      })
    ).structuredContent as unknown as Checked & { next_start: number | null };
    expect(rest.entries[0]!.n).toBe(checked.next_start! + 1);
    expect(rest.next_start).toBeNull();
    // Ten distinct papers fit whole in the default budget, each with its BibTeX.
    const ten = Array.from({ length: 10 }, (_, i) => `${i + 1}. arXiv:0704.00${String(i + 10)}`).join("\n");
    const answer = (await callTool("papers_check_bibliography", { bibliography: ten }))
      .structuredContent as unknown as Checked;
    expect(answer.entries.filter((e) => e.verdict === "verified" && e.bibtex)).toHaveLength(10);
  });

  it("refuses what it cannot take with a typed error, and answers junk with verdicts", async () => {
    const tooMany = Array.from({ length: 201 }, (_, i) => `${i + 1}. Entry number ${i} about something`).join("\n");
    expect(toolError(await callTool("papers_check_bibliography", { bibliography: tooMany })).reason).toBe(
      "invalid_argument",
    );
    expect(toolError(await callTool("papers_check_bibliography", { bibliography: "" })).reason).toBe(
      "invalid_argument",
    );
    expect(toolError(await callTool("papers_check_bibliography", { bibliography: "x", format: "yaml" })).reason).toBe(
      "invalid_argument",
    );
    for (const bibliography of [
      "@@@@",
      "[{]",
      "TY  - \nER  - ",
      "\u0000\u0001 control",
      "(".repeat(5_000),
      "@misc{a,}\n@misc{b,",
    ]) {
      const result = await callTool("papers_check_bibliography", { bibliography });
      if (result.isError) expect(toolError(result).reason).toBe("invalid_argument");
      else expect((result.structuredContent as unknown as Checked).summary.verified).toBe(0);
    }
  });
});

describe("papers_check_bibliography with works outside arXiv and NBER (Crossref, recorded answers)", () => {
  beforeEach(async () => {
    await seedMirror();
  });

  it("verifies a journal article through Crossref with its own BibTeX, and tells not_found from unchecked", async () => {
    const result = await check({
      bibliography: [
        `[1] C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan, "${DIPHOTON}," Phys. Rev. D 76, 013009 (2007).`,
        "[2] D. Tkaczyk, P. Szostek, M. Fedoryszak, P. J. Dendek, and Bolikowski, “CERMINE: automatic extraction of structured metadata from scientific literature,” International Journal on Document Analysis and Recognition (IJDAR), vol. 18, no. 4, pp. 317–335, 2015.",
        "[3] Q. Nobody and R. Noone, “A theory of everything that was never written,” Journal of Imaginary Results, vol. 1, pp. 1–2, 2011.",
        "[4] A. Author, “Some work,” doi:10.5555/fake.503, 2019.",
      ].join("\n"),
    });
    expect(result.entries.map((entry) => entry.verdict)).toEqual(["verified", "verified", "not_found", "unchecked"]);
    expect(result.summary).toMatchObject({ verified: 2, not_found: 1, unchecked: 1 });
    expect(result.entries[1]!.id).toBe("crossref:10.1007/s10032-015-0249-8");
    const bib = parseBibtex(result.entries[1]!.bibtex!);
    expect(bib.entries[0]!.type).toBe("article");
    expect(bib.entries[0]!.properties).toMatchObject({
      journal: "International Journal on Document Analysis and Recognition (IJDAR)",
      volume: "18",
      pages: "317--335",
      year: "2015",
      doi: "10.1007/s10032-015-0249-8",
    });
    expect(result.entries[2]!.tried!.join(" ")).toContain("Crossref (query.bibliographic): 0 candidates");
    expect((result.entries[3] as { unchecked?: unknown }).unchecked).toEqual([
      { source: "crossref", reason: "upstream_unavailable", retry_after_ms: null },
    ]);
    // The arXiv paper came from the mirror: Crossref was asked for the other three only, and OpenAlex
    // for the two Crossref did not verify (one it lacks, one it could not answer).
    const hits = await upstreamHits();
    expect(hits.filter((hit) => hit.path.startsWith("/crossref/"))).toHaveLength(3);
    expect(hits.filter((hit) => hit.path.startsWith("/openalex/works?filter=title.search"))).toHaveLength(2);
    expect(hits).toHaveLength(5);
  });
});

describe("papers_check_bibliography on hard fabrications (a real paper's authors, year or identifier under another title)", () => {
  beforeEach(async () => {
    await seedMirror();
  });

  it("verifies none of them, and names the title that differs", async () => {
    const result = await check({
      bibliography: [
        // The real title run on with invented words, by the real authors, in the real year.
        `[1] C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan, "${DIPHOTON} and their uncertainties in the future," 2007.`,
        // The paper's own journal DOI and authors under an invented two-word title.
        `[2] C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan, "Quantum cats," doi:10.1103/PhysRevD.76.013009, 2007.`,
        // The paper's own journal reference and authors under an invented title (a long one; a three-word one below).
        "[3] Gilad Gour and Nolan R. Wallach. 2010. Contact Entanglement of Closures Force Through Model Modeling Model. Phys. Rev. A 76, 042309 (2007).",
        // A real two-word title (0704.0770) by someone else.
        "[4] S. Smith. Chemical Evolution. 2007.",
        // The same paper, cited rightly: the controls.
        `[5] C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan, "${DIPHOTON}," Phys. Rev. D 76, 013009 (2007).`,
        "[6] F. Matteucci, Chemical Evolution, 2007.",
      ].join("\n"),
    });
    const verdicts = result.entries.map((e) => e.verdict);
    expect(verdicts.slice(0, 4)).not.toContain("verified");
    expect(verdicts.slice(4)).toEqual(["verified", "verified"]);
    expect(result.entries[0]).toMatchObject({ verdict: "differs", id: "arxiv:0704.0001" });
    expect(result.entries[0]!.differences!.map((d) => d.field)).toEqual(["title"]);
    expect(result.entries[1]).toMatchObject({
      verdict: "differs",
      id: "arxiv:0704.0001",
      differences: [{ field: "title", cited: "Quantum cats", record: DIPHOTON }],
    });
    expect(result.entries[3]).toMatchObject({ verdict: "differs", id: "arxiv:0704.0770" });
    const short = await check({
      bibliography: "[1] G. Gour and N. R. Wallach, Qutrit Witnesses Revisited, Phys. Rev. A 76, 042309 (2007).",
    });
    expect(short.entries[0]!.verdict).not.toBe("verified");
    // BibTeX's pages are read (the parser gives ranges): another first page differs.
    const pages = await check({
      bibliography:
        "@article{gour, author = {Gour, Gilad and Wallach, Nolan R.}, title = {Entanglement of subspaces and error correcting codes}, journal = {Phys. Rev. A}, volume = {76}, pages = {999--1010}, year = {2007}}",
    });
    expect(pages.entries[0]).toMatchObject({
      verdict: "differs",
      differences: [{ field: "pages", cited: "999-1010", record: "42309" }],
    });
  });

  it("takes a real title run on in title case for another title", async () => {
    const result = await check({
      bibliography: `[1] C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan, "${DIPHOTON} For Future Colliders," 2007.`,
    });
    expect(result.entries[0]).toMatchObject({ verdict: "differs", id: "arxiv:0704.0001" });
    expect(result.entries[0]!.differences!.map((d) => d.field)).toEqual(["title"]);
  });

  it("compares a structured entry's volume and pages, and names an identifier that is another paper's", async () => {
    const result = await check({
      bibliography: [
        // 0704.0251 is Phys. Rev. A 76, 042309 (2007): another volume.
        "@article{gour, author = {Gour, Gilad and Wallach, Nolan R.}, title = {Entanglement of subspaces and error correcting codes}, journal = {Phys. Rev. A}, volume = {77}, pages = {042309}, year = {2007}}",
        "@article{right, author = {Gour, Gilad and Wallach, Nolan R.}, title = {Entanglement of subspaces and error correcting codes}, journal = {Phys. Rev. A}, volume = {76}, pages = {042309}, year = {2007}}",
        // The diphoton paper's title and authors under the Gour-Wallach paper's arXiv ID.
        `@misc{mixed, author = {Bal{\\'a}zs, C. and Berger, E. L. and Nadolsky, P. M. and Yuan, C.-P.}, title = {${DIPHOTON}}, eprint = {0704.0251}, archivePrefix = {arXiv}, year = {2007}}`,
      ].join("\n\n"),
    });
    expect(result.entries[0]).toMatchObject({
      verdict: "differs",
      id: "arxiv:0704.0251",
      differences: [{ field: "volume", cited: "77", record: "76" }],
    });
    expect(result.entries[1]).toMatchObject({ verdict: "verified", id: "arxiv:0704.0251" });
    expect(result.entries[2]!.verdict).toBe("differs");
    expect(result.entries[2]!.differences).toContainEqual(
      expect.objectContaining({ field: "arxiv_id", cited: expect.stringContaining("0704.0251") }),
    );
  });

  it("finds the work a reference names when its DOI has a typo that names another work", async () => {
    // The DOI is a real Physical Review Letters paper's (recorded); the rest is the CERMINE paper (recorded).
    const result = await check({
      bibliography:
        "[1] D. Tkaczyk, P. Szostek, M. Fedoryszak, P. J. Dendek, and Bolikowski, “CERMINE: automatic extraction of structured metadata from scientific literature,” International Journal on Document Analysis and Recognition (IJDAR), vol. 18, no. 4, pp. 317–335, 2015, doi:10.1103/PhysRevLett.120.117701.",
    });
    expect(result.entries[0]).toMatchObject({
      verdict: "differs",
      id: "crossref:10.1007/s10032-015-0249-8",
      differences: [{ field: "doi", cited: "10.1103/PhysRevLett.120.117701" }],
    });
  });
});

describe("papers_check_bibliography writes the corrected BibTeX from the record alone", () => {
  beforeEach(async () => {
    await seedMirror();
  });

  it("lists a Crossref work's whole author list in Crossref's own name parts, not the entry's", async () => {
    // The recorded Crossref work has six authors; the entry names three and "et al.".
    const result = await check({
      bibliography:
        "Sadasivan S, Pond BB, Pani AK, et al. Methylphenidate exposure induces dopamine neuron loss and activation of microglia in the basal ganglia of mice. PLoS One. 2012;7(3):e33693. doi:10.1371/journal.pone.0033693",
    });
    expect(result.entries[0]).toMatchObject({ verdict: "verified", id: "crossref:10.1371/journal.pone.0033693" });
    const bib = parseBibtex(result.entries[0]!.bibtex!);
    expect(bib.entries[0]!.properties.author).toBe(
      "Sadasivan, Shankar and Pond, Brooks B. and Pani, Amar K. and Qu, Chunxu and Jiao, Yun and Smeyne, Richard J.",
    );
  });
});

describe("papers_check_bibliography when arXiv cannot be asked", () => {
  beforeEach(async () => {
    await seedMirror();
  });

  it("calls an arXiv ID it could not look up unchecked, never not_found, and says when arXiv failed", async () => {
    const { result } = await callToolWith(
      "papers_check_bibliography",
      {
        bibliography:
          "[1] A. Author, A study of quasinormal modes in rotating black holes, arXiv:2401.01234, 2024.\n" +
          `[2] C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan, "${DIPHOTON}," Phys. Rev. D 76, 013009 (2007).`,
      },
      { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/status-503`, CROSSREF_ENABLED: "false" },
    );
    const checked = result.structuredContent as Checked;
    expect(checked.entries.map((e) => e.verdict)).toEqual(["unchecked", "verified"]);
    expect((checked.entries[0] as { unchecked?: unknown }).unchecked).toContainEqual(
      expect.objectContaining({ source: "arxiv" }),
    );
    expect(checked.entries[0]!.tried!.join(" ")).toContain("arXiv ID 2401.01234: live_lookup_failed");
  });
});

describe("papers_check_bibliography keeps the version a reference cites", () => {
  beforeEach(async () => {
    await seedMirror();
    await upsertMirror(env.DB, [MINIMUM_WAGE_PAPER]);
  });

  it("checks an NBER paper cited as its journal article against the article's record, and writes BibTeX from the records alone", async () => {
    const cite = (volume: string, pages: string) =>
      check({
        bibliography: `Neumark, D., & Wascher, W. (1995). Minimum wage effects on employment and school enrollment. Journal of Business & Economic Statistics, ${volume}, ${pages}.`,
      });
    const real = await cite("13(2)", "199-206");
    expect(real.entries[0]).toMatchObject({ verdict: "verified", id: "nber:w4679" });
    // Crossref was asked for the article (its record is hand-made here, from NBER's page).
    expect((await upstreamHits()).map((hit) => hit.path.split("?")[0])).toEqual(["/crossref/works"]);
    // An invented volume and pages under the real paper: not verified, with the article's own.
    const invented = await cite("99(9)", "1-2");
    expect(invented.entries[0]).toMatchObject({
      verdict: "differs",
      id: "nber:w4679",
      differences: [
        {
          field: "journal_ref",
          cited: expect.stringContaining("99"),
          record: "Journal of Business & Economic Statistics 13, 199-206 (1995)",
        },
      ],
    });
    for (const result of [real, invented]) {
      // The mirror's record is the working paper: its BibTeX has no volume or pages, and none from the entry.
      const bib = parseBibtex(result.entries[0]!.bibtex!);
      expect(bib.entries[0]!.type).toBe("techreport");
      expect(bib.entries[0]!.properties).toMatchObject({ number: "4679", year: "1994" });
      expect(bib.entries[0]!.properties.volume).toBeUndefined();
      expect(bib.entries[0]!.properties.pages).toBeUndefined();
    }
  });

  it("says differs, not verified, when the journal version is cited with another volume or page", async () => {
    const result = await check({
      bibliography:
        "G. Gour and N. R. Wallach. Entanglement of subspaces and error correcting codes. Phys. Rev. A 77, 042309 (2007).",
    });
    expect(result.entries[0]).toMatchObject({
      verdict: "differs",
      id: "arxiv:0704.0251",
      differences: [
        { field: "journal_ref", cited: "Phys. Rev. A 77, 042309 (2007)", record: "Phys. Rev. A 76, 042309 (2007)" },
      ],
    });
  });

  it("writes an arXiv paper cited as its journal version with the journal's fields and its eprint", async () => {
    const result = await check({ bibliography: "G. Gour and N. R. Wallach, Phys. Rev. A 76, 042309 (2007)." });
    expect(result.entries[0]).toMatchObject({ verdict: "verified", id: "arxiv:0704.0251" });
    const bib = parseBibtex(result.entries[0]!.bibtex!);
    expect(bib.entries[0]!.type).toBe("article");
    expect(bib.entries[0]!.properties).toMatchObject({
      journal: "Phys. Rev. A",
      volume: "76",
      pages: "042309",
      year: "2007",
      eprint: "0704.0251",
    });
  });
});
