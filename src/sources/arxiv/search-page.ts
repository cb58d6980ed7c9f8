// One page of an arXiv search as a client pages through it: arXiv's rules for paging live here,
// not in the tool. arXiv serves only the first 10,000 results of a query, and at most 50 a page;
// `next_start` is offered while there is more within that window; an empty page says why.
import { PapersError } from "../../errors";
import type { SortBy } from "./api";
import { estimateTokens } from "../text/tokens";
import { AUTHORS_SHOWN, type ArxivPaper, renderPaper, shortenAuthors } from "./paper";
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
  /** brief: shorter records; left out, a page is full unless it would pass PAGE_TOKEN_BUDGET. */
  detail?: "full" | "brief" | undefined;
}

export interface SearchPage {
  query: string;
  total: number;
  total_is_lower_bound: boolean;
  start: number;
  returned: number;
  next_start: number | null;
  papers: ArxivPaper[];
  /** brief: the records were shortened (asked for, or to keep the page within PAGE_TOKEN_BUDGET). */
  detail: "full" | "brief";
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
  let papers = outcome.papers.map(shortenAuthors);
  let detail: "full" | "brief" = request.detail ?? "full";
  if (detail === "brief") papers = papers.map(briefPaper);
  else if (request.detail === undefined && pageTokens(papers) > PAGE_TOKEN_BUDGET) {
    papers = papers.map(briefPaper);
    detail = "brief";
    notices.push(
      `The records are brief (${BRIEF_AUTHORS} authors, ${BRIEF_ABSTRACT_CHARS} characters of abstract, no versions or comment) to keep this page within ${PAGE_TOKEN_BUDGET.toLocaleString("en-US")} tokens: arxiv_get_metadata gives the full records, and a smaller max_results keeps them full.`,
    );
  }
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
    detail,
    notices,
    ...(returned === 0 ? { guidance: emptyPageGuidance(outcome.total, start) } : {}),
    ...outcome.source,
  };
}

/** No search page is larger than this, its text and its structured content together (Claude Code refuses a result over 25,000). */
export const PAGE_TOKEN_BUDGET = 20_000;
/** Characters of abstract the text rendering shows for each paper of a full page (a brief page's text shows none). */
export const PAGE_ABSTRACT_CHARS = 400;
const BRIEF_ABSTRACT_CHARS = 200;
const BRIEF_AUTHORS = 3;

/** A page's estimated tokens as an answer carries it: the papers as JSON, and as the tool's text rendering inside it. */
function pageTokens(papers: ArxivPaper[]): number {
  // A full page's text rendering: what renderPaper writes for each paper.
  const text = papers.map((paper) => renderPaper(paper, { abstractChars: PAGE_ABSTRACT_CHARS })).join("\n\n");
  return estimateTokens(JSON.stringify({ text, papers }));
}

/**
 * The same record with less in it: the first authors (authors_total keeps the count), the start
 * of the abstract, the primary category alone, and no versions, comment or journal reference.
 */
export function briefPaper(paper: ArxivPaper): ArxivPaper {
  const { versions: _versions, ...rest } = paper;
  return {
    ...rest,
    authors: paper.authors.slice(0, BRIEF_AUTHORS).map((author) => ({ name: author.name })),
    ...(paper.authors.length > BRIEF_AUTHORS || paper.authors_total
      ? { authors_total: paper.authors_total ?? paper.authors.length }
      : {}),
    abstract:
      paper.abstract.length > BRIEF_ABSTRACT_CHARS
        ? `${paper.abstract.slice(0, BRIEF_ABSTRACT_CHARS).trimEnd()}…`
        : paper.abstract,
    categories: [paper.primary_category],
    comment: null,
    journal_ref: null,
  };
}

function emptyPageGuidance(total: number, start: number): string {
  if (total > 0 && start >= total)
    return `start ${start} is past the last result (total ${total}); use a start below ${total}.`;
  return "No paper matches. Loosen the query: drop a field prefix or a filter, check spelling, or join alternatives with OR. Remember that space-separated terms are OR-ed and AND/OR/ANDNOT must be upper case; arXiv ignores common words (of, the) outside quoted phrases.";
}
