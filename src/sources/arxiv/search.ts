// arxiv_search_papers behind the tool: answer from the mirror when it can answer the way arXiv
// would, else from arXiv's API (with the reason in the answer). When arXiv's API fails on a
// search the mirror could have answered (only more approximately), the mirror answers and says so.
import { emptyMeter, meterFields, meteredReader } from "../../store/d1-meter";
import { PapersError } from "../../errors";
import { mirrorLikelyReady, mirrorState, type MirrorState } from "../../store/arxiv-mirror-state";
import type { MirrorOrdering } from "../../store/arxiv-mirror-search";
import { searchShards } from "../../store/arxiv-sharded-search";
import { arxivReaders, readThrough } from "../../store/arxiv-shards";
import { searchArxiv, type ServedFrom, type SortBy } from "./api";
import { rowToPaper } from "./mirror";
import { planMirrorSearch, type MirrorPlan } from "./mirror-query";
import type { ArxivPaper } from "./paper";
import { buildSearchQuery, parseSearch, type SearchFilters } from "./query";
import type { AppContext } from "../../context";

export interface SearchInput extends SearchFilters {
  query: string;
  sortBy: SortBy;
  sortOrder: "ascending" | "descending";
  start: number;
  maxResults: number;
}

export interface SearchOutcome {
  query: string;
  total: number;
  totalIsLowerBound: boolean;
  papers: ArxivPaper[];
  source: ServedFrom | { served_from: "mirror" };
  notices: string[];
}

const ORDERING_NOTE: Record<MirrorOrdering, string | null> = {
  relevance: "Ranked by the mirror's BM25 (arXiv's own relevance order differs).",
  submitted: null,
  updated: null,
  newest_first: "The search has no words to rank by (only categories or dates): listed newest first.",
};

const DAY_MS = 86_400_000;

export async function searchPapers(ctx: AppContext, input: SearchInput, today = new Date()): Promise<SearchOutcome> {
  // Parsed once (bad input fails the same way on every route); both the mirror's planner and arXiv's query use it.
  const parsed = parseSearch(input.query);
  const searchQuery = buildSearchQuery(parsed, input, today);
  const config = ctx.config;
  let liveReason: string;
  let fallbackPlan: MirrorPlan | undefined;
  if (!config.ARXIV_MIRROR_ENABLED) {
    liveReason = "";
  } else {
    // The mirror's state and its search start together (unless this isolate last saw the mirror
    // not whole): when the mirror answers, nearly always, reading the state costs no round trip
    // of its own. A search that turns out not to be wanted (a mirror not ready) is dropped.
    const statePromise = mirrorState(ctx.env.DB);
    const planned = planMirrorSearch(parsed, input, today);
    const recentLive = recentWindowReason(config.ARXIV_MIRROR_RECENT_DAYS_LIVE, input, today);
    const speculative =
      "live" in planned || recentLive || !mirrorLikelyReady(ctx.env.DB)
        ? undefined
        : mirrorAnswer(ctx, planned.plan, input, searchQuery, []).catch((error: unknown) => mirrorFailed(ctx, error));
    speculative?.catch(() => {});
    const state = await statePromise;
    if (!state.ready && !state.partial) liveReason = `the mirror is not ready (${state.reason})`;
    else if ("live" in planned) liveReason = planned.live;
    else if (!state.ready) {
      // A partial mirror is never served as a whole one: arXiv answers, the mirror only if arXiv cannot.
      liveReason = `the mirror is not ready (${state.reason})`;
      fallbackPlan = planned.plan;
    } else if (recentLive) {
      liveReason = recentLive;
      fallbackPlan = planned.plan;
    } else {
      const answer = await (speculative ??
        mirrorAnswer(ctx, planned.plan, input, searchQuery, []).catch((error: unknown) => mirrorFailed(ctx, error)));
      if ("live" in answer) {
        liveReason = answer.live;
        if (answer.mirrorCouldApproximate) fallbackPlan = planned.plan;
      } else return { ...answer, notices: [...ageNotices(state, today), ...answer.notices] };
    }
  }
  const notices = liveReason ? [`Answered by arXiv's API: ${liveReason}.`] : [];
  try {
    const { feed, source } = await searchArxiv(ctx, {
      searchQuery,
      start: input.start,
      maxResults: input.maxResults,
      sortBy: input.sortBy,
      sortOrder: input.sortOrder,
    });
    return { query: searchQuery, total: feed.total, totalIsLowerBound: false, papers: feed.papers, source, notices };
  } catch (error) {
    if (!(error instanceof PapersError) || !error.retryable || fallbackPlan === undefined) throw error;
    const fallback = await mirrorAnswer(
      ctx,
      fallbackPlan,
      input,
      searchQuery,
      [
        `arXiv's API failed (${error.reason}); answered from the mirror instead, which may miss some papers: ${liveReason}.`,
      ],
      true,
    );
    if ("live" in fallback) throw error;
    return fallback;
  }
}

async function mirrorAnswer(
  ctx: AppContext,
  plan: MirrorPlan,
  input: SearchInput,
  searchQuery: string,
  notices: string[],
  ignoreDateOutliers = false,
): Promise<SearchOutcome | { live: string; mirrorCouldApproximate: boolean }> {
  // Read through a D1 session: a deployed mirror with read replication answers from the nearest replica.
  // What the search cost the database is logged (docs/operations.md): rows read, SQL time, region.
  const meter = emptyMeter();
  const started = performance.now();
  const shards = readThrough(arxivReaders(ctx), (session) => meteredReader(session, meter));
  const result = await searchShards(shards, plan, {
    sortBy: input.sortBy,
    sortOrder: input.sortOrder,
    start: input.start,
    limit: input.maxResults,
    ignoreDateOutliers,
  });
  ctx.log({
    event: "mirror_search",
    ...meterFields(meter),
    ...(shards.length > 1 ? { shards: shards.length } : {}),
    ms: Math.round(performance.now() - started),
  });
  if (result.kind === "live") return { live: result.reason, mirrorCouldApproximate: result.mirrorCouldApproximate };
  const note = ORDERING_NOTE[result.ordering];
  return {
    query: searchQuery,
    total: result.total,
    totalIsLowerBound: result.totalIsLowerBound,
    papers: result.rows.map(rowToPaper),
    source: { served_from: "mirror" },
    notices: [
      ...notices,
      ...(note ? [note] : []),
      ...(result.totalIsLowerBound
        ? [`The mirror stops counting at ${result.total.toLocaleString("en-US")}: there are at least that many.`]
        : []),
    ],
  };
}

/**
 * The mirror's database failed on a search (a D1 error: out of memory, a limit, a table being
 * rebuilt): arXiv's API answers instead, and the operator's log says what failed. Our own typed
 * errors go to the caller as they are.
 */
function mirrorFailed(ctx: AppContext, error: unknown): { live: string; mirrorCouldApproximate: false } {
  if (error instanceof PapersError) throw error;
  ctx.log({ event: "mirror_search_failed", error: error instanceof Error ? error.message : String(error) });
  return { live: "the mirror failed to answer this search", mirrorCouldApproximate: false };
}

const STALE_AFTER_MS = 2 * DAY_MS;

/** A whole mirror whose refreshes have stopped or failed still answers, and says how old it is. */
function ageNotices(state: MirrorState, today: Date): string[] {
  const last = state.lastSuccessAt === null ? Number.NaN : Date.parse(state.lastSuccessAt);
  const ageMs = today.getTime() - last;
  if (!state.latestRunFailed && !(ageMs > STALE_AFTER_MS)) return [];
  const age = Number.isNaN(ageMs)
    ? "at an unknown time"
    : `${Math.max(1, Math.round(ageMs / 3_600_000))} hours ago (${state.lastSuccessAt})`;
  return [
    `The mirror was last refreshed ${age}${state.latestRunFailed ? "; its latest harvest run failed" : ""}: ` +
      `papers announced since then are missing from this answer.`,
  ];
}

/** Newest first over a window that reaches into the last N days: the mirror may not hold those papers yet. */
function recentWindowReason(days: number, input: SearchInput, today: Date): string | null {
  if (days === 0 || input.sortBy !== "submitted" || input.sortOrder !== "descending") return null;
  const windowEnd = input.submittedTo === undefined ? today.getTime() : Date.parse(`${input.submittedTo}T23:59:59Z`);
  if (windowEnd < today.getTime() - days * DAY_MS) return null;
  return `newest-first searches reaching into the last ${days} days go to arXiv (the mirror trails it by up to a day)`;
}
