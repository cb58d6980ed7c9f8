// A search's arguments, validated and resolved once into one typed plan: the page it asks for
// (arXiv's paging rules), the search_query arXiv's API would get, and where it runs (the mirror,
// with what the mirror executes, or arXiv's API and why). search.ts executes the plan and
// search-page.ts builds the page from the result; nothing after this parses or checks again.
import { PapersError } from "../../errors";
import type { SortBy } from "./api";
import { type MirrorPlan, mirrorPlan } from "./mirror-query";
import { resolveSearch, type SearchFilters } from "./query";

/** arXiv serves only the first 10,000 results of a query. */
export const RESULT_WINDOW = 10_000;
/** At most this many papers a page. */
export const PAGE_CAP = 50;

export interface SearchRequest extends SearchFilters {
  query: string;
  sortBy: SortBy;
  sortOrder: "ascending" | "descending";
  start: number;
  /** What the client asked for; capped to PAGE_CAP and the window, with a notice. */
  maxResults: number;
  /** brief: shorter records; left out, a page is full unless it would pass its token budget (pageBudget). */
  detail?: "full" | "brief" | undefined;
}

/**
 * Where a search runs. mirror: the mirror answers when it is whole (else arXiv's API, the mirror
 * as a fallback). live: arXiv's API answers, for `why` (empty: this server keeps no mirror); a
 * `fallback` plan is what the mirror answers, approximately, when arXiv's API fails.
 */
export type SearchRoute = { runs: "mirror"; mirror: MirrorPlan } | { runs: "live"; why: string; fallback?: MirrorPlan };

export interface SearchPlan {
  /** The search_query arXiv's API gets, and the answer shows. */
  arxivQuery: string;
  sortBy: SortBy;
  sortOrder: "ascending" | "descending";
  start: number;
  /** The page's size, capped. */
  limit: number;
  detail?: "full" | "brief" | undefined;
  /** What the plan changed in the request (a capped page size), said in the answer. */
  notices: string[];
  route: SearchRoute;
}

/** The server's settings a plan depends on. */
export interface SearchSettings {
  ARXIV_MIRROR_ENABLED: boolean;
  ARXIV_MIRROR_RECENT_DAYS_LIVE: number;
}

const DAY_MS = 86_400_000;

/** The plan of a search, or its typed error (start_beyond_result_limit, invalid_query, invalid_category, invalid_date). */
export function planSearch(request: SearchRequest, settings: SearchSettings, today = new Date()): SearchPlan {
  const { start, limit, notices } = pageWindow(request);
  const search = resolveSearch(request.query, request, today);
  return {
    arxivQuery: search.arxivQuery,
    sortBy: request.sortBy,
    sortOrder: request.sortOrder,
    start,
    limit,
    ...(request.detail === undefined ? {} : { detail: request.detail }),
    notices,
    route: settings.ARXIV_MIRROR_ENABLED
      ? routeOf(mirrorPlan(search), recentWindowReason(settings.ARXIV_MIRROR_RECENT_DAYS_LIVE, request, today))
      : { runs: "live", why: "" },
  };
}

function routeOf(planned: ReturnType<typeof mirrorPlan>, recentLive: string | null): SearchRoute {
  if ("live" in planned) return { runs: "live", why: planned.live };
  if (recentLive) return { runs: "live", why: recentLive, fallback: planned.plan };
  return { runs: "mirror", mirror: planned.plan };
}

/** arXiv's paging rules: a start inside its 10,000-result window, at most PAGE_CAP a page. */
function pageWindow(request: SearchRequest): { start: number; limit: number; notices: string[] } {
  const { start } = request;
  if (start >= RESULT_WINDOW) {
    throw new PapersError(
      "start_beyond_result_limit",
      `arXiv serves only the first ${RESULT_WINDOW.toLocaleString("en-US")} results of a query; start was ${start}.`,
      {
        recovery:
          "Narrow the query with submitted_from / submitted_to windows (or a category) and page within each window.",
      },
    );
  }
  const notices: string[] = [];
  let limit = request.maxResults;
  if (limit > PAGE_CAP) {
    notices.push(`max_results ${limit} was capped to ${PAGE_CAP}; page with start.`);
    limit = PAGE_CAP;
  }
  if (start + limit > RESULT_WINDOW) {
    limit = RESULT_WINDOW - start;
    notices.push(`Capped to ${limit} results: arXiv serves only the first ${RESULT_WINDOW} of a query.`);
  }
  return { start, limit, notices };
}

/** Newest first over a window that reaches into the last N days: the mirror may not hold those papers yet. */
function recentWindowReason(days: number, request: SearchRequest, today: Date): string | null {
  if (days === 0 || request.sortBy !== "submitted" || request.sortOrder !== "descending") return null;
  const windowEnd =
    request.submittedTo === undefined ? today.getTime() : Date.parse(`${request.submittedTo}T23:59:59Z`);
  if (windowEnd < today.getTime() - days * DAY_MS) return null;
  return `newest-first searches reaching into the last ${days} days go to arXiv (the mirror trails it by up to a day)`;
}
