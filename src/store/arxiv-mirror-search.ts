// The arXiv mirror's search: one interface that executes a plan over the mirror's databases
// (store/arxiv-shards.ts; one database is the case N = 1 of the same path). Every database runs
// the plan's statements in parallel (arxiv-mirror-statements.ts), and their answers are merged so
// that the page, the total and its lower-bound flag are the ones one database holding every
// paper would give.
// - Ranked: each database ranks its own hits (its own ranking tables pick its candidates). With
//   several, each sends more than the page, and every row sent is rescored with BM25 statistics
//   summed over the databases (search/global-statistics.ts); the page is cut from that order.
// - Listed (by date, by key): the counts are combined first (the order may depend on the total),
//   then each database sends the first rows of the page's order and the rows are merged.
import { type Phrase, phraseKey, phrasesOf, type TextQuery } from "../search/expression";
import { shardStatistics, sumStatistics } from "../search/global-statistics";
import { knownItemFirst } from "../search/known-item";
import { isSingleToken } from "../search/phrase-kinds";
import type { CorpusStats } from "../search/bm25";
import type { ImpactListCache } from "../search/impact-cache";
import type { D1Reader, RankMethod, RANK_TUNING } from "../search/rank";
import { textScorer } from "../search/rescore";
import { compareListed } from "./arxiv-listed-order";
import {
  capsOf,
  type Counted,
  countListed,
  countsThroughFilter,
  listedDecision,
  listedRows,
  outliersOutsideRange,
  rankedAnswer,
  reachesCap,
} from "./arxiv-mirror-statements";
import type { MirrorRow } from "./arxiv-row";
import type { MirrorShard } from "./arxiv-shards";
import { keepHeldWorks } from "./held-works";

export { COUNT_CAP, RANK_CAP, SCAN_CAP } from "./arxiv-mirror-statements";

/** What the mirror executes (sources/arxiv/mirror-query.ts makes it from a search's plan). */
export interface MirrorSearchPlan {
  /** The text part, run as FTS5 MATCH and by the ranker; null when only filters remain. */
  match: TextQuery | null;
  /** Each inner list is one OR-group of junction values (cs.LG, cs.*); all groups must hold. */
  categoryGroups: string[][];
  /** Junction values a paper must not have. */
  excludedCategories: string[];
  /** Inclusive submitted-date window, Unix seconds (intersection of every date filter). */
  submitted: { from: number; to: number } | null;
}

export interface MirrorSearchOptions {
  sortBy: "relevance" | "submitted" | "updated";
  sortOrder: "ascending" | "descending";
  start: number;
  limit: number;
  /** Tests shrink these to reach the ceilings with a small mirror. */
  caps?: { count: number; scan: number; rank: number };
  /** Tests shrink the ranker's candidate sets to reach its other paths. */
  tuning?: Partial<typeof RANK_TUNING>;
  /** Answer even when papers dated in the window have IDs of far-off months (they are missed). */
  ignoreDateOutliers?: boolean;
  /** Filled with the ranker's stage times (the bench). */
  trace?: Record<string, number>;
  /** Every hit scored, in plain BM25 order (the bench's reference ranking). */
  reference?: boolean;
  /** The impact lists held between searches (the isolate's by default; tests pass their own). */
  impactCache?: ImpactListCache;
}

/** relevance: BM25 order; newest_first: no words to rank, so the page is listed newest first. */
export type MirrorOrdering = "relevance" | "submitted" | "updated" | "newest_first";

export type MirrorSearchResult =
  | {
      kind: "answer";
      total: number;
      totalIsLowerBound: boolean;
      rows: MirrorRow[];
      ordering: MirrorOrdering;
      method?: RankMethod;
      /** The capped count it came from (a sharded search sums its shards'). */
      counted: { scanned: number; matched: number };
      /** A ranked answer's BM25 statistics, as the ranker read them (a sharded search sums its shards'). */
      statistics?: { stats: CorpusStats; df: Map<string, number> };
    }
  | { kind: "live"; reason: string; mirrorCouldApproximate: boolean };

type Answer = Extract<MirrorSearchResult, { kind: "answer" }>;
type Live = Extract<MirrorSearchResult, { kind: "live" }>;

/** Rows each database sends beyond the page when there are several, so that a paper its own statistics rank a little lower still reaches the merge. */
export const SHARD_PAGE_MARGIN = { factor: 2, atLeast: 20 };

/** Executes a mirror plan over the mirror's databases (one or several) and answers one page. */
export async function searchMirror(
  databases: readonly MirrorShard<D1Reader>[],
  plan: MirrorSearchPlan,
  options: MirrorSearchOptions,
): Promise<MirrorSearchResult> {
  if (plan.submitted !== null && !options.ignoreDateOutliers) {
    const window = plan.submitted;
    const outliers = Promise.all(databases.map((database) => outliersOutsideRange(database.db, window)));
    return besideOutlierCheck(
      outliers.then((counts) => counts.reduce((a, b) => a + b, 0)),
      searchMirror(databases, plan, { ...options, ignoreDateOutliers: true }),
    );
  }
  return options.sortBy === "relevance" && plan.match !== null
    ? ranked(databases, plan, plan.match, options)
    : listed(databases, plan, options);
}

/**
 * A search with a date window, run beside the check for papers dated in it under IDs of far-off
 * months (rare): the check costs no round trip of its own, and when it finds some, the search's
 * answer is dropped for datedElsewhere's.
 */
async function besideOutlierCheck(
  outliers: Promise<number>,
  search: Promise<MirrorSearchResult>,
): Promise<MirrorSearchResult> {
  const [checked, answer] = await Promise.allSettled([outliers, search]);
  if (checked.status === "rejected") throw checked.reason;
  if (checked.value > 0) return datedElsewhere(checked.value);
  if (answer.status === "rejected") throw answer.reason;
  return answer.value;
}

/** The answer when papers dated in a window carry IDs of far-off months (the date filter would miss them). */
function datedElsewhere(outliers: number): Live {
  return {
    kind: "live",
    mirrorCouldApproximate: true,
    reason: `${outliers} paper(s) dated in this window carry IDs of other months, which the mirror's date filter would miss`,
  };
}

/** Each paper once: a paper caught between two databases by a move (store/arxiv-shard-move.ts) is in both for a moment. */
function onceEach(rows: MirrorRow[]): MirrorRow[] {
  const seen = new Set<number>();
  return rows.filter((row) => !seen.has(row.paper_key) && seen.add(row.paper_key));
}

/** Newest database first: the order in which one database's walk (by key, descending) meets them. */
const newestFirst = <T>(databases: readonly T[]): T[] => [...databases].reverse();

/**
 * The databases' counts as one database would count: plain counts add up (each capped; the sum is
 * capped by the caller); a filtered count walks the newest rows up to the scan cap, so the
 * databases are taken newest first with what is left of the walk, and one that walked further
 * than that is counted again with the rest of the walk (never with one database: its walk is the whole walk).
 */
async function combineCounts(
  databases: readonly MirrorShard<D1Reader>[],
  counts: readonly Counted[],
  filtered: boolean,
  recount: (database: MirrorShard<D1Reader>, scanCap: number) => Promise<Counted | Live>,
  scanCap: number,
): Promise<Counted> {
  if (!filtered)
    return counts.reduce((sum, c) => ({ scanned: sum.scanned + c.scanned, matched: sum.matched + c.matched }), {
      scanned: 0,
      matched: 0,
    });
  let left = scanCap;
  const total = { scanned: 0, matched: 0 };
  for (const [database, counted] of newestFirst(databases.map((database, i) => [database, counts[i]!] as const))) {
    if (left === 0) break;
    let own = counted;
    if (counted.scanned > left) {
      const again = await recount(database, left);
      if ("kind" in again) break;
      own = again;
    }
    total.scanned += own.scanned;
    total.matched += own.matched;
    left -= own.scanned;
  }
  return total;
}

async function listed(
  databases: readonly MirrorShard<D1Reader>[],
  plan: MirrorSearchPlan,
  options: MirrorSearchOptions,
): Promise<MirrorSearchResult> {
  const counts = await Promise.all(databases.map((database) => countListed(database.db, plan, options)));
  const live = counts.find((counted) => "kind" in counted);
  if (live && "kind" in live) return live;
  const scanCap = capsOf(options).scan;
  const counted = await combineCounts(
    databases,
    counts as Counted[],
    countsThroughFilter(plan),
    (database, left) => countListed(database.db, plan, options, left),
    scanCap,
  );
  const listing = listedDecision(plan, options, counted);
  if (listing.kind === "live") return listing;
  const one = databases.length === 1;
  const pageEnd = options.start + options.limit;
  // A database whose count walked all its rows and found none has nothing to list (a filtered
  // count stopped by its scan cap proves nothing about older rows). With several, each sends
  // the page's order from its first row, for the merge; one sends the page itself.
  const empty = (c: Counted) => c.matched === 0 && c.scanned < scanCap;
  const pages = await Promise.all(
    databases.map((database, i) =>
      empty(counts[i] as Counted)
        ? []
        : listedRows(database.db, plan, listing.orderBy, one ? options.start : 0, one ? options.limit : pageEnd),
    ),
  );
  for (const [i, rows] of pages.entries()) keepHeldWorks(rows, databases[i]!.binding);
  if (one) return { ...listing.answer, rows: pages[0]! };
  const rows = onceEach(pages.flat()).sort(compareListed(listing.order));
  return { ...listing.answer, rows: rows.slice(options.start, pageEnd) };
}

/**
 * The phrases whose statistics a ranked search across databases sums, and whether it reads them
 * beside the databases' rankings: the ranker reads every single word's frequency and the totals in its
 * first batch (a query of single words sums what the rankings read), while a phrase of
 * several words or a prefix is counted only when a ranking needs it.
 */
export function statisticsToRead(match: TextQuery): { phrases: Phrase[]; unique: Phrase[]; readApart: boolean } {
  const phrases = phrasesOf(match);
  const unique = [...new Map(phrases.map((p) => [phraseKey(p), p])).values()];
  return { phrases, unique, readApart: unique.some((p) => !isSingleToken(p)) };
}

async function ranked(
  databases: readonly MirrorShard<D1Reader>[],
  plan: MirrorSearchPlan,
  match: TextQuery,
  options: MirrorSearchOptions,
): Promise<MirrorSearchResult> {
  const one = databases.length === 1;
  const pageEnd = options.start + options.limit;
  const sent = Math.max(pageEnd * SHARD_PAGE_MARGIN.factor, pageEnd + SHARD_PAGE_MARGIN.atLeast);
  // One database ranks the page itself: its own order is the order, and it needs no margin.
  const asked = one ? options : { ...options, start: 0, limit: sent };
  // Whether the counts walk through a filter: asked here, before the ranking, so that the merge
  // below needs nothing more from the statements (docs/architecture.md: "How a search runs").
  const filtered = countsThroughFilter(plan);
  const answering = Promise.all(databases.map((database) => rankedAnswer(database.db, plan, match, asked)));
  // Several databases: their statistics are summed (a phrase of several words or a prefix is read beside the rankings).
  const toRead = one ? null : statisticsToRead(match);
  const [answers, apart] = await Promise.all([
    answering,
    toRead?.readApart ? Promise.all(databases.map((database) => shardStatistics(database.db, toRead.unique))) : null,
  ]);
  const live = answers.find((answer) => answer.kind === "live");
  if (live) return live;
  const rankedAnswers = answers as Answer[];
  for (const [i, answer] of rankedAnswers.entries()) keepHeldWorks(answer.rows, databases[i]!.binding);
  if (toRead === null) return rankedAnswers[0]!;
  return mergeRanked(databases, plan, match, options, { answers: rankedAnswers, apart, toRead, filtered });
}

/** The databases' ranked rows as one database would rank them: rescored with their summed statistics, the page cut from that order. */
async function mergeRanked(
  databases: readonly MirrorShard<D1Reader>[],
  plan: MirrorSearchPlan,
  match: TextQuery,
  options: MirrorSearchOptions,
  {
    answers,
    apart,
    toRead: { phrases, unique },
    filtered,
  }: {
    answers: Answer[];
    apart: { stats: CorpusStats; df: number[] }[] | null;
    toRead: ReturnType<typeof statisticsToRead>;
    filtered: boolean;
  },
): Promise<MirrorSearchResult> {
  const statistics =
    apart ??
    (await Promise.all(
      answers.map((answer, i) =>
        answer.statistics
          ? {
              stats: answer.statistics.stats,
              df: unique.map((p) => answer.statistics!.df.get(phraseKey(p)) ?? 0),
            }
          : shardStatistics(databases[i]!.db, unique),
      ),
    ));
  const caps = capsOf(options);
  const counted = await combineCounts(
    databases,
    answers.map((answer) => answer.counted),
    filtered,
    (database, left) => countListed(database.db, plan, options, left),
    caps.scan,
  );
  const { stats, df } = sumStatistics(unique, statistics);
  const rows = mergedOrder(answers, textScorer(match, phrases, stats, df), options.sortOrder);
  const ordered: MirrorRow[] = options.reference ? rows : knownItemFirst(match, rows);
  const methods = new Set(answers.map((answer) => answer.method));
  return {
    kind: "answer",
    total: Math.min(counted.matched, caps.count),
    totalIsLowerBound: reachesCap(filtered, caps, counted),
    rows: ordered.slice(options.start, options.start + options.limit),
    ordering: "relevance",
    method: methods.size === 1 ? answers[0]!.method : "candidates",
    counted,
  };
}

/** Every database's rows once, scored with the summed statistics, best first (worst first when ascending). */
function mergedOrder(
  answers: readonly Answer[],
  score: ReturnType<typeof textScorer>,
  sortOrder: MirrorSearchOptions["sortOrder"],
): MirrorRow[] {
  const ascending = sortOrder === "ascending";
  return onceEach(answers.flatMap((answer) => answer.rows))
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
}
