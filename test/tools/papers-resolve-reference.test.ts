// papers_resolve_reference against the mirror seeded with the real sample records (and an NBER mirror row):
// identifiers exactly, titles by search and scoring, and honest no_match answers for references that do not
// exist, including a real ID with an invented title.

import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { upsertMirror } from "../../src/store/nber-mirror";
import { putCachedInfo } from "../../src/store/nber-cache";
import { callToolWith, FAKE, mcpCall, resetUpstream, statusJson, toolError, upstreamHits } from "../helpers";
import { sampleRecords, seedMirror } from "../mirror/driver";
import { MINIMUM_WAGE_PAPER } from "../support/nber";

beforeEach(resetUpstream);

// Each call is its own client: this file resolves hundreds of references, past the per-client limit
// on the expensive tools (test/auth.test.ts tests that limit).
let clients = 0;
async function callTool(name: string, args: unknown) {
  const headers = { "cf-connecting-ip": `resolve-test-${++clients}` };
  const { status, message } = await mcpCall("tools/call", { name, arguments: args }, { headers });
  if (status !== 200) throw new Error(`tools/call ${name} answered HTTP ${status}: ${JSON.stringify(message)}`);
  return message.result;
}

async function resolve(args: Record<string, unknown>) {
  const result = await callTool("papers_resolve_reference", args);
  if (result.isError) throw new Error(result.content[0]!.text);
  return result.structuredContent as {
    status: "match" | "no_match";
    matches: {
      source: string;
      id: string;
      confidence: number;
      agreed: Record<string, unknown>;
      how: string;
      also?: { source: string; id: string; how: string }[];
      differences?: { field: string; cited: string | null; record: string | null }[];
    }[];
    near_misses: { id: string; confidence: number }[];
    conflict: string | null;
    parsed: Record<string, unknown>;
    tried: string[];
  };
}

describe("papers_resolve_reference", () => {
  beforeEach(async () => {
    await seedMirror();
    await upsertMirror(env.DB, [
      {
        id: "w25000",
        title: "The Intergenerational Transmission of Human Capital: Evidence from the Golden Age of Upward Mobility",
        authors: ["David Card", "Lowell J Taylor", "Ciprian Domnisoru"],
        date: "2018-09",
        abstract: null,
        source: "nberwp",
      },
    ]);
  });

  it("names what a matched reference states that its record does not, as papers_check_bibliography does", async () => {
    const entry = (volume: string) =>
      `@article{gour, author = {Gour, Gilad and Wallach, Nolan R.}, title = {Entanglement of subspaces and error correcting codes}, journal = {Phys. Rev. A}, volume = {${volume}}, pages = {042309}, year = {2007}}`;
    const wrong = await resolve({ reference: entry("77") });
    expect(wrong.matches[0]).toMatchObject({
      source: "arxiv",
      id: "0704.0251",
      differences: [{ field: "volume", cited: "77", record: "76" }],
    });
    const right = await resolve({ reference: entry("76") });
    expect(right.matches[0]!.id).toBe("0704.0251");
    expect(right.matches[0]!.differences).toBeUndefined();
    // Fields given: a partial author list is a difference too.
    const fields = await resolve({ title: "Entanglement of subspaces and error correcting codes", authors: ["Gour"] });
    expect(fields.matches[0]!.differences).toEqual([
      expect.objectContaining({ field: "authors", cited: expect.stringContaining("1 of the record's 2 authors") }),
    ]);
  });

  it("finds a real paper from its bibliography entry, with what agreed", async () => {
    const result = await resolve({
      reference:
        "C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan. Calculation of prompt diphoton production cross sections at Tevatron and LHC energies. Phys. Rev. D 76, 013009 (2007).",
    });
    expect(result.status).toBe("match");
    expect(result.matches[0]).toMatchObject({ source: "arxiv", id: "0704.0001" });
    expect(result.matches[0]!.confidence).toBeGreaterThanOrEqual(0.95);
    expect(result.matches[0]!.agreed).toEqual({
      title: "exact",
      title_coverage: 1,
      authors: "agree",
      surnames_matched: "4 of 4",
      year: "agree",
      year_cited: 2007,
      exact_identifier: null,
      journal_ref: "Phys. Rev. D 76, 013009 (2007)",
    });
    expect(result.matches).toHaveLength(1);
    expect(result.tried.join(" ")).toContain("words of the reference in the arXiv mirror");
    // The mirror answered: nothing was asked of arXiv or NBER.
    expect(await upstreamHits()).toEqual([]);
  });

  it("resolves identifiers exactly: an arXiv ID, arXiv's DOI, a journal DOI through the mirror, an NBER number", async () => {
    expect((await resolve({ reference: "See arXiv:0704.0001v1." })).matches[0]).toMatchObject({
      id: "0704.0001",
      confidence: 0.99,
    });
    expect((await resolve({ doi: "https://doi.org/10.48550/arXiv.0704.0007" })).matches[0]).toMatchObject({
      id: "0704.0007",
    });
    const journal = await resolve({ reference: "Phys. Rev. D 76, 013009 (2007), doi:10.1103/physrevd.76.013009." });
    expect(journal.matches[0]).toMatchObject({ source: "arxiv", id: "0704.0001" });
    expect(journal.matches[0]!.agreed.exact_identifier).toBe("DOI 10.1103/physrevd.76.013009");
    const nber = await resolve({
      reference:
        "Card, D., L. J. Taylor and C. Domnisoru (2018). The Intergenerational Transmission of Human Capital: Evidence from the Golden Age of Upward Mobility. NBER Working Paper No. 25000.",
    });
    expect(nber.matches[0]).toMatchObject({ source: "nber", id: "w25000" });
    expect(nber.matches[0]!.agreed).toMatchObject({ title: "exact", authors: "agree", year: "agree" });
  });

  it("says no_match for a paper that is not there, and never presents a near miss as a match", async () => {
    const result = await resolve({
      reference: "A. Vaswani, N. Shazeer, N. Parmar, et al. Attention is all you need. In NeurIPS, 2017.",
    });
    expect(result.status).toBe("no_match");
    expect(result.matches).toEqual([]);
    for (const near of result.near_misses) expect(near.confidence).toBeLessThan(0.8);
    expect(result.parsed).toMatchObject({
      title: "Attention is all you need",
      year: 2017,
      authors: ["Vaswani", "Shazeer", "Parmar"],
    });
    expect(result.tried.length).toBeGreaterThan(0);
  });

  it("does not vouch for a real ID cited with another paper's title (an invented reference)", async () => {
    const result = await resolve({ reference: "J. Smith. Attention is all you need. arXiv:0704.0001, 2017." });
    expect(result.status).toBe("no_match");
    expect(result.near_misses[0]).toMatchObject({ id: "0704.0001", confidence: 0.4 });
  });

  it("does not match the same title by other authors", async () => {
    const result = await resolve({
      title: "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
      authors: ["Hinton", "LeCun"],
      year: 2007,
    });
    expect(result.status).toBe("no_match");
    expect(result.near_misses[0]).toMatchObject({ id: "0704.0001", confidence: 0.6 });
  });

  it("answers hostile text in bounded time with a typed answer, never a crash", async () => {
    for (const reference of [
      "A. ".repeat(666),
      "(".repeat(2_000),
      "NBER ".repeat(400),
      `10.1000/${"a".repeat(1_990)}`,
      "Smith, J., ".repeat(180),
      "\u0000 control",
    ]) {
      const result = await callTool("papers_resolve_reference", { reference });
      if (result.isError) expect(toolError(result).reason).toBe("invalid_argument");
      else expect(result.structuredContent.status).toBe("no_match");
    }
  });

  it("refuses an empty, unreadable or oversized reference with a typed error", async () => {
    expect(toolError(await callTool("papers_resolve_reference", {})).reason).toBe("invalid_argument");
    expect(toolError(await callTool("papers_resolve_reference", { reference: "pp. 1-10" })).reason).toBe(
      "invalid_argument",
    );
    expect(toolError(await callTool("papers_resolve_reference", { reference: "x".repeat(5_001) })).reason).toBe(
      "invalid_argument",
    );
  });
});

interface SampleCase {
  kind: "real" | "fabricated" | "near";
  style: string;
  text: string;
  expect: { status: "match"; source: string; id: string; also?: string[] } | { status: "no_match" };
  near?: { change: string; from: string; other?: string };
}

describe("papers_resolve_reference on the reference set (a sample; npm run bench:references runs it whole)", () => {
  const sample = JSON.parse(env.TEST_REFERENCE_SAMPLE) as {
    cases: SampleCase[];
    nber: { id: string; title: string; authors: string[]; date: string }[];
  };

  beforeEach(async () => {
    await seedMirror();
    for (let i = 0; i < sample.nber.length; i += 200)
      await upsertMirror(
        env.DB,
        sample.nber.slice(i, i + 200).map((row) => ({ ...row, abstract: null, source: "nberwp" as const })),
      );
  });

  it("finds every real reference in all 15 styles, physics references without a title, journal versions and noisy titles, and matches no fabricated reference or near miss", async () => {
    const styles = new Set(sample.cases.filter((c) => c.kind === "real").map((c) => c.style));
    expect(styles.size).toBe(23);
    const wrong: string[] = [];
    // References to mirror papers first: nothing is asked of any upstream for them.
    const held = (c: SampleCase) => c.kind === "real" && c.expect.status === "match" && c.expect.source !== "crossref";
    const ordered = [...sample.cases].sort((a, b) => Number(!held(a)) - Number(!held(b)));
    let hitsAfterReal: unknown[] | null = null;
    for (const c of ordered) {
      if (!held(c) && hitsAfterReal === null) hitsAfterReal = await upstreamHits();
      const result = await resolve({ reference: c.text });
      const top = result.matches[0] ? `${result.matches[0].source}:${result.matches[0].id}` : null;
      const expected = c.expect.status === "match" ? `${c.expect.source}:${c.expect.id}` : null;
      const want = c.expect;
      const versions = want.status === "match" ? (want.also ?? []).map((id) => `${want.source}:${id}`) : [];
      if (top?.toLowerCase() !== expected?.toLowerCase() && !versions.includes(top ?? ""))
        wrong.push(
          `${c.kind} ${c.style} ${c.near?.change ?? ""}: got ${top}, want ${expected}: ${c.text.slice(0, 160)}`,
        );
    }
    expect(wrong).toEqual([]);
    expect(sample.cases.filter((c) => c.kind === "real").length).toBeGreaterThanOrEqual(90);
    expect(sample.cases.filter((c) => c.kind === "fabricated").length).toBe(40);
    // The mirrors answered every reference to their papers; the others (works outside them,
    // fabricated ones, near misses) were then asked of Crossref, and what Crossref lacks of OpenAlex.
    expect(hitsAfterReal).toEqual([]);
    const hits = await upstreamHits();
    expect(hits.filter((hit) => hit.path.startsWith("/crossref/works")).length).toBeGreaterThan(0);
    expect(hits.filter((hit) => hit.path.startsWith("/openalex/works?filter=title.search")).length).toBeGreaterThan(0);
    expect(
      hits.filter(
        (hit) => !hit.path.startsWith("/crossref/works") && !hit.path.startsWith("/openalex/works?filter=title.search"),
      ),
    ).toEqual([]);
    expect(
      sample.cases.filter((c) => c.expect.status === "match" && c.expect.source === "crossref").length,
    ).toBeGreaterThan(15);
  });

  it("says which paper an identifier names when the rest of the reference names another", async () => {
    const near = sample.cases.find((c) => c.near?.change === "arxiv-id-of-another-paper")!;
    const result = await resolve({ reference: near.text });
    expect(result.status).toBe("no_match");
    expect(result.conflict).toContain(`arXiv ID ${near.near!.other!.slice(6)}`);
    expect(result.conflict).toContain(near.near!.from);
    const nber = sample.cases.find((c) => c.near?.change === "nber-number-of-another-paper")!;
    const other = await resolve({ reference: nber.text });
    expect(other.status).toBe("no_match");
    expect(other.conflict).toContain(`NBER number ${nber.near!.other!.slice(5)}`);
  });
});

describe("papers_resolve_reference reads identifiers in every spelling and any style", () => {
  beforeEach(async () => {
    await seedMirror();
    await upsertMirror(env.DB, [MINIMUM_WAGE_PAPER]);
  });

  it("resolves the reference that answered no_match with nothing tried", async () => {
    const result = await resolve({
      reference: "Neumark and Wascher (1994), Minimum wage effects on employment and school enrollment, NBER WP 4679",
    });
    expect(result.matches[0]).toMatchObject({ source: "nber", id: "w4679", confidence: 0.99 });
  });

  it("reads arXiv IDs, DOIs and NBER numbers wherever and however they are written", async () => {
    for (const reference of [
      "arXiv preprint arXiv:0704.0001v2",
      "https://arxiv.org/pdf/0704.0001v1.pdf",
      "http://arxiv.org/abs/0704.0001",
      "doi: 10.48550/arXiv.0704.0001",
      "https://doi.org/10.1103/PhysRevD.76.\n013009",
    ])
      expect((await resolve({ reference })).matches[0], reference).toMatchObject({ source: "arxiv", id: "0704.0001" });
    for (const reference of [
      "NBER Working Paper No. 4679",
      "Working Paper 4679",
      "w4679",
      "https://www.nber.org/papers/w4679",
      "doi:10.3386/w4679",
    ])
      expect((await resolve({ reference })).matches[0], reference).toMatchObject({ source: "nber", id: "w4679" });
  });

  it("finds a title through PDF noise, TeX, ligatures, case and punctuation", async () => {
    for (const reference of [
      "C. Balazs et al., “Calcu- lation of prompt diphoton production cross sections at Tevatron and LHC ener-\ngies,” 2007.",
      "calculation of prompt diphoton production cross sections at tevatron and lhc energies",
      "Bal\\'azs, C. (2007). CALCULATION OF PROMPT DIPHOTON PRODUCTION CROSS SECTIONS AT TEVATRON AND LHC ENERGIES.",
    ])
      expect((await resolve({ reference })).matches[0], reference).toMatchObject({ id: "0704.0001" });
  });

  it("reads a pasted BibTeX, RIS or CSL-JSON entry as its fields", async () => {
    const bibtex = await resolve({
      reference:
        "@techreport{neumark1994,\n author = {Neumark, David and Wascher, William},\n title = {Minimum Wage Effects on Employment and School Enrollment},\n institution = {National Bureau of Economic Research},\n year = {1994}\n}",
    });
    expect(bibtex.matches[0]).toMatchObject({ id: "w4679" });
    expect(bibtex.parsed).toMatchObject({
      title: "Minimum Wage Effects on Employment and School Enrollment",
      year: 1994,
    });
    const ris = await resolve({
      reference:
        "TY  - RPRT\nAU  - Neumark, David\nAU  - Wascher, William\nTI  - Minimum Wage Effects on Employment and School Enrollment\nPY  - 1994\nER  - ",
    });
    expect(ris.matches[0]).toMatchObject({ id: "w4679" });
    const csl = await resolve({
      reference: JSON.stringify({
        type: "report",
        title: "Minimum Wage Effects on Employment and School Enrollment",
        author: [{ family: "Neumark", given: "David" }],
        issued: { "date-parts": [[1994]] },
      }),
    });
    expect(csl.matches[0]).toMatchObject({ id: "w4679" });
    expect(
      toolError(await callTool("papers_resolve_reference", { reference: "@article{broken, title = {Unclosed" })).reason,
    ).toBe("invalid_argument");
  });

  it("reports a journal DOI or an NBER DOI that names another paper than the title and authors", async () => {
    const journal = await resolve({
      reference:
        "Neumark, D. and Wascher, W. (1994). Minimum wage effects on employment and school enrollment. doi:10.1103/PhysRevD.76.013009",
    });
    expect(journal.status).toBe("no_match");
    expect(journal.conflict).toBe(
      'DOI 10.1103/PhysRevD.76.013009 is arxiv:0704.0001 ("Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"), but the title and authors are those of nber:w4679 ("Minimum Wage Effects on Employment and School Enrollment").',
    );
    const nber = await resolve({
      reference: `C. Balázs et al. (2007). ${"Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"}. https://doi.org/10.3386/w4679`,
    });
    expect(nber.status).toBe("no_match");
    expect(nber.conflict).toContain("NBER number w4679 is nber:w4679");
  });

  it("keeps the same title with another year, or by other authors, out of the matches", async () => {
    const year = await resolve({
      reference: "Neumark, D. and Wascher, W. (2009). Minimum wage effects on employment and school enrollment.",
    });
    expect(year.status).toBe("no_match");
    expect(year.near_misses[0]).toMatchObject({
      id: "w4679",
      agreed: { title: "exact", authors: "agree", year: "disagree" },
    });
    const authors = await resolve({
      reference: "Card, D. and Krueger, A. (1994). Minimum wage effects on employment and school enrollment.",
    });
    expect(authors.status).toBe("no_match");
    expect(authors.near_misses[0]).toMatchObject({ id: "w4679", agreed: { authors: "disagree" } });
  });
});

describe("papers_resolve_reference on physics references without a title (authors and a journal reference)", () => {
  beforeEach(async () => {
    await seedMirror();
  });

  it.each([
    ["G. Gour and N. R. Wallach, Phys. Rev. A 76, 042309 (2007).", "0704.0251"],
    ["Gour G, Wallach NR. Physical Review A 76:042309, 2007", "0704.0251"],
    ["C. Balazs et al., Phys.Rev.D76:013009,2007", "0704.0001"],
    ["[3] C. Bal\\'azs, E. L. Berger, P. M. Nadolsky and C.-P. Yuan, Phys. Rev. D 76, 13009 (2007)", "0704.0001"],
    ["S. L. Cacciatori, M. M. Caldarelli, D. Klemm, D. S. Mansi and D. Roest, JHEP 07 (2007) 046", "0704.0247"],
    ["Cacciatori S L et al 2007 JHEP0707:046", "0704.0247"],
    ["P. Harvey et al., ApJ 663, 1149 (2007)", "0704.0009"],
    ["Mhlahlo, N., Buckley, D. H., Dhillon, V. S., et al. 2007, MNRAS, 378, 211", "0704.0017"],
    ["X. Liu et al., Astron. Astrophys. 470, 97 (2007)", "0704.0310"],
    ["G. R. Jafari, P. Pedram and L. Hedayatifar, J. Stat. Mech. (2007) P04012", "0704.0726"],
    ["V. M. Biryukov, Phys. Lett. B 658 (2007) 7", "0704.0031"],
  ])("finds %s", async (reference, id) => {
    const result = await resolve({ reference });
    expect(result.status).toBe("match");
    expect(result.matches[0]).toMatchObject({ source: "arxiv", id });
    expect(result.matches[0]!.agreed).toMatchObject({ title: "none", authors: "agree" });
    expect(result.matches[0]!.agreed.journal_ref).toBeTruthy();
    expect(result.matches[0]!.confidence).toBeGreaterThanOrEqual(0.85);
    expect(result.tried.join(" ")).toContain("journal reference");
    expect(await upstreamHits()).toEqual([]);
  });

  it("does not vouch for a journal reference cited with another paper's authors", async () => {
    const result = await resolve({
      reference: "C. Balazs, E. L. Berger and P. M. Nadolsky, Phys. Rev. A 76, 042309 (2007).",
    });
    expect(result.status).toBe("no_match");
    expect(result.tried.join(" ")).toContain("Phys. Rev. A 76, 042309 (2007) in the arXiv mirror: 1 paper");
    expect(result.matches).toEqual([]);
    const near = result.near_misses.find((c) => c.id === "0704.0251") as
      | { agreed: Record<string, unknown> }
      | undefined;
    if (near) expect(near.agreed).toMatchObject({ authors: "disagree" });
  });

  it("says no_match for a page no paper has, and for a journal reference without authors", async () => {
    const page = await resolve({ reference: "G. Gour and N. R. Wallach, Phys. Rev. A 76, 042399 (2007)." });
    expect(page.status).toBe("no_match");
    expect(page.tried.join(" ")).toContain("Phys. Rev. A 76, 042399 (2007) in the arXiv mirror: 0 papers");
    const volume = await resolve({ reference: "G. Gour and N. R. Wallach, Phys. Rev. A 77, 042309 (2007)." });
    expect(volume.status).toBe("no_match");
    const journal = await resolve({ reference: "G. Gour and N. R. Wallach, Phys. Rev. B 76, 042309 (2007)." });
    expect(journal.status).toBe("no_match");
    // The journal reference alone names the paper, but nothing in the text vouches for it.
    const bare = await resolve({ reference: "Phys. Rev. A 76, 042309 (2007), cited above." });
    expect(bare.status).toBe("no_match");
    expect(bare.near_misses[0]).toMatchObject({ id: "0704.0251", agreed: { authors: "absent" } });
  });

  it("vouches for neither of two papers that carry the cited journal reference, and not for another first author", async () => {
    // A second record claiming 0704.0251's journal reference (hand-made: arXiv's metadata has such duplicates).
    const records = sampleRecords();
    const original = records.find((r) => r.id === "0704.0251")!;
    await seedMirror([
      ...records,
      { ...original, id: "0705.9999", title: "A comment on codes", authors: "Gilad Gour" },
    ]);
    const shared = await resolve({ reference: "G. Gour and N. R. Wallach, Phys. Rev. A 76, 042309 (2007)." });
    expect(shared.status).toBe("no_match");
    expect(shared.tried.join(" ")).toContain("arxiv:0704.0251 and arxiv:0705.9999 both carry it");
    await seedMirror();
    // The first author's surname with another initial is another person.
    const initial = await resolve({ reference: "H. Gour and N. R. Wallach, Phys. Rev. A 76, 042309 (2007)." });
    expect(initial.status).toBe("no_match");
  });

  it("takes the journal version's year as the paper's year", async () => {
    // 0704.0251 was submitted in 2007; a reference may give the journal's year.
    const result = await resolve({
      reference:
        "G. Gour and N. R. Wallach. Entanglement of subspaces and error correcting codes. Phys. Rev. A 76, 042309 (2007).",
    });
    expect(result.matches[0]).toMatchObject({ id: "0704.0251", agreed: { title: "exact", year: "agree" } });
  });
});

describe("papers_resolve_reference outside arXiv and NBER (Crossref, recorded answers)", () => {
  beforeEach(async () => {
    await seedMirror();
  });

  type Resolved = Awaited<ReturnType<typeof resolve>> & {
    unchecked: { source: string; reason: string; retry_after_ms: number | null }[];
  };
  const resolveAll = (args: Record<string, unknown>) => resolve(args) as Promise<Resolved>;

  it("verifies a journal article from its free text against Crossref's candidates, never on Crossref's score", async () => {
    const result = await resolveAll({
      reference:
        "D. Tkaczyk, P. Szostek, M. Fedoryszak, P. J. Dendek, and Bolikowski, “CERMINE: automatic extraction of structured metadata from scientific literature,” International Journal on Document Analysis and Recognition (IJDAR), vol. 18, no. 4, pp. 317–335, 2015.",
    });
    expect(result.status).toBe("match");
    expect(result.matches[0]).toMatchObject({
      source: "crossref",
      id: "10.1007/s10032-015-0249-8",
      agreed: { title: "exact", authors: "agree", year: "agree" },
    });
    expect((result.matches[0] as { venue?: unknown }).venue).toMatchObject({
      container: "International Journal on Document Analysis and Recognition (IJDAR)",
      volume: "18",
      page: "317-335",
    });
    // The second candidate shares the first words of the title ("CERMINE -- Automatic Extraction of
    // Metadata and References ..."), Crossref scores it 120: its title is not the one cited.
    expect(result.matches.map((m) => m.id)).not.toContain("10.1109/das.2014.63");
    expect(result.tried.join(" ")).toContain("Crossref (query.bibliographic): 5 candidates");
    expect((await upstreamHits()).map((hit) => hit.path.split("?")[0])).toEqual(["/crossref/works"]);
  });

  it("names the arXiv paper too when the Crossref work it verified is one the mirror holds as a journal DOI", async () => {
    // The preprint of a journal article often has another title: the word walk does not verify it,
    // Crossref does, and its DOI is the preprint's journal DOI in the mirror.
    const [template] = sampleRecords();
    await seedMirror([
      ...sampleRecords(),
      {
        ...template!,
        id: "1503.09999",
        title: "Extracting metadata from born-digital scholarly articles with a modular workflow",
        doi: "10.1007/s10032-015-0249-8",
        journal_ref: null,
      },
    ]);
    const call = await callTool("papers_resolve_reference", {
      reference:
        "D. Tkaczyk, P. Szostek, M. Fedoryszak, P. J. Dendek, and Bolikowski, “CERMINE: automatic extraction of structured metadata from scientific literature,” International Journal on Document Analysis and Recognition (IJDAR), vol. 18, no. 4, pp. 317–335, 2015.",
    });
    expect((call.structuredContent as Resolved).matches[0]).toMatchObject({
      source: "crossref",
      id: "10.1007/s10032-015-0249-8",
      also: [
        { source: "arxiv", id: "1503.09999" },
        { source: "doi", id: "10.48550/arXiv.1503.09999" },
      ],
    });
    expect(call.content[0]!.text).toContain("also arxiv:1503.09999, doi:10.48550/arXiv.1503.09999");
    // An arXiv match names its published version's DOI and its DataCite DOI.
    const published = sampleRecords().find((r) => r.doi && r.journal_ref)!;
    const arxiv = await resolveAll({
      reference: `${published.authors.split(",")[0]}, ${published.title}, arXiv:${published.id}`,
    });
    expect(arxiv.matches[0]).toMatchObject({
      source: "arxiv",
      also: expect.arrayContaining([
        { source: "doi", id: published.doi!.split(/\s+/)[0], how: "the published version (arXiv's metadata)" },
        { source: "doi", id: `10.48550/arXiv.${published.id}`, how: "arXiv's DataCite DOI" },
      ]),
    });
  });

  it("names an NBER paper's DOI, and its published version when the reference cites the article and its page is cached", async () => {
    await upsertMirror(env.DB, [MINIMUM_WAGE_PAPER]);
    const article =
      "Neumark, D., & Wascher, W. (1995). Minimum wage effects on employment and school enrollment. Journal of Business & Economic Statistics, 13(2), 199-206.";
    const before = await resolveAll({ reference: article });
    expect(before.matches[0]).toMatchObject({ source: "nber", id: "w4679" });
    expect(before.matches[0]!.also).toEqual([
      { source: "doi", id: "10.3386/w4679", how: "NBER's DOI for the working paper" },
    ]);
    // A page nber_get_paper_info read (hand-made here: the Published Versions text as NBER's pages write it).
    await putCachedInfo(env.DB, "w4679", {
      id: "w4679",
      title: MINIMUM_WAGE_PAPER.title,
      authors: MINIMUM_WAGE_PAPER.authors,
      date: "1994-03-01",
      abstract: null,
      url: "https://www.nber.org/papers/w4679",
      pdf_url: "https://www.nber.org/papers/w4679.pdf",
      doi: "10.3386/w4679",
      published_version:
        'Neumark, David and William Wascher. "Minimum Wage Effects On Employment And School Enrollment," Journal of Business and Economic Statistics, 1995, v13(2,Apr), 199-206. doi:10.1080/07350015.1995.10524594',
    });
    const after = await resolveAll({ reference: article });
    expect(after.matches[0]!.also).toContainEqual({
      source: "doi",
      id: "10.1080/07350015.1995.10524594",
      how: "the published version (NBER's paper page, cached)",
    });
    // Cited as the working paper, the page is not read.
    const paper = await resolveAll({
      reference:
        "Neumark, D., & Wascher, W. (1994). Minimum wage effects on employment and school enrollment. NBER Working Paper 4679.",
    });
    expect(paper.matches[0]!.also).toEqual([
      { source: "doi", id: "10.3386/w4679", how: "NBER's DOI for the working paper" },
    ]);
  });

  it("does not take Crossref's top candidate for a reference it does not verify", async () => {
    // The same recorded list, but the cited title is another paper's: no candidate's title is in it.
    const result = await resolveAll({
      reference:
        "D. Tkaczyk, CERMINE: automatic extraction of structured metadata from scientific literature of the future, a survey. Unpublished, 2031.",
    });
    expect(result.matches.filter((m) => m.source === "crossref" && m.agreed.title !== "exact")).toEqual([]);
  });

  it("looks up a journal DOI the mirror does not hold, and a physics reference without a title by its authors", async () => {
    const byDoi = await resolveAll({ reference: "Herdman et al., doi:10.1103/PhysRevB.89.140501" });
    expect(byDoi.matches[0]).toMatchObject({
      source: "crossref",
      id: "10.1103/physrevb.89.140501",
      confidence: 0.99,
      agreed: { exact_identifier: "DOI 10.1103/PhysRevB.89.140501" },
    });
    // The recording of this DOI kept Crossref's headers: /status shows the pool and limits it stated.
    const plos = await resolveAll({
      reference:
        "Sadasivan S, Pond BB, Pani AK, et al. Methylphenidate exposure induces dopamine neuron loss and activation of microglia in the basal ganglia of mice. PLoS One. 2012;7(3):e33693. doi:10.1371/journal.pone.0033693",
    });
    expect(plos.matches[0]).toMatchObject({ source: "crossref", agreed: { title: "exact", authors: "agree" } });
    const status = await statusJson();
    expect(status.external_sources.crossref).toMatchObject({
      enabled: true,
      pool_requested: "public",
      limits_seen: { pool: "public", rate_limit: "5", rate_interval: "1s", concurrency: "1" },
    });
    expect(status.external_sources.crossref.isolate_calls_today).toBeGreaterThanOrEqual(2);
    const unknown = await resolveAll({ reference: "Somebody et al., A paper, doi:10.1371/notarealdoi (2020)." });
    expect(unknown.status).toBe("no_match");
    expect(unknown.unchecked).toEqual([]);
    expect(unknown.tried.join(" ")).toContain(
      "DOI 10.1371/notarealdoi: no such DOI (not in Crossref; doi.org: does not exist)",
    );
    // A DOI another agency registered (DataCite: Zenodo) is real, though Crossref has no record of it.
    const zenodo = await resolveAll({
      reference: "Somebody et al., A dataset, Zenodo, doi:10.5281/zenodo.1234567 (2020).",
    });
    expect(zenodo.tried.join(" ")).toContain("DOI 10.5281/zenodo.1234567: registered at DataCite, not in Crossref");
    expect((await upstreamHits()).map((hit) => hit.path)).toContain("/doi-ra/ra/10.5281/zenodo.1234567");
    // doi.org down: the DOI is neither vouched for nor called absent; the answer is unchecked, never a plain no_match.
    const down = await callToolWith(
      "papers_resolve_reference",
      { reference: "Somebody et al., Another paper, doi:10.1371/anotherunknowndoi (2020)." },
      { DOI_RA_BASE_URL: `${FAKE}/doi-ra/_scenario/status-503` },
    );
    expect(down.result.structuredContent.unchecked).toContainEqual(
      expect.objectContaining({ source: "doi-ra", reason: "upstream_unavailable" }),
    );
  });

  it("says unchecked, never no_match alone, when Crossref rate-limits, fails or answers garbage, and caches none of it", async () => {
    for (const [doi, reason] of [
      ["10.5555/fake.503", "upstream_unavailable"],
      ["10.5555/fake.truncated", "upstream_malformed"],
      ["10.5555/fake.endless", "upstream_malformed"],
    ] as const) {
      const result = await resolveAll({ reference: `A. Author, Some work, doi:${doi} (2019).` });
      expect(result.status).toBe("no_match");
      expect(result.unchecked[0], doi).toMatchObject({ source: "crossref", reason });
    }
    // Last: a 429 cools the crossref gate down for its Retry-After, and the next lookups wait it out.
    const limited = await resolveAll({ reference: "A. Author, Some work, doi:10.5555/fake.429 (2019)." });
    expect(limited.status).toBe("no_match");
    expect(limited.unchecked).toEqual([{ source: "crossref", reason: "rate_limited", retry_after_ms: 7000 }]);
    const during = await resolveAll({ reference: "A. Author, Other work, doi:10.1371/notarealdoi (2019)." });
    expect(during.unchecked[0]).toMatchObject({ source: "crossref", reason: "rate_limited" });
    expect(during.unchecked[0]!.retry_after_ms).toBeGreaterThan(0);
    const cached = await env.DB.prepare("SELECT key FROM api_cache WHERE key LIKE 'crossref:%fake%'").all();
    expect(cached.results).toEqual([]);
  });

  it("asks OpenAlex's title search when Crossref cannot be asked, and verifies its work the same way", async () => {
    const reference =
      "Lála, J., O'Donoghue, O., Shtedritski, A., Cox, S., Rodriques, S. G., & White, A. D. (2023). PaperQA: Retrieval-Augmented Generative Agent for Scientific Research. doi:10.5555/fake.503";
    const result = await resolveAll({ reference });
    expect(result.status).toBe("match");
    expect(result.matches[0]).toMatchObject({
      source: "openalex",
      id: "10.48550/arxiv.2312.07559",
      agreed: { title: "exact", authors: "agree", year: "agree" },
    });
    expect(result.tried.join(" ")).toContain("Crossref: unchecked (upstream_unavailable)");
    expect(result.tried.join(" ")).toContain("OpenAlex (title search): 1 candidates");
    // Off: the Crossref failure stands as unchecked, and OpenAlex, not asked, is unchecked too (never "not there").
    const off = await callToolWith("papers_resolve_reference", { reference }, { OPENALEX_RESOLVE_ENABLED: "false" });
    expect(off.result.structuredContent.status).toBe("no_match");
    expect(off.result.structuredContent.unchecked).toEqual([
      { source: "crossref", reason: "upstream_unavailable", retry_after_ms: null },
      { source: "openalex", reason: "not_configured", retry_after_ms: null },
    ]);
  });

  it("asks nothing of Crossref when the mirrors hold the paper, or when CROSSREF_ENABLED is false", async () => {
    await resolveAll({
      reference:
        "C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan. Calculation of prompt diphoton production cross sections at Tevatron and LHC energies. Phys. Rev. D 76, 013009 (2007).",
    });
    expect(await upstreamHits()).toEqual([]);
    const off = await callToolWith(
      "papers_resolve_reference",
      {
        reference:
          "Kahneman, D., & Tversky, A. (1979). Prospect theory: An analysis of decision under risk. Econometrica, 47(2), 263-291.",
      },
      { CROSSREF_ENABLED: "false" },
    );
    expect(off.result.structuredContent.status).toBe("no_match");
    expect(off.result.structuredContent.tried).toContain("Crossref: not asked (CROSSREF_ENABLED=false)");
    expect(off.result.structuredContent.unchecked).toEqual([
      { source: "crossref", reason: "not_configured", retry_after_ms: null },
    ]);
    // OpenAlex is still asked (its own switch): the title search alone, nothing of Crossref.
    expect((await upstreamHits()).map((hit) => hit.path.split("?")[0])).toEqual(["/openalex/works"]);
  });
});
