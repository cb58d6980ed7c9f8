// papers_resolve_reference against the mirror seeded with the real sample records (and an NBER mirror row):
// identifiers exactly, titles by search and scoring, and honest no_match answers for references that do not
// exist, including a real ID with an invented title.

import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { upsertMirror } from "../../src/store/nber-mirror";
import { callTool, resetUpstream, toolError, upstreamHits } from "../helpers";
import { seedMirror } from "../mirror/driver";

beforeEach(resetUpstream);

async function resolve(args: Record<string, unknown>) {
  const result = await callTool("papers_resolve_reference", args);
  if (result.isError) throw new Error(result.content[0]!.text);
  return result.structuredContent as {
    status: "match" | "no_match";
    matches: { source: string; id: string; confidence: number; agreed: Record<string, unknown>; how: string }[];
    near_misses: { id: string; confidence: number }[];
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

  it("finds a real paper from its bibliography entry, with what agreed", async () => {
    const result = await resolve({
      reference:
        "C. Balázs, E. L. Berger, P. M. Nadolsky, and C.-P. Yuan. Calculation of prompt diphoton production cross sections at Tevatron and LHC energies. Phys. Rev. D 76, 013009 (2007).",
    });
    expect(result.status).toBe("match");
    expect(result.matches[0]).toMatchObject({ source: "arxiv", id: "0704.0001" });
    expect(result.matches[0]!.confidence).toBeGreaterThanOrEqual(0.95);
    expect(result.matches[0]!.agreed).toEqual({
      title_similarity: 1,
      surnames_matched: "4 of 4",
      year_within_one: true,
      exact_identifier: null,
    });
    expect(result.matches).toHaveLength(1);
    expect(result.tried.join(" ")).toContain("title search in arXiv (mirror)");
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
    expect(nber.matches[0]!.agreed.title_similarity).toBe(1);
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
    expect(toolError(await callTool("papers_resolve_reference", { reference: "x".repeat(2_001) })).reason).toBe(
      "invalid_argument",
    );
  });
});
