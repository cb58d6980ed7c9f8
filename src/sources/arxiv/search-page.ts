// One page of an arXiv search, as a client pages through it. The path is one way: the arguments
// become a plan (search-plan.ts: validated and resolved once, arXiv's paging rules applied), the
// plan runs (search.ts: the mirror or arXiv's API), and the page and its token budget are built
// from the result alone (here). docs/architecture.md, "How a search runs", follows it step by step.
import { withCitationCounts } from "../openalex/counts";
import { arxivDoi } from "../openalex/target";
import { estimateTokens } from "../text/tokens";
import { AUTHORS_SHOWN, cutText, renderPaper, type SearchPaper, searchRecord, shortenAuthors } from "./paper";
import { runSearch, type SearchOutcome } from "./search";
import { planSearch, RESULT_WINDOW, type SearchRequest } from "./search-plan";
import type { AppContext } from "../../context";

export interface SearchPage {
  query: string;
  total: number;
  total_is_lower_bound: boolean;
  start: number;
  returned: number;
  next_start: number | null;
  papers: SearchPaper[];
  /** brief: the records were shortened (asked for, or to keep the page within its budget). */
  detail: "full" | "brief";
  notices: string[];
  guidance?: string;
}

export async function searchPage(
  ctx: AppContext,
  request: SearchRequest,
): Promise<SearchPage & SearchOutcome["source"]> {
  const plan = planSearch(request, ctx.config);
  return pageOf(ctx, await runSearch(ctx, plan));
}

/** The page of a search's result: its records with cached citation counts, within the page's token budget. */
async function pageOf(ctx: AppContext, outcome: SearchOutcome): Promise<SearchPage & SearchOutcome["source"]> {
  const { start } = outcome;
  const notices = [...outcome.notices];
  // Counts from the cache only: a page never sends a request per result.
  const records = await withCitationCounts(
    ctx,
    outcome.papers.map((paper) => searchRecord(shortenAuthors(paper))),
    (paper) => [arxivDoi(paper.base_id), paper.doi],
    { live: 0 },
  );
  const fitted = fitPage(records, outcome.detail);
  const papers = fitted.papers;
  const detail = fitted.detail;
  if (fitted.notice) notices.push(fitted.notice);
  const shortened = papers.filter((paper) => paper.authors_total !== undefined).length;
  if (shortened > 0)
    notices.push(
      `${shortened} author list${shortened === 1 ? " was" : "s were"} shortened to the first ` +
        `${AUTHORS_SHOWN} (authors_total has the count): arxiv_get_metadata with full_authors gives the whole list.`,
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
/** A page of the default size (10) stays under this; larger pages get PAGE_TOKENS_PER_PAPER each, up to PAGE_TOKEN_BUDGET. */
export const DEFAULT_PAGE_TOKENS = 6_000;
const PAGE_TOKENS_PER_PAPER = 600;
/**
 * How the text rendering shows each paper of a full page (a brief page's shows no abstract): the
 * start of the abstract, three authors, no comment. The JSON has the rest; a client that reads
 * only the text gets enough to choose, and arxiv_get_metadata for the whole record.
 */
export const PAGE_RENDERING = { abstractChars: 250, authorsShown: 3, comment: false } as const;
/** The abstract lengths tried, longest first, before a page falls back to brief records. */
const ABSTRACT_CAPS = [1_000, 600, 350] as const;
const BRIEF_ABSTRACT_CHARS = 200;
const BRIEF_AUTHORS = 3;

/** A page of n papers stays within this many tokens, content and structuredContent together. */
export function pageBudget(papers: number): number {
  return Math.min(PAGE_TOKEN_BUDGET, Math.max(DEFAULT_PAGE_TOKENS, papers * PAGE_TOKENS_PER_PAPER));
}

/**
 * The page's records within its budget, as a search engine shows a page: whole records when they
 * fit; else the abstracts cut (at a sentence or a word, abstract_truncated set) to the longest of
 * ABSTRACT_CAPS that fits; else brief records. What was cut is said in the notice, with where the
 * rest is. A detail asked for is served as asked.
 */
function fitPage(
  records: SearchPaper[],
  asked: "full" | "brief" | undefined,
): { papers: SearchPaper[]; detail: "full" | "brief"; notice?: string } {
  if (asked === "brief") return { papers: records.map(briefPaper), detail: "brief" };
  const budget = pageBudget(records.length);
  if (asked === "full" || pageTokens(records) <= budget) return { papers: records, detail: "full" };
  const within = `to keep this page within ${budget.toLocaleString("en-US")} tokens`;
  for (const cap of ABSTRACT_CAPS) {
    const cut = records.map((paper) => cutAbstract(paper, cap));
    if (pageTokens(cut) <= budget)
      return {
        papers: cut,
        detail: "full",
        notice:
          `Abstracts longer than ${cap} characters were cut (abstract_truncated) ${within}: ` +
          `arxiv_get_metadata gives whole abstracts.`,
      };
  }
  return {
    papers: records.map(briefPaper),
    detail: "brief",
    notice:
      `The records are brief (${BRIEF_AUTHORS} authors, ${BRIEF_ABSTRACT_CHARS} characters of ` +
      `abstract, no comment) ${within}: arxiv_get_metadata gives the full records, and a smaller max_results keeps them full.`,
  };
}

function cutAbstract(paper: SearchPaper, chars: number): SearchPaper {
  const abstract = cutText(paper.abstract, chars);
  return abstract === paper.abstract ? paper : { ...paper, abstract, abstract_truncated: true };
}

/** What a page's answer holds besides its papers: the head line, notices, the cursor and the other fields. */
const PAGE_OVERHEAD_TOKENS = 400;

/**
 * A page's estimated tokens as the answer carries it: the papers as JSON, and their text
 * rendering as a JSON string inside the same answer (escaped, as a client receives it).
 */
function pageTokens(papers: SearchPaper[]): number {
  const text = papers.map((paper) => renderPaper(paper, PAGE_RENDERING)).join("\n\n");
  return estimateTokens(JSON.stringify({ content: [{ type: "text", text }], papers })) + PAGE_OVERHEAD_TOKENS;
}

/**
 * The same record with less in it: the first authors (authors_total keeps the count), the start
 * of the abstract, the primary category alone, and no comment or journal reference.
 */
export function briefPaper(paper: SearchPaper): SearchPaper {
  return {
    ...paper,
    authors: paper.authors.slice(0, BRIEF_AUTHORS).map((author) => ({ name: author.name })),
    ...(paper.authors.length > BRIEF_AUTHORS || paper.authors_total
      ? { authors_total: paper.authors_total ?? paper.authors.length }
      : {}),
    abstract: cutText(paper.abstract, BRIEF_ABSTRACT_CHARS),
    ...(paper.abstract.length > BRIEF_ABSTRACT_CHARS ? { abstract_truncated: true } : {}),
    categories: [paper.primary_category],
    comment: null,
    journal_ref: null,
  };
}

function emptyPageGuidance(total: number, start: number): string {
  if (total > 0 && start >= total)
    return `start ${start} is past the last result (total ${total}); use a start below ${total}.`;
  return (
    "No paper matches. Loosen the query: drop a field prefix or a filter, check spelling, or join " +
    "alternatives with OR. Remember that space-separated terms are OR-ed and AND/OR/ANDNOT must be " +
    "upper case; arXiv ignores common words (of, the) outside quoted phrases."
  );
}
