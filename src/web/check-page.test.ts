// Where the check page links each matched record: arXiv and NBER papers to their page here,
// Crossref works to their DOI, OpenAlex works to their DOI or their openalex.org page.
// (/paper/ serves arXiv and NBER records only: a Crossref or OpenAlex ID there is a 400.)
import { describe, expect, it } from "vitest";
import type { BibliographyCheck, CheckedEntry } from "../sources/citations/check-bibliography";
import { checkResults } from "./check-page";

async function hrefs(ids: string[]): Promise<string[]> {
  const entries: CheckedEntry[] = ids.map((id, i) => ({ n: i + 1, verdict: "verified", id, title: `Work ${i + 1}` }));
  const result = {
    format: "bibtex",
    summary: { entries: ids.length, verified: ids.length, differs: 0, not_found: 0, unchecked: 0, unreadable: 0 },
    notices: [],
    entries,
  } as unknown as BibliographyCheck;
  const page = String(await checkResults(result, "", 1));
  const rows = [...page.matchAll(/<tr id="entry-\d+">(.*?)<\/tr>/gs)].map((row) => row[1]!);
  expect(rows).toHaveLength(ids.length);
  return rows
    .flatMap((row) => [...(/<a href="([^"]*)"/.exec(row)?.slice(1) ?? [])])
    .map((href) => href.replaceAll("&amp;", "&"));
}

describe("the check page's links to the matched records", () => {
  it("links arXiv and NBER papers to their page here", async () => {
    expect(await hrefs(["arxiv:0704.0001", "arxiv:hep-th/9901001v2", "nber:w4679", "nber:t0012"])).toEqual([
      "/paper/0704.0001",
      "/paper/hep-th/9901001v2",
      "/paper/w4679",
      "/paper/t0012",
    ]);
  });

  it("shows a record's title as letters and MathML", async () => {
    const entries: CheckedEntry[] = [
      { n: 1, verdict: "verified", id: "arxiv:0704.0001", title: "Bal\\'azs and $\\hbar$ {\\it corrections}" },
    ];
    const result = {
      format: "bibtex",
      summary: { entries: 1, verified: 1, differs: 0, not_found: 0, unchecked: 0, unreadable: 0 },
      notices: [],
      entries,
    } as unknown as BibliographyCheck;
    const page = String(await checkResults(result, "", 1));
    expect(page).toContain("<br>Balázs and <math><mi>ℏ</mi></math> <em>corrections</em></td>");
  });

  it("shows the notices a person can act on, not those written for agents", async () => {
    const result = {
      format: "bibtex",
      summary: { entries: 0, verified: 0, differs: 0, not_found: 0, unchecked: 0, unreadable: 0 },
      notices: [
        "BibTeX left out for 3 entries to keep the answer within its token budget: pass their IDs to papers_export_citations, or raise max_tokens.",
        "Crossref was slow to answer.",
      ],
      entries: [],
    } as unknown as BibliographyCheck;
    const page = String(await checkResults(result, "", 1));
    expect(page).toContain('<p class="notice">Crossref was slow to answer.</p>');
    expect(page).not.toMatch(/papers_export_citations|tokens/);
  });

  it("links a Crossref work to its DOI at doi.org, never to /paper/crossref:...", async () => {
    expect(await hrefs(["crossref:10.1007/s00220-010-1033-8"])).toEqual(["https://doi.org/10.1007/s00220-010-1033-8"]);
    // A DOI may hold characters that mean something in a URL (?, #, <, >, ;): they are escaped.
    const [sici] = await hrefs(["crossref:10.1002/(SICI)1097-0258(19980815/30)17:15/16<1641::AID-SIM980>3.0.CO;2-W"]);
    expect(sici).toBe(
      "https://doi.org/10.1002/(SICI)1097-0258(19980815/30)17%3A15/16%3C1641%3A%3AAID-SIM980%3E3.0.CO%3B2-W",
    );
    const [odd] = await hrefs(["crossref:10.1234/a?b#c"]);
    expect(new URL(odd!).pathname).toBe("/10.1234/a%3Fb%23c");
    expect(new URL(odd!).host).toBe("doi.org");
  });

  it("links an OpenAlex work to its DOI, or to its openalex.org page when it has none", async () => {
    expect(
      await hrefs(["openalex:10.1103/PhysRevLett.116.061102", "openalex:https://openalex.org/W2741809807"]),
    ).toEqual(["https://doi.org/10.1103/PhysRevLett.116.061102", "https://openalex.org/W2741809807"]);
  });

  it("never links a record whose ID it cannot place (no link, the title only)", async () => {
    expect(
      await hrefs(["openalex:https://evil.example/W1", "crossref:not-a-doi", "openalex:javascript:alert(1)"]),
    ).toEqual([]);
  });
});
