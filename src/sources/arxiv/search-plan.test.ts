// planSearch: a search's arguments become one typed plan, checked once, saying where it runs and why.
import { describe, expect, it } from "vitest";
import { planSearch, type SearchRequest } from "./search-plan";
import { thrownReason as reasonOf } from "../../../test/support/thrown";

const TODAY = new Date("2026-12-06T12:00:00Z");
const MIRROR = { ARXIV_MIRROR_ENABLED: true, ARXIV_MIRROR_RECENT_DAYS_LIVE: 2 };
const request = (over: Partial<SearchRequest>): SearchRequest => ({
  query: "quantum error correction",
  sortBy: "relevance",
  sortOrder: "descending",
  start: 0,
  maxResults: 10,
  ...over,
});
describe("planSearch", () => {
  it("resolves the category and the dates once, for arXiv's query and the mirror's plan alike", () => {
    const plan = planSearch(
      request({
        query: "ti:transformer",
        category: "astro-ph",
        submittedFrom: "2024-01-01",
        submittedTo: "2024-01-31",
      }),
      MIRROR,
      TODAY,
    );
    expect(plan.arxivQuery).toBe(
      "(ti:transformer) AND (cat:astro-ph OR cat:astro-ph.*) AND submittedDate:[202401010000 TO 202401312359]",
    );
    if (plan.route.runs !== "mirror") throw new Error("expected the mirror");
    expect(plan.route.mirror.categoryGroups).toEqual([["astro-ph.*"]]);
    expect(plan.route.mirror.submitted).toEqual({
      from: Date.UTC(2024, 0, 1) / 1000,
      to: Date.UTC(2024, 0, 31, 23, 59, 59) / 1000,
    });
  });

  it("gives a cat: term the categories it covers, as the category parameter would", () => {
    const term = planSearch(request({ query: "ti:jets AND cat:astro-ph" }), MIRROR, TODAY);
    const parameter = planSearch(request({ query: "ti:jets", category: "astro-ph" }), MIRROR, TODAY);
    if (term.route.runs !== "mirror" || parameter.route.runs !== "mirror") throw new Error("expected the mirror");
    expect(term.route.mirror.categoryGroups).toEqual(parameter.route.mirror.categoryGroups);
    const wildcard = planSearch(request({ query: "ti:jets AND cat:hep-th*" }), MIRROR, TODAY);
    if (wildcard.route.runs !== "mirror") throw new Error("expected the mirror");
    expect(wildcard.route.mirror.categoryGroups).toEqual([["hep-th", "hep-th.*"]]);
  });

  it("says where a search runs and why", () => {
    expect(planSearch(request({}), { ...MIRROR, ARXIV_MIRROR_ENABLED: false }, TODAY).route).toEqual({
      runs: "live",
      why: "",
    });
    expect(planSearch(request({ query: "rn:CERN-TH-1234" }), MIRROR, TODAY).route).toEqual({
      runs: "live",
      why: "rn: (report number) is not in the mirror's index",
    });
    const recent = planSearch(request({ sortBy: "submitted" }), MIRROR, TODAY).route;
    expect(recent.runs === "live" && recent.why).toMatch(/last 2 days go to arXiv/);
    expect(recent.runs === "live" && recent.fallback?.match).toBeTruthy();
    const older = planSearch(request({ sortBy: "submitted", submittedTo: "2020-01-31" }), MIRROR, TODAY);
    expect(older.route.runs).toBe("mirror");
  });

  it("applies arXiv's paging rules, with a notice for what it changed", () => {
    expect(planSearch(request({ maxResults: 200 }), MIRROR, TODAY)).toMatchObject({
      start: 0,
      limit: 50,
      notices: ["max_results 200 was capped to 50; page with start."],
    });
    expect(planSearch(request({ start: 9_990, maxResults: 50 }), MIRROR, TODAY)).toMatchObject({
      limit: 10,
      notices: ["Capped to 10 results: arXiv serves only the first 10000 of a query."],
    });
  });

  it("fails with one typed error, in the order the arguments are checked", () => {
    expect(reasonOf(() => planSearch(request({ start: 10_000, query: "a AND" }), MIRROR, TODAY))).toBe(
      "start_beyond_result_limit",
    );
    expect(reasonOf(() => planSearch(request({ query: "a AND", category: "nope" }), MIRROR, TODAY))).toBe(
      "invalid_query",
    );
    expect(reasonOf(() => planSearch(request({ category: "nope", submittedFrom: "2024-13-01" }), MIRROR, TODAY))).toBe(
      "invalid_category",
    );
    expect(
      reasonOf(() => planSearch(request({ submittedFrom: "2024-02-01", submittedTo: "2024-01-01" }), MIRROR, TODAY)),
    ).toBe("invalid_date");
    expect(reasonOf(() => planSearch(request({ query: "ti:quantum" }), MIRROR, TODAY))).toBe("ok");
  });
});
