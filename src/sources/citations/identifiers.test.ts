// Identifiers in a reference, in every spelling, and the text a title is matched in.

import { describe, expect, it } from "vitest";
import { doisIn, identifiersIn, withoutIdentifiers } from "./identifiers";
import { authorEvidence, compact, nameWords, titleEvidence, yearEvidence } from "./text-match";

describe("identifiers in a reference", () => {
  it("reads arXiv IDs in every spelling, and only IDs arXiv could have issued", () => {
    const cases: [string, string[]][] = [
      ["A. Vaswani et al. Attention is all you need. arXiv:1706.03762v5, 2017.", ["1706.03762v5"]],
      ["arXiv preprint arXiv:1706.03762", ["1706.03762"]],
      ["Phys. Lett. B 450 (1999) [hep-th/9901001].", ["hep-th/9901001"]],
      ["math.GT/0309136", ["math/0309136"]],
      ["https://arxiv.org/pdf/1706.03762v2.pdf", ["1706.03762v2"]],
      ["http://arxiv.org/html/2501.11120v1", ["2501.11120v1"]],
      ["CoRR abs/1706.03762", ["1706.03762"]],
      ["arXiv 1706.03762 [cs.CL]", ["1706.03762"]],
      ["doi:10.48550/arXiv.1706.03762", ["1706.03762"]],
      // A number like an ID, in a reference that never says arXiv: not read as one.
      ["J. Chem. Phys. 1706.03762 (2001).", []],
      ["arXiv:9913.12345", []],
    ];
    for (const [text, want] of cases) expect(identifiersIn(text).arxiv, text).toEqual(want);
  });

  it("reads DOIs, also through a link, a prefix, or a line break inside them", () => {
    expect(doisIn("doi: 10.1103/PhysRevD.76.013009.")).toEqual(["10.1103/PhysRevD.76.013009"]);
    expect(doisIn("https://doi.org/10.1007/s12043-016-1214-x")).toEqual(["10.1007/s12043-016-1214-x"]);
    expect(doisIn("DOI 10.1103/PhysRevD.76.\n013009 more")).toEqual(["10.1103/PhysRevD.76.013009"]);
    expect(doisIn("10.1016/j.jet.2020-\n  105062")).toEqual(["10.1016/j.jet.2020-105062"]);
    // A DOI that ends a line on a letter or digit is whole; the next line is the next word.
    expect(doisIn("10.1103/PhysRevD.76.013009\nIn Proceedings")).toEqual(["10.1103/PhysRevD.76.013009"]);
  });

  it("reads NBER numbers in every form, and a year after Working Paper as a year", () => {
    for (const text of [
      "NBER Working Paper No. 4679",
      "NBER WP 4679",
      "Working Paper 4679",
      "NBER working paper w4679",
      "w4679",
      "https://www.nber.org/papers/w4679",
      "https://www.nber.org/system/files/working_papers/w4679/w4679.pdf",
      "doi:10.3386/w4679",
    ])
      expect(identifiersIn(text).nber, text).toEqual(["w4679"]);
    expect(identifiersIn("National Bureau of Economic Research Working Paper 2018.").nber).toEqual([]);
    expect(withoutIdentifiers("Working Paper 2018.")).toContain("2018");
    expect(withoutIdentifiers("NBER Working Paper No. 4679, 1994")).not.toContain("4679");
  });
});

describe("a title inside a reference", () => {
  it("is found through case, punctuation, TeX, Greek letters, diacritics, ligatures and line-break hyphens", () => {
    const title =
      "Observation of the rare $B^0_s\\to\\mu^+\\mu^-$ decay from the combined analysis of CMS and LHCb data";
    expect(
      titleEvidence(
        'CMS et al., "Observation of the rare B0s→μ+μ- decay from the combined analysis of CMS and LHCb data," Nature (2015).',
        title,
      ).kind,
    ).toBe("exact");
    expect(
      titleEvidence("observation of the rare b0sμμ decay from the combined analysis of cms and lhcb data", title).kind,
    ).toBe("exact");
    expect(
      titleEvidence(
        "Smith, J. (2001). Inﬂation and the U.S. infor- mation economy, 1913-1960. J. Econ.",
        "Inflation and the US Information Economy, 1913–1960",
      ).kind,
    ).toBe("exact");
    expect(compact("Müller & Søren")).toBe(compact("Muller and Soren"));
  });

  it("is found only at word boundaries, and otherwise measured by the share of its words in order", () => {
    expect(titleEvidence("Focus groups in practice", "Us groups").kind).toBe("none");
    const close = titleEvidence(
      "J. Doe. A study of the quantum Hall effect in bilayer graphene sheets. 2010.",
      "A study of the fractional quantum Hall effect in bilayer graphene sheets",
    );
    expect(close.kind).toBe("close");
    expect(close.coverage).toBeGreaterThanOrEqual(0.85);
  });

  it("is close when a reference cites the main title without its subtitle", () => {
    const evidence = titleEvidence(
      "Card, D. (2018). The intergenerational transmission of human capital. NBER.",
      "The Intergenerational Transmission of Human Capital: Evidence from the Golden Age of Upward Mobility",
    );
    expect(evidence.kind).toBe("close");
    expect(evidence.rest).toBe("card d 2018 nber");
    expect(titleEvidence("Card, D. (2018). Evidence. NBER.", "Evidence: a very long subtitle about it").kind).toBe(
      "none",
    );
  });

  it("leaves the rest for the authors and the year", () => {
    const evidence = titleEvidence(
      "Neumark, D. and Wascher, W. (1994). Minimum wage effects on employment and school enrollment.",
      "Minimum Wage Effects on Employment and School Enrollment",
    );
    expect(evidence.rest).toBe("neumark d and wascher w 1994");
    expect(authorEvidence(evidence.rest, ["David Neumark", "William Wascher"]).kind).toBe("agree");
    expect(authorEvidence(evidence.rest, ["David Card"], "Neumark, D. and Wascher, W. (1994).").kind).toBe("disagree");
    expect(authorEvidence("", ["David Card"], "").kind).toBe("absent");
    expect(yearEvidence(evidence.rest, 1994).kind).toBe("agree");
    expect(yearEvidence(evidence.rest, 1996).kind).toBe("close");
    expect(yearEvidence(evidence.rest, 2009)).toEqual({ kind: "disagree", cited: 1994 });
    expect(yearEvidence("", 2009).kind).toBe("absent");
  });

  it("tells names from title words by the initials beside them", () => {
    expect([...nameWords("B. Abbott, R. Abbott, Acernese F, and Adams et al. Attention Is All You Need.")]).toEqual([
      "abbott",
      "acernese",
      "adams",
    ]);
  });
});

describe("names in TeX", () => {
  it("are matched through TeX accents", () => {
    const rest = "sramek r brejova b and vinar t 2007";
    expect(authorEvidence(rest, ["Rastislav \\v{S}r\\'amek", "Bro\\v{n}a Brejov\\'a"]).kind).toBe("agree");
    expect(compact('Er\\"o, J. and Fr\\"{u}hwirth')).toBe("erojandfruhwirth");
  });
});
