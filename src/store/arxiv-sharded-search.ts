// The arXiv mirror's search over its shards (store/arxiv-shards.ts): every shard is asked in
// parallel, and the answers are merged so that the page, the total and its lower-bound flag are
// the ones one database holding every paper would give.
// - Ranked: each shard ranks its own hits (its own ranking tables pick its candidates) and sends
//   more than the page; every row sent is rescored with BM25 statistics summed over the shards
//   (search/global-statistics.ts), and the page is cut from that order.
// - Listed (by date, by key): the shards' counts are combined first (the order may depend on the
//   total), then each sends the first rows of the page's order and the rows are merged.
import { textScorer } from "../search/rescore";
import { type Phrase, phraseKey, phrasesOf, type TextQuery } from "../search/expression";
import { isSingleToken } from "../search/phrase-kinds";
import { shardStatistics, sumStatistics } from "../search/global-statistics";
import { knownItemFirst, type D1Reader } from "../search/rank";
import type { MirrorRow } from "./arxiv-row";
import type { MirrorShard } from "./arxiv-shards";
import { keepHeldWorks } from "./held-works";
import { compareListed } from "./arxiv-listed-order";
import {
  COUNT_CAP,
  type Counted,
  countListed,
  countsThroughFilter,
  besideOutlierCheck,
  isLowerBound,
  listedDecision,
  listedRows,
  type MirrorSearchOptions,
  type MirrorSearchPlan,
  type MirrorSearchResult,
  outliersOutsideRange,
  SCAN_CAP,
  searchMirror,
} from "./arxiv-mirror-search";

type Answer = Extract<MirrorSearchResult, { kind: "answer" }>;

/** Rows each shard sends beyond the page, so that a paper its own statistics rank a little lower still reaches the merge. */
export const SHARD_PAGE_MARGIN = { factor: 2, atLeast: 20 };

export async function searchShards(
  shards: readonly MirrorShard<D1Reader>[],
  plan: MirrorSearchPlan,
  options: MirrorSearchOptions,
): Promise<MirrorSearchResult> {
  if (shards.length === 1) {
    const answer = await searchMirror(shards[0]!.db, plan, options);
    // The page's cached citation counts came with its rows (store/held-works.ts).
    if (answer.kind === "answer") keepHeldWorks(answer.rows, shards[0]!.binding);
    return answer;
  }
  if (plan.submitted !== null && !options.ignoreDateOutliers)
    return besideOutlierCheck(
      Promise.all(shards.map((shard) => outliersOutsideRange(shard.db, plan.submitted!))).then((outliers) =>
        outliers.reduce((a, b) => a + b, 0),
      ),
      searchShards(shards, plan, { ...options, ignoreDateOutliers: true }),
    );
  const sharded = { ...options, ignoreDateOutliers: true };
  if (options.sortBy === "relevance" && plan.match !== null) return rankedAcross(shards, plan, sharded);
  return listedAcross(shards, plan, sharded);
}

/** Each paper once: a paper caught between two shards by a move (store/arxiv-shard-move.ts) is in both for a moment. */
function onceEach(rows: MirrorRow[]): MirrorRow[] {
  const seen = new Set<number>();
  return rows.filter((row) => !seen.has(row.paper_key) && seen.add(row.paper_key));
}

/** Newest shard first: the order in which one database's walk (by key, descending) meets them. */
const newestFirst = <T>(shards: readonly T[]): T[] => [...shards].reverse();

/**
 * The shards' counts as one database would count: plain counts add up (each capped; the sum is
 * capped by the caller); a filtered count walks the newest rows up to the scan cap, so the shards
 * are taken newest first with what is left of the walk, and a shard that walked further than that
 * is counted again with the rest of the walk.
 */
async function combineCounts(
  shards: readonly MirrorShard<D1Reader>[],
  counts: readonly Counted[],
  plan: MirrorSearchPlan,
  options: MirrorSearchOptions,
): Promise<Counted> {
  if (!countsThroughFilter(plan))
    return counts.reduce((sum, c) => ({ scanned: sum.scanned + c.scanned, matched: sum.matched + c.matched }), {
      scanned: 0,
      matched: 0,
    });
  let left = options.caps?.scan ?? SCAN_CAP;
  const total = { scanned: 0, matched: 0 };
  for (const [shard, counted] of newestFirst(shards.map((shard, i) => [shard, counts[i]!] as const))) {
    if (left === 0) break;
    let own = counted;
    if (counted.scanned > left) {
      const again = await countListed(shard.db, plan, options, left);
      if ("kind" in again) break;
      own = again;
    }
    total.scanned += own.scanned;
    total.matched += own.matched;
    left -= own.scanned;
  }
  return total;
}

async function listedAcross(
  shards: readonly MirrorShard<D1Reader>[],
  plan: MirrorSearchPlan,
  options: MirrorSearchOptions,
): Promise<MirrorSearchResult> {
  const counts = await Promise.all(shards.map((shard) => countListed(shard.db, plan, options)));
  const live = counts.find((counted) => "kind" in counted);
  if (live && "kind" in live) return live;
  const counted = await combineCounts(shards, counts as Counted[], plan, options);
  const listing = listedDecision(plan, options, counted);
  if (listing.kind === "live") return listing;
  const pageEnd = options.start + options.limit;
  // A shard whose count walked all its rows and found none has nothing to list (a filtered count
  // stopped by its scan cap proves nothing about older rows).
  const scanCap = options.caps?.scan ?? SCAN_CAP;
  const empty = (c: Counted) => c.matched === 0 && c.scanned < scanCap;
  const pages = await Promise.all(
    shards.map((shard, i) =>
      empty(counts[i] as Counted) ? [] : listedRows(shard.db, plan, listing.orderBy, 0, pageEnd),
    ),
  );
  for (const [i, rows] of pages.entries()) keepHeldWorks(rows, shards[i]!.binding);
  const rows = onceEach(pages.flat()).sort(compareListed(listing.order));
  return { ...listing.answer, rows: rows.slice(options.start, pageEnd) };
}

/**
 * The phrases whose statistics a ranked search across shards sums, and whether it reads them
 * beside the shards' rankings: the ranker reads every single word's frequency and the totals in its
 * first batch (a query of single words sums what the shards' rankings read), while a phrase of
 * several words or a prefix is counted only when a ranking needs it.
 */
export function statisticsToRead(match: TextQuery): { unique: Phrase[]; readApart: boolean } {
  const unique = [...new Map(phrasesOf(match).map((p) => [phraseKey(p), p])).values()];
  return { unique, readApart: unique.some((p) => !isSingleToken(p)) };
}

async function rankedAcross(
  shards: readonly MirrorShard<D1Reader>[],
  plan: MirrorSearchPlan,
  options: MirrorSearchOptions,
): Promise<MirrorSearchResult> {
  const match = plan.match!;
  const pageEnd = options.start + options.limit;
  const sent = Math.max(pageEnd * SHARD_PAGE_MARGIN.factor, pageEnd + SHARD_PAGE_MARGIN.atLeast);
  const phrases = phrasesOf(match);
  const { unique, readApart } = statisticsToRead(match);
  const [answers, apart] = await Promise.all([
    Promise.all(shards.map((shard) => searchMirror(shard.db, plan, { ...options, start: 0, limit: sent }))),
    readApart ? Promise.all(shards.map((shard) => shardStatistics(shard.db, unique))) : null,
  ]);
  const live = answers.find((answer) => answer.kind === "live");
  if (live) return live;
  const ranked = answers as Answer[];
  for (const [i, answer] of ranked.entries()) keepHeldWorks(answer.rows, shards[i]!.binding);
  const statistics =
    apart ??
    (await Promise.all(
      ranked.map((answer, i) =>
        answer.statistics
          ? {
              stats: answer.statistics.stats,
              df: unique.map((p) => answer.statistics!.df.get(phraseKey(p)) ?? 0),
            }
          : shardStatistics(shards[i]!.db, unique),
      ),
    ));
  const counted = await combineCounts(
    shards,
    ranked.map((answer) => answer.counted),
    plan,
    options,
  );
  const { stats, df } = sumStatistics(unique, statistics);
  const score = textScorer(match, phrases, stats, df);
  const ascending = options.sortOrder === "ascending";
  const scored = onceEach(ranked.flatMap((answer) => answer.rows))
    .map((row) => ({
      row,
      score:
        score([row.title, row.authors, row.abstract, row.comment ?? "", row.journal_ref ?? ""])?.score ??
        Number.NEGATIVE_INFINITY,
    }))
    .sort((a, b) =>
      ascending
        ? a.score - b.score || a.row.paper_key - b.row.paper_key
        : b.score - a.score || b.row.paper_key - a.row.paper_key,
    )
    .map((entry) => entry.row);
  const ordered: MirrorRow[] = options.reference ? scored : knownItemFirst(match, scored);
  const countCap = options.caps?.count ?? COUNT_CAP;
  const methods = new Set(ranked.map((answer) => answer.method));
  return {
    kind: "answer",
    total: Math.min(counted.matched, countCap),
    totalIsLowerBound: isLowerBound(plan, options, counted),
    rows: ordered.slice(options.start, pageEnd),
    ordering: "relevance",
    method: methods.size === 1 ? ranked[0]!.method : "candidates",
    counted,
  };
}
