// A watch on a paper's citations (issue 35): "what cites this paper that did not last time". Its
// mark is the citing total OpenAlex gave at the last check, and the works already reported are
// kept by ID (the research agent's watch_seen table), so news is the newest citing works not seen
// before. OpenAlex is asked through the citation graph's own client: its cache, its allowance.
import { PapersError } from "../errors";
import { citationPage } from "../sources/openalex/citations";
import { parseCitationTarget } from "../sources/openalex/target";
import type { GraphWork } from "../sources/openalex/work";
import type { AppContext } from "../context";

/** The newest citing works a check reads: news older than these is counted, not listed. */
export const CITATION_CHECK_PAGE = 50;

export interface CitationNews {
  papers: { id: string; title: string; authors: string[]; authors_total?: number; date: string | null }[];
  total: number;
  lowerBound: boolean;
  newMark: number;
  /** The works this check reports: remembered when the marks move. */
  seen: string[];
}

/** A work's ID in news: ours when it is one of our papers, else its DOI or OpenAlex ID. */
export function workKey(work: GraphWork): string {
  return work.arxiv_id ?? work.nber_id ?? (work.doi ? `doi:${work.doi}` : work.openalex_id);
}

async function newestCiting(ctx: AppContext, paperId: string) {
  return citationPage(ctx, {
    target: parseCitationTarget(paperId),
    direction: "cited_by",
    sort: "newest",
    start: 0,
    limit: CITATION_CHECK_PAGE,
  });
}

/** At creation: the paper (normalised), today's citing total as the mark, and the works already citing it. */
export async function prepareCitationWatch(
  ctx: AppContext,
  paperId: string,
): Promise<{ query: string; mark: number; seen: string[] }> {
  const page = await newestCiting(ctx, paperId);
  return { query: page.paper.id, mark: page.total, seen: page.works.map(workKey) };
}

/** What cites the paper that was not seen before, newest first. */
export async function citationNews(
  ctx: AppContext,
  paperId: string,
  mark: number,
  seen: ReadonlySet<string>,
): Promise<CitationNews> {
  const page = await newestCiting(ctx, paperId);
  const fresh = page.works.filter((work) => !seen.has(workKey(work)));
  return {
    papers: fresh.map((work) => ({
      id: workKey(work),
      title: work.title ?? "(untitled)",
      authors: work.authors,
      ...(work.authors_total > work.authors.length ? { authors_total: work.authors_total } : {}),
      date: work.year === null ? null : String(work.year),
    })),
    // The total's growth counts news past the page; works OpenAlex dropped can make it shrink.
    total: Math.max(fresh.length, page.total - mark),
    lowerBound: fresh.length === CITATION_CHECK_PAGE,
    newMark: page.total,
    seen: fresh.map(workKey),
  };
}

/** A PapersError as the agent's { reason, message, recovery }; anything else is rethrown. */
export function agentErrorOf(error: unknown) {
  if (error instanceof PapersError) return { reason: error.reason, message: error.message, recovery: error.recovery };
  throw error;
}
