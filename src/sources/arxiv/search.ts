// Executes a search plan (search-plan.ts): the mirror answers when the plan runs there and the
// mirror is whole, else arXiv's API (with the reason in the answer). When arXiv's API fails on a
// search the mirror could have answered (only more approximately), the mirror answers and says so.
import { emptyMeter, meterFields, meteredReader } from "../../store/d1-meter";
import { PapersError } from "../../errors";
import { mirrorLikelyReady, mirrorStateOf, type MirrorState } from "../../store/arxiv-mirror-state";
import { type MirrorOrdering, searchMirror } from "../../store/arxiv-mirror-search";
import { arxivReaders, readThrough } from "../../store/arxiv-shards";
import { searchArxiv, type ServedFrom } from "./api";
import { rowToPaper } from "./mirror";
import type { MirrorPlan } from "./mirror-query";
import type { ArxivPaper } from "./paper";
import type { SearchPlan, SearchRoute } from "./search-plan";
import type { AppContext } from "../../context";

/** A plan's result: what the page is built from. */
export interface SearchOutcome {
  query: string;
  total: number;
  totalIsLowerBound: boolean;
  papers: ArxivPaper[];
  source: ServedFrom | { served_from: "mirror" };
  /** The plan's notices, then the execution's. */
  notices: string[];
  start: number;
  detail?: "full" | "brief" | undefined;
}

/** What runs the mirror's search and what arXiv's API gets; the answer's own fields. */
type Answered = Omit<SearchOutcome, "start" | "detail">;

const ORDERING_NOTE: Record<MirrorOrdering, string | null> = {
  relevance: "Ranked by the mirror's BM25 (arXiv's own relevance order differs).",
  submitted: null,
  updated: null,
  newest_first: "The search has no words to rank by (only categories or dates): listed newest first.",
};

const DAY_MS = 86_400_000;

export async function runSearch(ctx: AppContext, plan: SearchPlan, today = new Date()): Promise<SearchOutcome> {
  const answered = await answer(ctx, plan, today);
  return {
    ...answered,
    notices: [...plan.notices, ...answered.notices],
    start: plan.start,
    ...(plan.detail === undefined ? {} : { detail: plan.detail }),
  };
}

async function answer(ctx: AppContext, plan: SearchPlan, today: Date): Promise<Answered> {
  // No mirror on this server: arXiv's API answers, with no reason to give.
  if (!ctx.config.ARXIV_MIRROR_ENABLED) return liveAnswer(ctx, plan, { runs: "live", why: "" });
  // The mirror's state and its search start together (unless this isolate last saw the mirror
  // not whole): when the mirror answers, nearly always, reading the state costs no round trip
  // of its own. A search that turns out not to be wanted (a mirror not ready) is dropped.
  const statePromise = mirrorStateOf(ctx);
  const speculative =
    plan.route.runs === "mirror" && mirrorLikelyReady(ctx.env.DB)
      ? mirrorOrLive(ctx, plan.route.mirror, plan)
      : undefined;
  speculative?.catch(() => {});
  const state = await statePromise;
  const route = routeWith(plan.route, state);
  if (route.runs === "live") return liveAnswer(ctx, plan, route);
  const answer = await (speculative ?? mirrorOrLive(ctx, route.mirror, plan));
  if (!("live" in answer)) return { ...answer, notices: [...ageNotices(state, today), ...answer.notices] };
  const fallback = answer.mirrorCouldApproximate ? { fallback: route.mirror } : {};
  return liveAnswer(ctx, plan, { runs: "live", why: answer.live, ...fallback });
}

/** Where a plan runs once the mirror's state is known: a mirror that is not whole sends it to arXiv's API. */
function routeWith(route: SearchRoute, state: MirrorState): SearchRoute {
  const notReady = `the mirror is not ready (${state.reason})`;
  if (!state.ready && !state.partial) return { runs: "live", why: notReady };
  if (state.ready || (route.runs === "live" && route.fallback === undefined)) return route;
  // A partial mirror is never served as a whole one: arXiv answers, the mirror only if arXiv cannot.
  const mirror = route.runs === "mirror" ? route.mirror : route.fallback;
  return { runs: "live", why: notReady, ...(mirror === undefined ? {} : { fallback: mirror }) };
}

/** arXiv's API answers (saying why, when the server keeps a mirror); the mirror's fallback plan answers if arXiv's API fails. */
async function liveAnswer(
  ctx: AppContext,
  plan: SearchPlan,
  route: Extract<SearchRoute, { runs: "live" }>,
): Promise<Answered> {
  const notices = route.why ? [`Answered by arXiv's API: ${route.why}.`] : [];
  try {
    const { feed, source } = await searchArxiv(ctx, {
      searchQuery: plan.arxivQuery,
      start: plan.start,
      maxResults: plan.limit,
      sortBy: plan.sortBy,
      sortOrder: plan.sortOrder,
    });
    return {
      query: plan.arxivQuery,
      total: feed.total,
      totalIsLowerBound: false,
      papers: feed.papers,
      source,
      notices,
    };
  } catch (error) {
    if (!(error instanceof PapersError) || !error.retryable || route.fallback === undefined) throw error;
    const note = `arXiv's API failed (${error.reason}); answered from the mirror instead, which may miss some papers: ${route.why}.`;
    const answer = await mirrorAnswer(ctx, route.fallback, plan, [note], true);
    if ("live" in answer) throw error;
    return answer;
  }
}

function mirrorOrLive(
  ctx: AppContext,
  mirror: MirrorPlan,
  plan: SearchPlan,
): Promise<Answered | { live: string; mirrorCouldApproximate: boolean }> {
  return mirrorAnswer(ctx, mirror, plan, []).catch((error: unknown) => mirrorFailed(ctx, error));
}

async function mirrorAnswer(
  ctx: AppContext,
  mirror: MirrorPlan,
  plan: SearchPlan,
  notices: string[],
  ignoreDateOutliers = false,
): Promise<Answered | { live: string; mirrorCouldApproximate: boolean }> {
  // Read through a D1 session: a deployed mirror with read replication answers from the nearest replica.
  // What the search cost the database is logged (docs/operations.md): rows read, SQL time, region.
  const meter = emptyMeter();
  const started = performance.now();
  const shards = readThrough(arxivReaders(ctx), (session) => meteredReader(session, meter));
  const result = await searchMirror(shards, mirror, {
    sortBy: plan.sortBy,
    sortOrder: plan.sortOrder,
    start: plan.start,
    limit: plan.limit,
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
    query: plan.arxivQuery,
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
