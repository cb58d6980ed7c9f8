import { describe, expect, it } from "vitest";
import { authorListProblem, compareClaims, type RecordFacts } from "./claims";
import { knownVenue, sameVenue } from "./venues";

// A real record (HALLMARK's dev split, DBLP): "CDMA: A Practical Cross-Device Federated Learning
// Algorithm for General Minimax Problems", AAAI 2023.
const CDMA: RecordFacts = {
  source: "crossref",
  title: "CDMA: A Practical Cross-Device Federated Learning Algorithm for General Minimax Problems",
  authors: ["Jiahao Xie", "Chao Zhang", "Zebang Shen", "Weijie Liu", "Hui Qian"],
  years: [2023],
  venues: ["Proceedings of the AAAI Conference on Artificial Intelligence"],
  preprint: false,
  dois: ["10.1609/aaai.v37i9.26246"],
};

describe("compareClaims", () => {
  it("finds nothing to say of an entry that states the record's own fields, however they are spelled", () => {
    expect(
      compareClaims(
        {
          title: "{CDMA}: A practical cross-device federated learning algorithm for general minimax problems",
          authors: ["Xie, Jiahao", "C. Zhang", "Zebang Shen", "Weijie Liu", "Hui Qian"],
          year: 2023,
          venue: "AAAI",
          doi: "10.1609/AAAI.V37I9.26246",
        },
        CDMA,
      ),
    ).toEqual([]);
  });

  it("names each field that disagrees, with the cited and the recorded value", () => {
    const differences = compareClaims(
      {
        title: "CDMA: A Practical Cross-Device Federated Learning Algorithm for General Minimax Problems and Beyond",
        authors: ["Jiahao Xie", "Hui Qian"],
        year: 2033,
        venue: "ICML",
        doi: "10.1609/aaai.v37i9.99999",
      },
      CDMA,
    );
    expect(differences.map((d) => d.field)).toEqual(["title", "authors", "year", "venue", "doi"]);
    expect(differences[1]!.cited).toContain("author 2 is the record's author 5");
    expect(differences[2]).toEqual({ field: "year", cited: "2033", record: "2023" });
    expect(differences[3]).toEqual({ field: "venue", cited: "ICML", record: CDMA.venues[0] });
  });

  it("compares authors as a list: count, order and initials; and others stands for the rest", () => {
    const record = CDMA.authors;
    expect(authorListProblem(["Jiahao Xie", "Chao Zhang"], true, record)).toBeNull();
    expect(authorListProblem(["Jiahao Xie", "Chao Zhang"], false, record)).toBe("2 of the record's 5 authors");
    expect(authorListProblem([...record, "Ada Lovelace"], false, record)).toBe("6 authors where the record has 5");
    expect(authorListProblem(["Chao Zhang", "Jiahao Xie", ...record.slice(2)], false, record)).toBe(
      "author 1 is the record's author 2",
    );
    // The right surname with another given name is another person.
    expect(authorListProblem(["Q. Xie", ...record.slice(1)], false, record)).toMatch(/author 1/);
    // Family name first, as East Asian names are often written.
    expect(authorListProblem(["Xie Jiahao", ...record.slice(1)], false, record)).toBeNull();
    // A shortened record list (arXiv's over 10 authors): the names it shows, then the count.
    expect(authorListProblem(["Jiahao Xie", "Chao Zhang", "Zebang Shen"], false, record.slice(0, 2), 3)).toBeNull();
    // A collaboration cited for its members, but not a team standing in for a paper's few authors.
    expect(authorListProblem(["{ATLAS Collaboration}"], false, ["G. Aad", "B. Abbott"], 2831)).toBeNull();
    expect(authorListProblem(["{Google Brain Team}"], false, ["Ashish Vaswani", "Noam Shazeer"])).not.toBeNull();
    // A one-author record from Crossref may be cut short; arXiv's is whole, so co-authors added to it differ.
    expect(authorListProblem(["Yoshua Bengio", "Geoffrey Hinton"], false, ["Yoshua Bengio"], 1, "crossref")).toBeNull();
    expect(authorListProblem(["Yoshua Bengio", "Geoffrey Hinton"], false, ["Yoshua Bengio"], 1, "arxiv")).toBe(
      "2 authors where the record has 1",
    );
  });

  it("knows a person by any given name's initial, and tells apart surnames that only look alike", () => {
    expect(authorListProblem(["McMahan, Brendan"], false, ["H. Brendan McMahan"])).toBeNull();
    expect(authorListProblem(["Kolter, Zico"], false, ["J. Zico Kolter"])).toBeNull();
    expect(authorListProblem(["Wei Zheng"], false, ["Wei Zhang"])).not.toBeNull();
    expect(authorListProblem(["T. Ang"], false, ["Tao Wang"])).not.toBeNull();
    expect(authorListProblem(["J. Smith"], false, ["John Goldsmith"])).not.toBeNull();
    expect(authorListProblem(["L. van der Maaten"], false, ["Laurens van der Maaten"])).toBeNull();
    expect(authorListProblem(["K. Ligett"], false, ["Katrina Liggett"])).toBeNull();
  });

  it("takes a venue the record lacks, a series or a preprint server as no difference", () => {
    const bare = { ...CDMA, venues: [] };
    expect(compareClaims({ venue: "Conference on Reward Learning and Alignment" }, bare)).toEqual([]);
    const series = { ...CDMA, venues: ["Lecture Notes in Computer Science"] };
    expect(compareClaims({ venue: "ECCV" }, series)).toEqual([]);
    expect(compareClaims({ venue: "arXiv preprint" }, CDMA)).toEqual([]);
    expect(compareClaims({ venue: "Symposium on Neural Scaling Laws" }, CDMA).map((d) => d.field)).toEqual(["venue"]);
  });

  it("says a preprint cited at a venue, when no published version is known, differs in its venue", () => {
    const preprint = { ...CDMA, venues: [], preprint: true, unpublished: true, years: [2022] };
    expect(compareClaims({ venue: "CVPR", year: 2022 }, preprint)).toEqual([
      { field: "venue", cited: "CVPR", record: "arXiv preprint (no published version known)" },
    ]);
    // Its proceedings a year after its first version: not a difference of year.
    expect(compareClaims({ year: 2023, venue: "NeurIPS" }, { ...preprint, unpublished: false })).toEqual([]);
    expect(compareClaims({ year: 2024, venue: "NeurIPS" }, { ...preprint, unpublished: false })[0]!.field).toBe("year");
  });

  it("compares volume and first page, a year-and-issue volume (JHEP 05 = 0705 = 2017) aside", () => {
    const article = { ...CDMA, volume: "521", first_page: "436" };
    expect(compareClaims({ volume: "521", pages: "436--444" }, article)).toEqual([]);
    expect(compareClaims({ volume: "999", pages: "1-10" }, article).map((d) => d.field)).toEqual(["volume", "pages"]);
    expect(compareClaims({ volume: "05" }, { ...CDMA, volume: "0705" })).toEqual([]);
    expect(compareClaims({ volume: "05" }, { ...CDMA, volume: "2017" })).toEqual([]);
  });

  it("says a DOI no agency resolves differs, even when the record has none", () => {
    const noDoi = { ...CDMA, dois: [], absent_dois: ["10.47281/bed.57189"] };
    expect(compareClaims({ doi: "10.47281/bed.57189" }, noDoi)).toEqual([
      { field: "doi", cited: "10.47281/bed.57189", record: null },
    ]);
    expect(compareClaims({ doi: "10.1234/unknown" }, { ...CDMA, dois: [] })).toEqual([]);
    // A DOI written as a link or with its prefix is the same DOI.
    expect(compareClaims({ doi: "https://doi.org/10.1609/AAAI.V37I9.26246" }, CDMA)).toEqual([]);
    expect(compareClaims({ doi: "doi:10.1609/aaai.v37i9.26246" }, CDMA)).toEqual([]);
    for (const doi of [
      "doi.org/10.1609/AAAI.V37I9.26246",
      "https://www.doi.org/10.1609/aaai.v37i9.26246",
      "DOI 10.1609/aaai.v37i9.26246",
      "10.1609/aaai.v37i9.26246.",
    ])
      expect(compareClaims({ doi }, CDMA), doi).toEqual([]);
    // arXiv's DOI with the version cited is still the paper's.
    expect(
      compareClaims(
        { doi: "https://doi.org/10.48550/arXiv.2602.12172v1" },
        { ...CDMA, source: "arxiv", dois: ["10.48550/arxiv.2602.12172"] },
      ),
    ).toEqual([]);
  });
});

describe("venues", () => {
  it("knows a venue by its acronym, its name or its ISO 4 abbreviation", () => {
    for (const name of ["NeurIPS", "NIPS", "Advances in Neural Information Processing Systems 35"])
      expect(knownVenue(name)).toBe("neurips");
    expect(knownVenue("2023 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)")).toBe("cvpr");
    expect(knownVenue("CVPR Workshops")).toBe("cvpr:workshop");
    expect(knownVenue("Findings of the Association for Computational Linguistics: EMNLP 2023")).toBe("emnlp:findings");
    expect(knownVenue("J. Mach. Learn. Res.")).toBe("jmlr");
    expect(knownVenue("NAACL")).toBe("naacl");
    expect(knownVenue("Symposium on Neural Scaling Laws")).toBeNull();
  });

  it("tells one venue from another", () => {
    expect(sameVenue("ICML", "International Conference on Machine Learning")).toBe(true);
    expect(sameVenue("Mach. Learn.", "Machine Learning")).toBe(true);
    expect(sameVenue("Phys. Rev. D", "Physical Review D")).toBe(true);
    expect(sameVenue("ECCV", "Proceedings of the AAAI Conference on Artificial Intelligence")).toBe(false);
    expect(sameVenue("UAI", "AAAI")).toBe(false);
    expect(sameVenue("ACL", "NAACL")).toBe(false);
    expect(sameVenue("Physica A", "Physica E")).toBe(false);
    // One name inside another is another journal.
    expect(sameVenue("Nature", "Nature Communications")).toBe(false);
    expect(sameVenue("Cell", "Cell Reports")).toBe(false);
    expect(sameVenue("Proceedings of the IEEE", "IEEE Transactions on Information Theory")).toBe(false);
    // A workshop is not its conference; two subtitles of one name are two journals; a long name's start is the name.
    expect(
      sameVenue(
        "2020 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
        "2020 IEEE/CVF Conference on Computer Vision and Pattern Recognition Workshops (CVPRW)",
      ),
    ).toBe(false);
    expect(sameVenue("American Economic Journal: Applied Economics", "American Economic Journal: Macroeconomics")).toBe(
      false,
    );
    expect(
      sameVenue(
        "Journal of the Royal Statistical Society: Series A",
        "Journal of the Royal Statistical Society: Series B (Statistical Methodology)",
      ),
    ).toBe(false);
    expect(
      sameVenue(
        "Proceedings of the National Academy of Sciences of the United States of America",
        "Proceedings of the National Academy of Sciences",
      ),
    ).toBe(true);
    expect(sameVenue("Econometrica: Journal of the Econometric Society", "Econometrica")).toBe(true);
    // A venue of the table in an abbreviation it lacks.
    expect(sameVenue("{IEEE} Trans. Pattern Anal. Mach. Intell.", "TPAMI")).toBe(true);
    expect(
      sameVenue(
        "IEEE Transactions on Pattern Analysis and Machine Intelligence",
        "IEEE Trans Pattern Anal Mach Intell",
      ),
    ).toBe(true);
  });
});
