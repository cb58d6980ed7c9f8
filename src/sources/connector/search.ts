// The ChatGPT connector's search: one query over arXiv (mirror first, as arxiv_search_papers) and
// NBER (as nber_search_papers) at once, the two lists mixed by one relevance score, so that an
// NBER working paper on the question is not buried under fifteen arXiv papers or the reverse.
// Either source failing leaves the other's results; both failing is the first one's error.
import type { AppContext } from "../../context";
import { PUBLIC_ARXIV } from "../arxiv/paper";
import { searchPage } from "../arxiv/search-page";
import { searchNber } from "../nber/search";
import { connectorId } from "./ids";

export interface ConnectorResult {
  id: string;
  title: string;
  url: string;
}

/**
 * How many results a search gives, and how many each source is asked for: arXiv's usual page of
 * 10 (one request when the mirror cannot answer), NBER's smallest page of 20.
 */
export const CONNECTOR_RESULTS = 20;
const ARXIV_ASKED = 10;
const NBER_ASKED = 20;

interface Candidate extends ConnectorResult {
  text: string;
  /** Its place in its own source's ranking (0 first). */
  rank: number;
}

export async function connectorSearch(ctx: AppContext, query: string): Promise<{ results: ConnectorResult[] }> {
  const [arxiv, nber] = await Promise.allSettled([
    searchPage(ctx, {
      query: plainWords(query),
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      maxResults: ARXIV_ASKED,
      detail: "brief",
    }),
    searchNber(ctx, { query, page: 1, per_page: NBER_ASKED }, "search"),
  ]);
  if (arxiv.status === "rejected" && nber.status === "rejected") throw arxiv.reason;
  const candidates: Candidate[] = [
    ...(arxiv.status === "fulfilled"
      ? arxiv.value.papers.map((paper, rank) => ({
          id: connectorId("arxiv", paper.base_id),
          title: paper.title,
          url: `${PUBLIC_ARXIV}/abs/${paper.base_id}`,
          text: paper.abstract,
          rank,
        }))
      : []),
    ...(nber.status === "fulfilled"
      ? nber.value.papers.map((paper, rank) => ({
          id: connectorId("nber", paper.id),
          title: paper.title,
          url: paper.url,
          text: paper.abstract ?? "",
          rank,
        }))
      : []),
  ];
  const results = mixByRelevance(query, candidates).slice(0, CONNECTOR_RESULTS);
  return { results: results.map(({ id, title, url }) => ({ id, title, url })) };
}

const STOPWORDS = new Set(
  "a an and are as at be by can do does for from how in is it of on or that the their this to was what when where which who why with".split(
    " ",
  ),
);

const words = (text: string): string[] =>
  (text.toLowerCase().match(/\p{L}[\p{L}\p{N}-]*|\p{N}+/gu) ?? []).filter((word) => !STOPWORDS.has(word));

/**
 * A question as words for arXiv's grammar: field prefixes and operators a chat model did not mean
 * as grammar ("What is AND-gate fidelity?") would change the query, so only words go through.
 */
function plainWords(query: string): string {
  const terms = words(query).filter((word) => !/^(and|or|andnot)$/i.test(word));
  return terms.length > 0 ? terms.join(" ") : query;
}

/**
 * One score for both sources' results: the share of the question's words the title holds (twice
 * the weight) and the abstract holds, then each source's own rank, so that two rankings built on
 * different statistics meet on the question's words.
 */
export function mixByRelevance<C extends Candidate>(query: string, candidates: C[]): C[] {
  const asked = [...new Set(words(query))];
  const score = (candidate: C) => {
    if (asked.length === 0) return -candidate.rank;
    const title = new Set(words(candidate.title));
    const text = new Set(words(candidate.text));
    const hits = asked.reduce((sum, word) => sum + (title.has(word) ? 2 : 0) + (text.has(word) ? 1 : 0), 0);
    return hits / (3 * asked.length) - candidate.rank * 0.01;
  };
  return candidates
    .map((candidate) => ({ candidate, score: score(candidate) }))
    .sort((a, b) => b.score - a.score)
    .map(({ candidate }) => candidate);
}
