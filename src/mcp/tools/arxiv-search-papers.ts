import { z } from "zod";
import { paperSchema, renderPaper, servedFromFields } from "../../sources/arxiv/paper";
import { MAX_QUERY_LENGTH } from "../../sources/arxiv/query";
import { searchPapers } from "../../sources/arxiv/search";
import { sameShapeAs } from "../schema";
import { defineTool } from "../tool";

const PAGE_CAP = 50;
const RESULT_WINDOW = 10_000; // arXiv serves only the first 10,000 results of a query
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD");

export const arxivSearchPapers = defineTool({
  name: "arxiv_search_papers",
  title: "Search arXiv",
  useWhen:
    "find arXiv papers by words, title, author, abstract or category (arXiv's query grammar: ti: au: abs: cat:, AND/OR/ANDNOT); page with next_start.",
  description:
    'Search arXiv with its grammar: ti: au: abs: co: jr: cat: all:, upper-case AND/OR/ANDNOT (one precedence, grouped right; spaces mean OR), "phrases", parentheses. Mirror-backed.',
  input: z.object({
    query: z.string().min(1).max(MAX_QUERY_LENGTH).describe("arXiv query, e.g. abs:transformer AND cat:cs.CL"),
    category: z.string().min(1).max(40).optional().describe("Category (cs.CL) or archive (cs, astro-ph)"),
    sort_by: z.enum(["relevance", "submitted", "updated"]).default("relevance"),
    sort_order: z.enum(["descending", "ascending"]).default("descending"),
    submitted_from: day.optional().describe("UTC day, inclusive"),
    submitted_to: day.optional().describe("UTC day, inclusive"),
    max_results: z.number().int().min(1).max(10_000).default(10).describe("Page size; at most 50 are returned"),
    start: z.number().int().min(0).max(1_000_000).default(0).describe("Offset of the first result"),
  }),
  output: z.object({
    query: z.string().describe("The search_query sent to arXiv"),
    total: z.number(),
    total_is_lower_bound: z.boolean(),
    start: z.number(),
    returned: z.number(),
    next_start: z.number().nullable(),
    papers: sameShapeAs(paperSchema, "paper records as in arxiv_get_metadata"),
    notices: z.array(z.string()),
    guidance: z.string().optional(),
    ...servedFromFields,
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "invalid_query", when: "the query has no words or does not parse" },
    { reason: "invalid_category", when: "a category is not one of arXiv's codes" },
    { reason: "invalid_date", when: "a date is malformed, out of range, or the range is reversed" },
    { reason: "start_beyond_result_limit", when: "start is past arXiv's 10,000-result window" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "upstream_unavailable", when: "the upstream is down and no mirror or cache holds the answer" },
    { reason: "upstream_malformed", when: "the upstream answered something unreadable" },
    { reason: "invalid_request", when: "arXiv's API rejected the query as malformed (HTTP 400)" },
    { reason: "timeout", when: "the call ran out of its time budget" },
  ],
  async handler(args, { env, fail }) {
    if (args.start >= RESULT_WINDOW) {
      return fail(
        "start_beyond_result_limit",
        `arXiv serves only the first ${RESULT_WINDOW.toLocaleString("en-US")} results of a query; start was ${args.start}.`,
        {
          recovery:
            "Narrow the query with submitted_from / submitted_to windows (or a category) and page within each window.",
        },
      );
    }
    const notices: string[] = [];
    let maxResults = args.max_results;
    if (maxResults > PAGE_CAP) {
      notices.push(`max_results ${maxResults} was capped to ${PAGE_CAP}; page with start.`);
      maxResults = PAGE_CAP;
    }
    if (args.start + maxResults > RESULT_WINDOW) {
      maxResults = RESULT_WINDOW - args.start;
      notices.push(`Capped to ${maxResults} results: arXiv serves only the first ${RESULT_WINDOW} of a query.`);
    }
    const outcome = await searchPapers(env, {
      query: args.query,
      ...(args.category === undefined ? {} : { category: args.category }),
      ...(args.submitted_from === undefined ? {} : { submittedFrom: args.submitted_from }),
      ...(args.submitted_to === undefined ? {} : { submittedTo: args.submitted_to }),
      start: args.start,
      maxResults,
      sortBy: args.sort_by,
      sortOrder: args.sort_order,
    });
    notices.push(...outcome.notices);
    const returned = outcome.papers.length;
    const reachable = Math.min(outcome.total, RESULT_WINDOW);
    const next = args.start + returned;
    return {
      query: outcome.query,
      total: outcome.total,
      total_is_lower_bound: outcome.totalIsLowerBound,
      start: args.start,
      returned,
      next_start:
        returned > 0 && (next < reachable || (outcome.totalIsLowerBound && next < RESULT_WINDOW)) ? next : null,
      papers: outcome.papers,
      notices,
      ...(returned === 0 ? { guidance: emptyPageGuidance(outcome.total, args.start) } : {}),
      ...outcome.source,
    };
  },
  render(result) {
    const head = `${result.returned} of ${result.total.toLocaleString("en-US")}${result.total_is_lower_bound ? "+" : ""} results (start ${result.start}) for: ${result.query}`;
    const next =
      result.next_start === null ? "No further page." : `Next page: call again with start=${result.next_start}.`;
    const cache =
      result.served_from === "cache"
        ? ` (from cache, ${result.cache_age_seconds} s old)`
        : result.served_from === "mirror"
          ? " (from the mirror)"
          : "";
    return [
      head + cache,
      ...result.notices,
      ...(result.guidance ? [result.guidance] : []),
      ...result.papers.map((paper) => renderPaper(paper, { abstractChars: 400 })),
      next,
    ].join("\n\n");
  },
});

function emptyPageGuidance(total: number, start: number): string {
  if (total > 0 && start >= total)
    return `start ${start} is past the last result (total ${total}); use a start below ${total}.`;
  return "No paper matches. Loosen the query: drop a field prefix or a filter, check spelling, or join alternatives with OR. Remember that space-separated terms are OR-ed and AND/OR/ANDNOT must be upper case; arXiv ignores common words (of, the) outside quoted phrases.";
}
