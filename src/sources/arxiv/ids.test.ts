// The one ID parser, table-tested against real and broken spellings, then fuzzed.
import { describe, expect, it } from "vitest";
import { formatId, parseArxivId } from "./ids";
import { seededRandom } from "../../../test/support/random";

const ACCEPTED: [string, string][] = [
  ["2401.12345", "2401.12345"],
  ["2401.12345v2", "2401.12345v2"],
  ["0704.0001", "0704.0001"],
  ["1412.9999v3", "1412.9999v3"],
  ["1501.00001", "1501.00001"],
  ["  2401.12345  ", "2401.12345"],
  ["arXiv:2401.12345", "2401.12345"],
  ["arxiv:2401.12345v1", "2401.12345v1"],
  ["ARXIV: 2401.12345", "2401.12345"],
  ["hep-th/9901001", "hep-th/9901001"],
  ["hep-th/9901001v2", "hep-th/9901001v2"],
  ["HEP-TH/9901001", "hep-th/9901001"],
  ["math.AG/0601001", "math/0601001"],
  ["math.AG/0601001v1", "math/0601001v1"],
  ["cond-mat.str-el/0512345", "cond-mat/0512345"],
  ["astro-ph/0601001", "astro-ph/0601001"],
  ["quant-ph/0201082v1", "quant-ph/0201082v1"],
  ["alg-geom/9201001", "alg-geom/9201001"],
  ["cmp-lg/9404001", "cmp-lg/9404001"],
  ["q-bio/0309001", "q-bio/0309001"],
  ["hep-th/9108001", "hep-th/9108001"],
  ["math/0703001", "math/0703001"],
  ["arXiv:hep-th/9901001", "hep-th/9901001"],
  // A bare legacy ID pasted from a URL, trailing slash and all (issue 33).
  ["physics/0303098/", "physics/0303098"],
  ["2401.12345v2/", "2401.12345v2"],
  ["https://arxiv.org/abs/2401.12345", "2401.12345"],
  ["https://arxiv.org/abs/2401.12345v3", "2401.12345v3"],
  ["http://arxiv.org/abs/2401.12345/", "2401.12345"],
  ["https://www.arxiv.org/abs/2401.12345", "2401.12345"],
  ["https://export.arxiv.org/abs/2401.12345", "2401.12345"],
  ["arxiv.org/abs/2401.12345", "2401.12345"],
  ["https://arxiv.org/pdf/2401.12345", "2401.12345"],
  ["https://arxiv.org/pdf/2401.12345v2.pdf", "2401.12345v2"],
  ["https://arxiv.org/pdf/2401.12345.pdf", "2401.12345"],
  ["https://arxiv.org/pdf/2401.12345v2/", "2401.12345v2"],
  ["https://arxiv.org/html/2401.12345v1", "2401.12345v1"],
  ["https://arxiv.org/html/2401.12345v1/", "2401.12345v1"],
  ["https://arxiv.org/abs/hep-th/9901001", "hep-th/9901001"],
  ["https://arxiv.org/pdf/hep-th/9901001v1.pdf", "hep-th/9901001v1"],
  ["https://arxiv.org/abs/2401.12345?context=cs", "2401.12345"],
  ["https://arxiv.org/abs/2401.12345#section", "2401.12345"],
  ["HTTPS://ARXIV.ORG/ABS/2401.12345", "2401.12345"],
  ["https://ar5iv.labs.arxiv.org/html/1904.07818", "1904.07818"],
  ["https://ar5iv.org/abs/1904.07818", "1904.07818"],
];

const REJECTED: string[] = [
  "",
  "   ",
  "abc",
  "1234",
  "2401.123",
  "2401.123456",
  "2401.12345v",
  "2401.12345v0",
  "2401.12345vv2",
  "2413.12345",
  "2400.12345",
  "0703.1234",
  "0808.05394",
  "1501.1234",
  "9901.00001",
  "hep-th/99010",
  "hep-th/990100123",
  "hep-th/9913001",
  "hep-th/9107001",
  "hep-th/0704001",
  "hep-th/9901000",
  "cs.AI/2401001",
  "banana/9901001",
  "econ/9901001",
  "hep-th//9901001",
  "/9901001",
  "2401.12345 2401.12346",
  "2401.12345\u0000",
  "2401.\n12345",
  "https://evil.example/abs/2401.12345",
  "https://arxiv.org.evil.example/abs/2401.12345",
  "ftp://arxiv.org/abs/2401.12345",
  "https://arxiv.org/list/cs.AI/recent",
  "https://arxiv.org/abs/",
  "https://arxiv.org/abs/../../etc/passwd",
  "arXiv:",
  "x".repeat(301),
  "2401.12345/../../secret",
  "２４０１.１２３４５",
];

describe("parseArxivId", () => {
  it.each(ACCEPTED)("accepts %j as %s", (input, expected) => {
    const parsed = parseArxivId(input);
    expect(parsed.ok ? formatId(parsed.id) : parsed.problem).toBe(expected);
  });

  it.each(REJECTED.map((input) => [input]))("rejects %j with a reason", (input) => {
    const parsed = parseArxivId(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem.length).toBeGreaterThan(3);
  });

  it("rejects non-strings without throwing", () => {
    for (const value of [undefined, null, 42, {}, [], true]) expect(parseArxivId(value).ok).toBe(false);
  });

  it("fuzz: 20,000 generated spellings never throw; every accepted ID is canonical", () => {
    const { random, pick } = seededRandom(12345);
    const pieces = [
      "2401.12345",
      "hep-th/9901001",
      "2401.",
      "12345",
      "v2",
      "v",
      "hep-th",
      "/",
      "9901001",
      "arXiv:",
      "https://arxiv.org/",
      "abs/",
      "pdf/",
      ".pdf",
      "math.AG",
      " ",
      "\u0000",
      "%2F",
      "..",
      "?",
      "#",
      "0704",
      ".0001",
      "\u00e9",
      "\ud83d\ude00",
      "\\",
      "\n",
      "html/",
      "ar5iv.org/",
    ];
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const input = Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(pieces)).join("");
      const parsed = parseArxivId(input);
      if (parsed.ok) {
        accepted++;
        const canonical = formatId(parsed.id);
        expect(canonical).toMatch(/^(\d{4}\.\d{4,5}|[a-z-]+\/\d{7})(v\d+)?$/);
        // Canonical IDs parse to themselves.
        const again = parseArxivId(canonical);
        expect(again.ok && formatId(again.id)).toBe(canonical);
      } else {
        expect(typeof parsed.problem).toBe("string");
      }
    }
    expect(accepted).toBeGreaterThan(10);
  });
});
