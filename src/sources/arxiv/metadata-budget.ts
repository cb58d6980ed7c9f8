// arxiv_get_metadata within an agent's budget. Shortened author lists keep ten papers far below
// it; the whole lists (full_authors) do not: 1411.4413's 2,831 authors alone are 28,000 tokens,
// past Claude Code's 25,000. With them, papers are answered in order while they fit, the rest go
// back to remaining_ids, and a list that alone passes the budget comes in slices (authors_start).
import { estimateTokens } from "../text/tokens";
import { type ArxivPaper, renderPaper } from "./paper";

/** No metadata answer is larger than this, its text and structured content together. */
export const METADATA_TOKEN_BUDGET = 20_000;
/** Room for the answer's own fields, the text rendering's other lines and the notices. */
const OVERHEAD_TOKENS = 1_500;

export interface AuthorSlice {
  /** Set when the list was cut for the budget: where the next slice starts. */
  authors_next_start?: number;
  /** Set when a slice was asked for or given: the first author's index in the whole list. */
  authors_start?: number;
}

/**
 * The papers that fit, in order (at least the first), and the IDs of those that did not. A paper
 * whose whole author list alone passes the budget lists authors from `authorsStart` while they
 * fit, with authors_total and authors_next_start.
 */
export function fitFullAuthors<P extends ArxivPaper>(
  papers: P[],
  authorsStart: number,
  costOf: (paper: P) => number = (paper) =>
    estimateTokens(JSON.stringify(paper)) + estimateTokens(JSON.stringify(renderPaper(paper))),
): { papers: (P & AuthorSlice)[]; left: P[] } {
  const budget = METADATA_TOKEN_BUDGET - OVERHEAD_TOKENS;
  const kept: (P & AuthorSlice)[] = [];
  let used = 0;
  for (const [i, paper] of papers.entries()) {
    const sliced = authorsStart > 0 ? slice(paper, authorsStart, paper.authors.length) : paper;
    const cost = costOf(sliced);
    if (used + cost <= budget) {
      kept.push(sliced);
      used += cost;
      continue;
    }
    if (i > 0) return { papers: kept, left: papers.slice(i) };
    // The first paper alone passes the budget: as many authors as fit, by their average cost.
    const authorsCost = cost - costOf({ ...sliced, authors: [] });
    const perAuthor = authorsCost / Math.max(1, sliced.authors.length);
    const room = budget - costOf({ ...sliced, authors: [] });
    const count = Math.max(1, Math.floor((room / perAuthor) * 0.95));
    kept.push(slice(paper, authorsStart, authorsStart + count));
    return { papers: kept, left: papers.slice(1) };
  }
  return { papers: kept, left: [] };
}

function slice<P extends ArxivPaper>(paper: P, start: number, end: number): P & AuthorSlice {
  const total = paper.authors.length;
  const from = Math.min(start, total);
  const to = Math.min(end, total);
  return {
    ...paper,
    authors: paper.authors.slice(from, to),
    authors_total: total,
    ...(from > 0 ? { authors_start: from } : {}),
    ...(to < total ? { authors_next_start: to } : {}),
  };
}
