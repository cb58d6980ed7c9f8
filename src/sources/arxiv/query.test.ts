// The query validator and builder, table-tested, then fuzzed.
import { describe, expect, it } from "vitest";
import { PapersError } from "../../errors";
import { buildSearchQuery, normalizeQuery, parseQuery, type QueryNode } from "./query";
import { seededRandom } from "../../../test/support/random";
import { thrownReason as reasonOf } from "../../../test/support/thrown";

describe("normalizeQuery", () => {
  it.each([
    ["quantum", "quantum"],
    ["  quantum    gravity ", "quantum gravity"],
    ["ti:transformer AND au:vaswani", "ti:transformer AND au:vaswani"],
    ['ti:"graph   neural networks"', 'ti:"graph neural networks"'],
    ['"graph neural networks" AND cat:cs.LG', '"graph neural networks" AND cat:cs.LG'],
    ["( a OR b ) AND c", "(a OR b) AND c"],
    ["a ANDNOT b", "a ANDNOT b"],
    ["cat:CS.lg", "cat:cs.LG"],
    ["cat:cs.*", "cat:cs.*"],
    ["cat:cs", "cat:cs.*"],
    ["cat:astro-ph", "cat:astro-ph"],
    ["cat:hep-th", "cat:hep-th"],
    ["TI:Transformer", "ti:Transformer"],
    ["submittedDate:[202401010000 TO 202401312359]", "submittedDate:[202401010000 TO 202401312359]"],
    ["COVID-19: a review", "COVID-19: a review"],
    ["a and b", "a and b"],
    ["line\nbreak\ttab", "line break tab"],
  ])("%j -> %j", (input, expected) => {
    expect(normalizeQuery(input)).toBe(expected);
  });

  it.each([
    ["", "invalid_query"],
    ["   ", "invalid_query"],
    ["(a OR b", "invalid_query"],
    ["a OR b)", "invalid_query"],
    ["()", "invalid_query"],
    ['"unclosed', "invalid_query"],
    ['""', "invalid_query"],
    ["AND a", "invalid_query"],
    ["a AND", "invalid_query"],
    ["a AND OR b", "invalid_query"],
    ["(AND a)", "invalid_query"],
    ["(a AND)", "invalid_query"],
    ["ti:", "invalid_query"],
    ["ti: transformer", "invalid_query"],
    ["submittedDate:2024", "invalid_query"],
    ["submittedDate:[2024 TO 2025]", "invalid_query"],
    ["submittedDate:[202401010000 TO 202401312359", "invalid_query"],
    ["cat:cs.XYZ", "invalid_category"],
    ["cat:zzz.*", "invalid_category"],
    ["a\u0001b", "invalid_query"],
    ["x".repeat(1001), "invalid_query"],
  ])("rejects %j with %s", (input, reason) => {
    expect(reasonOf(() => normalizeQuery(input))).toBe(reason);
  });
});

describe("buildSearchQuery", () => {
  const today = new Date("2026-11-30T12:00:00Z");
  it("leaves a bare query alone", () => {
    expect(buildSearchQuery("a b", {}, today)).toBe("a b");
  });
  it("parenthesises the user's query before AND-ing filters (right-grouping would change its meaning)", () => {
    expect(buildSearchQuery("a OR b", { category: "cs.CL" }, today)).toBe("(a OR b) AND cat:cs.CL");
  });
  it("expands an archive, including one that was itself a category", () => {
    expect(buildSearchQuery("a", { category: "cs" }, today)).toBe("(a) AND cat:cs.*");
    expect(buildSearchQuery("a", { category: "astro-ph" }, today)).toBe("(a) AND (cat:astro-ph OR cat:astro-ph.*)");
    expect(buildSearchQuery("a", { category: "quant-ph" }, today)).toBe("(a) AND cat:quant-ph");
  });
  it("makes date bounds inclusive and fills an open end", () => {
    expect(buildSearchQuery("a", { submittedFrom: "2024-02-29", submittedTo: "2024-02-29" }, today)).toBe(
      "(a) AND submittedDate:[202402290000 TO 202402292359]",
    );
    expect(buildSearchQuery("a", { submittedFrom: "2024-01-01" }, today)).toBe(
      "(a) AND submittedDate:[202401010000 TO 202611302359]",
    );
    expect(buildSearchQuery("a", { submittedTo: "1999-12-31" }, today)).toBe(
      "(a) AND submittedDate:[199108010000 TO 199912312359]",
    );
  });
  it.each([
    [{ submittedFrom: "2023-02-29" }, "invalid_date"],
    [{ submittedFrom: "2024-13-01" }, "invalid_date"],
    [{ submittedFrom: "1900-01-01" }, "invalid_date"],
    [{ submittedFrom: "2024-05-01", submittedTo: "2024-04-30" }, "invalid_date"],
    [{ category: "physics.bogus" }, "invalid_category"],
  ])("rejects %o with %s", (filters, reason) => {
    expect(reasonOf(() => buildSearchQuery("a", filters, today))).toBe(reason);
  });

  it("fuzz: 20,000 generated queries never throw anything but a typed error", () => {
    const { random, pick } = seededRandom(777);
    const pieces = [
      "ti:",
      "au:",
      "abs:",
      "cat:",
      "cat:cs.AI",
      "cat:zz",
      "all:",
      "AND",
      "OR",
      "ANDNOT",
      "and",
      "(",
      ")",
      '"',
      "quantum",
      "gravity",
      " ",
      "  ",
      "\t",
      "\u0000",
      "\u202e",
      "\ud83d\ude00",
      "submittedDate:",
      "[",
      "]",
      "202401010000 TO 202401312359",
      ":",
      "*",
      "\\",
      "%",
    ];
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const query = Array.from({ length: 1 + Math.floor(random() * 10) }, () => pick(pieces)).join(
        random() < 0.5 ? " " : "",
      );
      const reason = reasonOf(() =>
        buildSearchQuery(query, random() < 0.2 ? { category: pick(["cs", "cs.CL", "nope", "astro-ph"]) } : {}),
      );
      outcomes.set(reason, (outcomes.get(reason) ?? 0) + 1);
      if (reason === "ok") {
        // What we send is itself a valid query: normalising it again changes nothing.
        const sent = normalizeQuery(query);
        expect(normalizeQuery(sent)).toBe(sent);
      }
    }
    expect([...outcomes.keys()].every((reason) => ["ok", "invalid_query", "invalid_category"].includes(reason))).toBe(
      true,
    );
    expect(outcomes.get("ok")).toBeGreaterThan(100);
  });
});

describe("parseQuery (the AST the mirror translates)", () => {
  const show = (node: QueryNode): string =>
    node.kind === "term"
      ? `${node.field ? `${node.field}:` : ""}${node.value}`
      : `(${show(node.left)} ${node.op} ${show(node.right)})`;

  it("groups AND, OR and ANDNOT to the right at one precedence, and reads a space as OR", () => {
    expect(show(parseQuery("a AND b OR c"))).toBe("(a AND (b OR c))");
    expect(show(parseQuery("a ANDNOT b AND c"))).toBe("(a ANDNOT (b AND c))");
    expect(show(parseQuery("a b AND c"))).toBe("(a OR (b AND c))");
    expect(show(parseQuery("(a OR b) AND c"))).toBe("((a OR b) AND c)");
    expect(show(parseQuery('ti:"graph neural networks" AND cat:cs.LG'))).toBe(
      '(ti:"graph neural networks" AND cat:cs.LG)',
    );
    expect(show(parseQuery("submittedDate:[202401010000 TO 202401312359] AND au:smith"))).toBe(
      "(submittedDate:[202401010000 TO 202401312359] AND au:smith)",
    );
  });

  it("rejects what the live validation rejects, with the same typed error", () => {
    for (const bad of ["a AND", "(a", "ti:", '"', "()", "AND a"]) {
      expect(() => parseQuery(bad), bad).toThrow(PapersError);
      expect(() => normalizeQuery(bad), bad).toThrow(PapersError);
    }
  });
});
