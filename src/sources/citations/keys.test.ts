// Citation keys, BibTeX's LaTeX and name splitting.

import { describe, expect, it } from "vitest";
import { assignKeys } from "./keys";
import { bibtexText } from "./latex";
import { splitName } from "./names";
import type { CitationRecord } from "./record";
import { parseBibtex } from "../../../test/support/bibtex";
describe("citation keys and LaTeX", () => {
  const record = (id: string, title: string, family: string, year = 2017): CitationRecord => ({
    id,
    kind: "arxiv",
    title,
    authors: [{ family, given: "A." }],
    moreAuthors: false,
    year,
    month: 1,
    doi: null,
    sourceDoi: null,
    url: "",
    publishedAs: null,
    source: "test",
  });

  it("gives clashing keys suffixes in ID order, whatever the order asked", () => {
    const a = record("1706.03762", "Attention is all you need", "Vaswani");
    const b = record("1706.99999", "Attention, again", "Vaswani");
    const c = record("1801.00001", "The attention trick", "Vaswani");
    expect(assignKeys([a, b, c])).toEqual(["vaswani2017attention", "vaswani2017attentionb", "vaswani2017attentionc"]);
    expect(assignKeys([c, b, a])).toEqual(["vaswani2017attentionc", "vaswani2017attentionb", "vaswani2017attention"]);
    expect(assignKeys([record("x", "On $\\alpha$-stable laws", "Müller")])).toEqual(["muller2017stable"]);
  });

  it("keeps TeX, escapes specials, converts Unicode and protects capitals that must stay", () => {
    expect(bibtexText("BERT & GPT-3: 100% of #1 on LaTeX", { title: true })).toBe(
      "{BERT} \\& {GPT-3}: 100\\% of \\#1 on {LaTeX}",
    );
    expect(bibtexText("From dyadic $\\Lambda_{\\alpha}$ to Gödel", { title: true })).toBe(
      'From dyadic {$\\Lambda_{\\alpha}$} to G{\\"o}del',
    );
    expect(bibtexText("Bal\\'azs")).toBe("Bal\\'azs");
    // Unbalanced braces can never close the entry early.
    const parsed = parseBibtex(`@misc{k, title = {${bibtexText("a } b { c", { title: true })}}, year = {2020}}`);
    expect(parsed.entries[0]!.properties.year).toBe("2020");
  });

  it("splits names: particles, suffixes, comma forms and collaborations", () => {
    expect(splitName("Jan van der Berg")).toEqual({ family: "van der Berg", given: "Jan" });
    expect(splitName("John Smith Jr.")).toEqual({ family: "Smith", given: "John", suffix: "Jr." });
    expect(splitName("Hampole, Menaka")).toEqual({ family: "Hampole", given: "Menaka" });
    expect(splitName("ATLAS Collaboration").literal).toBe("ATLAS Collaboration");
  });
});
