// The mirror's planner: arXiv's grammar -> one FTS5 text query plus category and date filters, or the reason
// arXiv's API must answer instead.
import { describe, expect, it } from "vitest";
import { toMatch } from "../../search/expression";
import { planMirrorSearch } from "./mirror-query";
import type { SearchFilters } from "./query";

const TODAY = new Date("2026-12-01T12:00:00Z");
const plan = (query: string, filters: SearchFilters = {}) => {
  const result = planMirrorSearch(query, filters, TODAY);
  if ("live" in result) throw new Error(`went live: ${result.live}`);
  return result.plan;
};
const live = (query: string, filters: SearchFilters = {}) => {
  const result = planMirrorSearch(query, filters, TODAY);
  if (!("live" in result)) throw new Error(`planned for the mirror: ${JSON.stringify(result.plan)}`);
  return result.live;
};
const match = (query: string) => toMatch(plan(query).match!);

describe("planMirrorSearch", () => {
  it("writes every token as a quoted FTS5 string, in its field's column", () => {
    expect(match("ti:quantum")).toBe('title : "quantum"');
    expect(match("au:Habib AND abs:lattice")).toBe('(authors : "habib" AND abstract : "lattice")');
    expect(match('quantum NEAR "AND" OR x')).toBe('("quantum" OR "near" OR "and" OR "x")');
  });

  it("keeps a quoted phrase whole (stopwords included) and drops stopwords outside quotes", () => {
    expect(match('abs:"in this paper we"')).toBe('abstract : "in this paper we"');
    expect(match("the theory of everything")).toBe('("theory" OR "everything")');
    expect(live("the of and")).toMatch(/no searchable word is left/);
  });

  it("needs every token of an unquoted hyphenated word in the field", () => {
    expect(match("ti:x-ray")).toBe('(title : "x" AND title : "ray")');
  });

  it("turns cat: terms and the category parameter into deduplicated junction groups", () => {
    expect(plan("cat:hep-th OR cat:hep-th OR cat:math.*", { category: "astro-ph" })).toMatchObject({
      match: null,
      categoryGroups: [["astro-ph.*"], ["hep-th", "math.*"]],
    });
    expect(plan("quantum ANDNOT cat:cs.LG").excludedCategories).toEqual(["cs.LG"]);
    // A bare archive code that was once a flat category means the whole archive, as category= does.
    expect(plan("cat:astro-ph").categoryGroups).toEqual([["astro-ph.*"]]);
  });

  it("intersects every date filter into one inclusive window of Unix seconds", () => {
    const window = plan("quantum AND submittedDate:[201501010000 TO 201512312359]", {
      submittedFrom: "2015-06-01",
    }).submitted!;
    expect(window).toEqual({ from: Date.UTC(2015, 5, 1) / 1000, to: Date.UTC(2015, 11, 31, 23, 59, 59) / 1000 });
    const empty = plan("cat:hep-th AND submittedDate:[201501010000 TO 201501312359]", {
      submittedFrom: "2016-01-01",
    }).submitted!;
    expect(empty.to).toBeLessThan(empty.from);
  });

  it("sends to arXiv's API what the mirror cannot answer as arXiv would, saying why", () => {
    expect(live("e*")).toMatch(/prefix of fewer than 3 letters/);
    expect(live("ti:x*")).toMatch(/prefix of fewer than 3 letters/);
    expect(match("quan*")).toBe('"quan" *');
    expect(live("rn:CERN-TH-2020")).toMatch(/report number/);
    expect(live("quantum OR cat:hep-th")).toMatch(/joined to words by OR/);
    expect(live("cat:hep-th ANDNOT quantum")).toMatch(/only ANDNOT terms are left/);
  });

  it("throws a typed error for a category that does not exist", () => {
    expect(() => planMirrorSearch("quantum", { category: "cs.CLL" }, TODAY)).toThrow(/cs\.CLL/);
  });
});
