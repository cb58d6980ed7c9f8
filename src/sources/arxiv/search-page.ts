// One page of an arXiv search as a client pages through it: arXiv's rules for paging live here,
// not in the tool. arXiv serves only the first 10,000 results of a query, and at most 50 a page;
// `next_start` is offered while there is more within that window; an empty page says why.
import { PapersError } from "../../errors";
import type { SortBy } from "./api";
import { AUTHORS_SHOWN, type ArxivPaper, shortenAuthors } from "./paper";
import { searchPapers, type SearchOutcome } from "./search";
import type { AppContext } from "../../context";

/** arXiv serves only the first 10,000 results of a query. */
export const RESULT_WINDOW = 10_000;
/** At most this many papers a page. */
export const PAGE_CAP = 50;

export interface SearchPageRequest {
  query: string;
  category?: string | undefined;
  submittedFrom?: string | undefined;
  submittedTo?: string | undefined;
  sortBy: SortBy;
  sortOrder: "ascending" | "descending";
  start: number;
  /** What the client asked for; capped to PAGE_CAP and the window, with a notice. */
  maxResults: number;
}

export interface SearchPage {
  query: string;
  total: number;
  total_is_lower_bound: boolean;
  start: number;
  returned: number;
  next_start: number | null;
  papers: ArxivPaper[];
  notices: string[];
  guidance?: string;
}

export async function searchPage(
  ctx: AppContext,
  request: SearchPageRequest,
): Promise<SearchPage & SearchOutcome["source"]> {
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
  let maxResults = request.maxResults;
  if (maxResults > PAGE_CAP) {
    notices.push(`max_results ${maxResults} was capped to ${PAGE_CAP}; page with start.`);
    maxResults = PAGE_CAP;
  }
  if (start + maxResults > RESULT_WINDOW) {
    maxResults = RESULT_WINDOW - start;
    notices.push(`Capped to ${maxResults} results: arXiv serves only the first ${RESULT_WINDOW} of a query.`);
  }
  const outcome = await searchPapers(ctx, {
    query: request.query,
    ...(request.category === undefined ? {} : { category: request.category }),
    ...(request.submittedFrom === undefined ? {} : { submittedFrom: request.submittedFrom }),
    ...(request.submittedTo === undefined ? {} : { submittedTo: request.submittedTo }),
    start,
    maxResults,
    sortBy: request.sortBy,
    sortOrder: request.sortOrder,
  });
  notices.push(...outcome.notices);
  const papers = outcome.papers.map(shortenAuthors);
  const shortened = papers.filter((paper) => paper.authors_total !== undefined).length;
  if (shortened > 0)
    notices.push(
      `${shortened} author list${shortened === 1 ? " was" : "s were"} shortened to the first ${AUTHORS_SHOWN} (authors_total has the count): arxiv_get_metadata with full_authors gives the whole list.`,
    );
  const returned = outcome.papers.length;
  const reachable = Math.min(outcome.total, RESULT_WINDOW);
  const next = start + returned;
  return {
    query: outcome.query,
    total: outcome.total,
    total_is_lower_bound: outcome.totalIsLowerBound,
    start,
    returned,
    next_start: returned > 0 && (next < reachable || (outcome.totalIsLowerBound && next < RESULT_WINDOW)) ? next : null,
    papers,
    notices,
    ...(returned === 0 ? { guidance: emptyPageGuidance(outcome.total, start) } : {}),
    ...outcome.source,
  };
}

function emptyPageGuidance(total: number, start: number): string {
  if (total > 0 && start >= total)
    return `start ${start} is past the last result (total ${total}); use a start below ${total}.`;
  return "No paper matches. Loosen the query: drop a field prefix or a filter, check spelling, or join alternatives with OR. Remember that space-separated terms are OR-ed and AND/OR/ANDNOT must be upper case; arXiv ignores common words (of, the) outside quoted phrases.";
}
