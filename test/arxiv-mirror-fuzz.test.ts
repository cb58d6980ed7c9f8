// Every MATCH expression the mirror emits must be valid FTS5. Thousands of generated queries
// (fields, phrases, prefixes, stopwords, punctuation, non-Latin scripts, operators, nesting)
// go through the one parser and the planner and run against real FTS5 in D1: none may end in
// anything but a result, a typed invalid_query/invalid_category/invalid_date, or a live route.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PapersError } from "../src/errors";
import { planMirrorSearch } from "../src/sources/arxiv/mirror-query";
import { searchMirror } from "../src/store/arxiv-mirror-search";
import { oneDatabase } from "../src/store/arxiv-shards";
import { toMatch } from "../src/search/expression";
import { seedMirror } from "./mirror/driver";
import { mulberry32 } from "./support/random";

const WORDS = [
  "quantum",
  "field",
  "the",
  "of",
  "and",
  "NOT",
  "NEAR",
  "near",
  "or",
  "and*",
  "gauge*",
  "self-attention",
  "x^2",
  "$\\alpha$",
  "O(n)",
  "naïve",
  "Schrödinger",
  "量子",
  "теория",
  "ε",
  "C++",
  "AT&T",
  "e.g.",
  "'quoted'",
  "back\\slash",
  "a*b",
  "*",
  "-",
  ":",
  "_",
  "{title}",
  "col:umn",
  "123",
  "2401.12345",
  "hep-th/9901001",
  "rank",
  "bm25",
  "MATCH",
  "\u00a0",
  "emoji😀",
  "^",
  "+",
  "x*",
  '"',
  "''",
];
const FIELDS = ["", "", "", "ti:", "au:", "abs:", "co:", "jr:", "all:"];
const CATS = ["cat:hep-th", "cat:cs.LG", "cat:math.*", "cat:astro-ph", "cat:cs*", "cat:nonsense"];
const OPS = [" AND ", " OR ", " ANDNOT ", " ", " and ", "  "];

function generate(random: () => number): string {
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const term = (): string => {
    const r = random();
    if (r < 0.1) return pick(CATS);
    if (r < 0.14) return "submittedDate:[202001010000 TO 202112312359]";
    if (r < 0.3) return `${pick(FIELDS)}"${pick(WORDS)} ${pick(WORDS)}"`;
    return `${pick(FIELDS)}${pick(WORDS)}`;
  };
  const expression = (depth: number): string => {
    const parts = [depth < 3 && random() < 0.2 ? `(${expression(depth + 1)})` : term()];
    while (random() < 0.45) parts.push(pick(OPS), depth < 3 && random() < 0.2 ? `(${expression(depth + 1)})` : term());
    return parts.join("");
  };
  return expression(0);
}

describe("mirror query translation against real FTS5", () => {
  it("never emits an FTS5 syntax error over 4,000 generated queries", async () => {
    await seedMirror();
    const random = mulberry32(5);
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < 4000; i++) {
      const query = generate(random);
      let outcome: string;
      try {
        const planned = planMirrorSearch(
          query,
          random() < 0.2 ? { category: "hep-th", submittedFrom: "1995-01-01" } : {},
        );
        if ("live" in planned) outcome = "live";
        else {
          if (planned.plan.match !== null) {
            // The MATCH alone, and the whole search the tool would run.
            await env.DB.prepare("SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?")
              .bind(toMatch(planned.plan.match))
              .first();
          }
          if (i % 8 === 0) {
            const result = await searchMirror(oneDatabase(env.DB), planned.plan, {
              sortBy: random() < 0.5 ? "relevance" : "submitted",
              sortOrder: "descending",
              start: 0,
              limit: 3,
            });
            expect(["answer", "live"]).toContain(result.kind);
          }
          outcome = "mirror";
        }
      } catch (error) {
        if (
          error instanceof PapersError &&
          ["invalid_query", "invalid_category", "invalid_date"].includes(error.reason)
        )
          outcome = error.reason;
        else
          throw new Error(
            `query ${JSON.stringify(query)} failed: ${error instanceof Error ? error.message : String(error)}`,
          );
      }
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    // The generator must exercise every path, or the test proves little.
    expect(outcomes["mirror"]).toBeGreaterThan(1500);
    expect(outcomes["live"]).toBeGreaterThan(100);
    expect(outcomes["invalid_query"]).toBeGreaterThan(50);
  }, 120_000);
});
