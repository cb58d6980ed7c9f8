// Each candidate source alone on the sample mirror (the 1,128 real records of data/arxiv-sample,
// with its ranking tables built): given a pasted title's words and the statistics the ranker
// reads, the source's subquery proposes the title's paper (or, for champions, the papers where a
// common word scores highest), within its bound.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { seedMirror, sampleRecords } from "../../../test/mirror/driver";
import { rankSlice } from "../../store/ranking/tables";
import { phraseKey, phrasesOf, type TextQuery } from "../expression";
import { isSingleToken } from "../phrase-kinds";
import { RANK_TUNING, type RankRequest } from "../rank";
import { readStatistics, type Statistics } from "../rank-statistics";
import { planMirrorSearch } from "../../sources/arxiv/mirror-query";
import { allTerms } from "./all-terms";
import type { CandidatePart } from "./candidate-part";
import { champions } from "./champions";
import { impactSums } from "./impact-sums";
import { pairs } from "./pairs";
import { rarePhrases } from "./rare-phrases";

const noFilters = () => ({ clauses: [], binds: [] });

/** A pasted title's query, its statistics as the ranker reads them, and its paper's key. */
async function pasted(title: string) {
  const planned = planMirrorSearch(title, {});
  if (!("plan" in planned)) throw new Error("expected a mirror plan");
  const query = planned.plan.match as TextQuery;
  const phrases = phrasesOf(query);
  const unique = [...new Map(phrases.map((p) => [phraseKey(p), p])).values()];
  const impactPhrases = new Map(unique.filter(isSingleToken).map((p) => [phraseKey(p), p]));
  const request = {
    query,
    filters: noFilters,
    count: () => env.DB.prepare("SELECT 0 AS scanned, 0 AS matched"),
    countCap: 10_000,
    isLowerBound: () => true,
    select: "p.id AS id",
    start: 0,
    limit: 10,
  } satisfies RankRequest;
  const statistics = await readStatistics(env.DB, request, {
    singles: unique.filter(isSingleToken),
    impactPhrases,
    summing: true,
    tuning: RANK_TUNING,
    mark: () => {},
  });
  const byRarity = [...unique].sort((a, b) => statistics.df.get(phraseKey(a))! - statistics.df.get(phraseKey(b))!);
  return { query, phrases, unique, impactPhrases, statistics, byRarity };
}

async function proposed(part: CandidatePart | null | undefined): Promise<string[]> {
  if (!part) return [];
  const { results } = await env.DB.prepare(`SELECT p.id AS id FROM arxiv_papers p WHERE p.paper_key IN (${part.sql})`)
    .bind(...part.binds)
    .all<{ id: string }>();
  return results.map((row) => row.id);
}

describe("candidate sources, each alone", () => {
  const record = sampleRecords().find((r) => r.id === "0704.0001")!;
  let title: Awaited<ReturnType<typeof pasted>>;
  let stats: Statistics;
  // Storage is wiped after each test (test/setup.ts): the mirror and its tables are built before each.
  beforeEach(async () => {
    await seedMirror();
    let after = "";
    for (;;) {
      const slice = await rankSlice(env.DB, after, { terms: 500, minDocs: 40 });
      if (slice.last === null) break;
      after = slice.last;
    }
    title = await pasted(record.title);
    stats = title.statistics;
  });
  const none = new Set<string>();

  it("impact sums: the best partial sums over the words' lists hold the title's paper", async () => {
    const sums = impactSums({
      ...stats,
      phrases: title.phrases,
      impactPhrases: title.impactPhrases,
      filters: noFilters,
      filtered: false,
      tuning: RANK_TUNING,
    });
    const ids = await proposed(sums.part);
    expect(ids).toContain(record.id);
    expect(ids.length).toBeLessThanOrEqual(RANK_TUNING.impactCandidates);
    expect(sums.summed.size).toBeGreaterThan(0);
  });

  it("rare phrases: the rarest words within the hit budget, ranked by FTS5", async () => {
    const rare = rarePhrases({
      byRarity: title.byRarity,
      summed: none,
      walk: stats.walk,
      filters: noFilters,
      tuning: RANK_TUNING,
    });
    expect(rare.rare.length).toBeGreaterThan(0);
    const ids = await proposed(rare.part);
    expect(ids).toContain(record.id);
    expect(ids.length).toBeLessThanOrEqual(RANK_TUNING.rareCandidates);
  });

  it("all terms: the papers holding the rarest words together", async () => {
    const part = allTerms({
      byRarity: title.byRarity,
      summed: none,
      df: stats.df,
      stats: stats.stats,
      filters: noFilters,
      tuning: RANK_TUNING,
    });
    expect(await proposed(part)).toContain(record.id);
    // With every word summed it stands aside (the sums hold those papers).
    const everyWord = new Set(title.byRarity.map(phraseKey));
    expect(
      allTerms({
        byRarity: title.byRarity,
        summed: everyWord,
        df: stats.df,
        stats: stats.stats,
        filters: noFilters,
        tuning: RANK_TUNING,
      }),
    ).toBeNull();
  });

  it("pairs: papers holding two of the rarer words", async () => {
    const part = pairs({
      byRarity: title.byRarity,
      summed: none,
      df: stats.df,
      walk: stats.walk,
      stats: stats.stats,
      filters: noFilters,
      tuning: RANK_TUNING,
    });
    const ids = await proposed(part);
    expect(ids).toContain(record.id);
    expect(ids.length).toBeLessThanOrEqual(RANK_TUNING.pairCandidates);
  });

  it("champions: a common word's best papers, more of them when few words share the page", async () => {
    const common = await pasted("quantum");
    const part = champions({
      query: common.query,
      byRarity: common.byRarity,
      unique: common.unique,
      rare: [],
      summed: none,
      filters: noFilters,
      pageEnd: 10,
      tuning: RANK_TUNING,
    });
    const ids = await proposed(part);
    expect(ids.length).toBeGreaterThanOrEqual(10);
    expect(ids.length).toBeLessThanOrEqual(100);
    const titles = await env.DB.prepare(
      `SELECT title, abstract FROM arxiv_papers WHERE id IN (SELECT value FROM json_each(?))`,
    )
      .bind(JSON.stringify(ids))
      .all<{ title: string; abstract: string }>();
    for (const row of titles.results) expect(`${row.title} ${row.abstract}`.toLowerCase()).toContain("quantum");
  });
});
