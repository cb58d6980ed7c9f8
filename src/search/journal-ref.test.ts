import { describe, expect, it } from "vitest";
import { JOURNAL_WINDOW, journalKey, parseJournalRefs, parseWork, sameArticle, sameJournal } from "./journal-ref.ts";

const first = (text: string) => {
  const [ref] = parseJournalRefs(text);
  return ref ? `${ref.key}|${ref.volume}|${ref.page}|${ref.year}` : null;
};

describe("parseJournalRefs", () => {
  it.each([
    // The forms issue 42 names, each with what it must compare as.
    ["Phys. Rev. D 76, 013009 (2007)", "phys rev d|76|13009|2007"],
    ["Phys.Rev.D76:013009,2007", "phys rev d|76|13009|2007"],
    ["JHEP 05 (2007) 034", "j high energy phys|2007-05|34|2007"],
    ["JHEP 0705:034,2007", "j high energy phys|2007-05|34|2007"],
    ["JHEP0707:002,2007", "j high energy phys|2007-07|2|2007"],
    ["Nucl. Phys. B 123 (1977) 45", "nucl phys b|123|45|1977"],
    ["Astrophys. J. 663, 844", "astrophys j|663|844|null"],
    ["ApJ 663, 844", "astrophys j|663|844|null"],
    ["Astrophys.J.663:844-856,2007", "astrophys j|663|844|2007"],
    ["MNRAS 378, 211", "mon not r astron soc|378|211|null"],
    ["Mon.Not.Roy.Astron.Soc.378:211-220,2007", "mon not r astron soc|378|211|2007"],
    ["Phys. Lett. B 716 (2012) 1", "phys lett b|716|1|2012"],
    ["Eur. Phys. J. C 72, 2244", "eur phys j c|72|2244|null"],
    ["Physical Review A 76, 042309 (2007)", "phys rev a|76|42309|2007"],
    ["A&A 470, 97-104 (2007)", "astron astrophys|470|97|2007"],
    ["J. Stat. Mech. (2007) P07022", "j stat mech|2007|P07022|2007"],
    ["Eur. Phys. J. B 57 (2007), 235.", "eur phys j b|57|235|2007"],
    ["Phys. Rev. B 75, 220408(R) (2007)", "phys rev b|75|220408|2007"],
    ["Econometrica, 47(2), 263-291", "econometrica|47|263|null"],
    // 0704.0008's journal_ref: the year after the page, in parentheses.
    ["Journal of Applied Physics, vol 104, 073536 (2008)", "j appl phys|104|73536|2008"],
  ])("reads %s", (text, expected) => {
    expect(first(text)).toBe(expected);
  });

  it("finds the journal reference inside a whole physics reference, after its authors", () => {
    expect(first("G. Gour and N. R. Wallach, Phys. Rev. A 76, 042309 (2007).")).toBe("phys rev a|76|42309|2007");
    expect(first("[12] S. Weinberg, Phys. Rev. Lett. 19, 1264 (1967)")).toBe("phys rev lett|19|1264|1967");
  });

  it("stops the journal at the title's last word", () => {
    const [ref] = parseJournalRefs(
      "Kahneman, D., & Tversky, A. (1979). Prospect theory: An analysis of decision under risk. Econometrica, 47(2), 263-291.",
    );
    expect(ref?.journal).toBe("Econometrica");
  });

  it("takes an article number a PDF line broke at a hyphen as the same article", () => {
    const [broken] = parseJournalRefs("Phys.Rev.D75:12-\n4011,2007.");
    const [whole] = parseJournalRefs("Phys.Rev.D75:124011,2007");
    expect(sameArticle(broken!, whole!)).toBe(true);
    const [range] = parseJournalRefs("Astrophys.J.663:1149-\n1173,2007");
    const [first] = parseJournalRefs("Astrophys. J. 663, 1149 (2007)");
    expect(sameArticle(range!, first!)).toBe(true);
    const [other] = parseJournalRefs("Phys. Rev. D 75, 124012 (2007)");
    expect(sameArticle(other!, whole!)).toBe(false);
  });

  it("reads an erratum as a second reference", () => {
    const refs = parseJournalRefs("Phys.Rev.D76:013009,2007; Erratum-ibid.D77:019901,2008");
    expect(refs.map((r) => `${r.key}|${r.volume}|${r.page}`)).toEqual(["phys rev d|76|13009", "phys rev d|77|19901"]);
  });

  it("reads nothing from text without a journal reference", () => {
    expect(parseJournalRefs("Attention is all you need. arXiv preprint arXiv:1706.03762, 2017.")).toEqual([]);
    expect(parseJournalRefs("Proceedings of the IJCAI-95 Workshop, Montreal, (1995)")).toEqual([]);
    expect(parseJournalRefs("")).toEqual([]);
  });
});

describe("parseJournalRefs on hostile text", () => {
  /** The parse and what it read: core attempts and characters read back from the cores. */
  const measured = (text: string) => {
    parseWork.cores = 0;
    parseWork.windowChars = 0;
    const refs = parseJournalRefs(text);
    return { refs, cores: parseWork.cores, windowChars: parseWork.windowChars };
  };

  it.each([
    ["a run of J. 1 1", (n: number) => "J. 1 1 ".repeat(n)],
    ["digits and dots", (n: number) => "1.2 3. 4:5, ".repeat(n)],
    ["journal-like words", (n: number) => "Phys. Rev. Lett. Nucl. Phys. B 1 ".repeat(n)],
  ])("reads %s in work linear in its length (a bounded window per core, never the text before it)", (_, make) => {
    const once = measured(make(700));
    const twice = measured(make(1400));
    const length = make(700).length;
    // The old parse read the whole text before each core: hundreds of characters per character here.
    expect(once.windowChars).toBeLessThanOrEqual(8 * length);
    expect(once.cores).toBeLessThanOrEqual(6 * length);
    expect(twice.windowChars).toBeLessThanOrEqual(2.05 * once.windowChars);
    expect(twice.cores).toBeLessThanOrEqual(2.05 * once.cores);
  });

  it("gives the same answers on hostile text: nothing from J. 1 1, one reference from a repeated one", () => {
    expect(measured("J. 1 1 ".repeat(700)).refs).toEqual([]);
    const refs = measured("Phys. Rev. D 1 1 (1) ".repeat(200)).refs;
    expect(refs.map((r) => `${r.key}|${r.volume}|${r.page}|${r.year}`)).toEqual(["phys rev d|1|1|null"]);
  });

  it("finds a reference after thousands of characters of noise as it does alone", () => {
    const reference = "Journal of Quantitative Spectroscopy and Radiative Transfer 112, 1149-1173 (2011)";
    const alone = parseJournalRefs(reference);
    expect(alone.map((r) => `${r.journal}|${r.volume}|${r.page}|${r.year}`)).toEqual([
      "Journal of Quantitative Spectroscopy and Radiative Transfer|112|1149|2011",
    ]);
    for (const noise of ["J. 1 1 ".repeat(600), "x".repeat(4_000), "1.2 3. ".repeat(600)])
      expect(parseJournalRefs(`${noise}. ${reference}`).at(-1)).toEqual(alone[0]);
  });

  it("reads a name no further back than the window, from a whole word", () => {
    const word = `Q${"u".repeat(39)}`;
    const [ref] = parseJournalRefs(`${`${word} `.repeat(12)}Phys. Rev. D 76, 013009 (2007)`);
    const words = ref!.journal.split(" ");
    expect(ref!.journal.length).toBeLessThanOrEqual(JOURNAL_WINDOW);
    expect(words.slice(0, -3).every((w) => w === word)).toBe(true);
    expect(words.slice(-3)).toEqual(["Phys.", "Rev.", "D"]);
  });
});

describe("journalKey", () => {
  it("brings every spelling of a journal to one key", () => {
    const keys = ["Physical Review D", "Phys. Rev. D", "Phys.Rev.D", "PRD", "Phys Rev D"].map(journalKey);
    expect(new Set(keys)).toEqual(new Set(["phys rev d"]));
    expect(journalKey("Monthly Notices of the Royal Astronomical Society")).toBe(journalKey("MNRAS"));
    expect(journalKey("Journal of High Energy Physics")).toBe(journalKey("JHEP"));
    expect(journalKey("The Astrophysical Journal")).toBe(journalKey("ApJ"));
    expect(journalKey("American Economic Review")).toBe(journalKey("AER"));
  });

  it("keeps section letters apart: Physica A is not Physica E", () => {
    expect(journalKey("Physica A")).not.toBe(journalKey("Physica E"));
    expect(journalKey("Phys. Rev. A")).not.toBe(journalKey("Phys. Rev."));
  });
});

describe("sameJournal", () => {
  it("accepts a key that ends another (words kept before the journal), not a one-word overlap", () => {
    expect(sameJournal("phys rev d", "phys rev d")).toBe(true);
    expect(sameJournal("ref phys rev d", "phys rev d")).toBe(true);
    expect(sameJournal("phys rev d", "phys rev b")).toBe(false);
    expect(sameJournal("rev d", "j d")).toBe(false);
  });
});
