import { z } from "zod";
import { utcDay } from "../schema";
import { renderBrief, renderPaper, searchPaperSchema, servedFromFields } from "../../sources/arxiv/paper";
import { MAX_QUERY_LENGTH } from "../../sources/arxiv/query";
import { PAGE_RENDERING, searchPage } from "../../sources/arxiv/search-page";
import { PAGE_CAP } from "../../sources/arxiv/search-plan";
import { pageStart, readStart } from "../../sources/arxiv/page-cursor";
import { callBookmarks } from "../../store/arxiv-shards";
import { defineTool } from "../tool";

export const arxivSearchPapers = defineTool({
  name: "arxiv_search_papers",
  title: "Search arXiv",
  useWhen:
    "find arXiv papers by words, title, author, abstract or category (arXiv's query grammar: ti: au: " +
    "abs: cat:, AND/OR/ANDNOT); page with next_start.",
  description:
    "arXiv search in its grammar: ti: au: abs: co: jr: cat: all:, AND/OR/ANDNOT in upper case (one " +
    'precedence, grouped right; space = OR), "phrases", ().',
  input: z.object({
    query: z.string().min(1).max(MAX_QUERY_LENGTH).describe("e.g. abs:transformer AND cat:cs.CL"),
    category: z.string().min(1).max(40).optional().describe("cs.CL, or archive: cs, astro-ph"),
    sort_by: z.enum(["relevance", "submitted", "updated"]).default("relevance").describe("submitted: by date"),
    sort_order: z.enum(["descending", "ascending"]).default("descending").describe("descending: best or newest first"),
    submitted_from: utcDay.optional().describe("UTC, inclusive"),
    submitted_to: utcDay.optional().describe("UTC, inclusive"),
    max_results: z.number().int().min(1).max(10_000).default(10).describe(`at most ${PAGE_CAP} returned`),
    start: z
      .union([z.number().int().min(0).max(1_000_000), z.string().max(999)])
      .default(0)
      .describe("next_start"),
    detail: z.enum(["full", "brief"]).optional().describe("default: full, abstracts cut to fit"),
  }),
  output: z.object({
    query: z.string().describe("The search_query sent to arXiv"),
    total: z.number(),
    total_is_lower_bound: z.boolean(),
    start: z.number(),
    returned: z.number(),
    next_start: z.union([z.number(), z.string()]).nullable(),
    papers: searchPaperSchema
      .array()
      .describe("arxiv_get_metadata's records without pdf_url, html_url, versions; abstract_truncated when cut"),
    detail: z.enum(["full", "brief"]),
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
  handler: async (args, context) => {
    const { offset, since } = readStart(args.start);
    // The next page reads from where this one's reads left the databases (set before the first read).
    if (context.call) Object.assign(context.call.since, since);
    const page = await searchPage(context, {
      query: args.query,
      category: args.category,
      submittedFrom: args.submitted_from,
      submittedTo: args.submitted_to,
      sortBy: args.sort_by,
      sortOrder: args.sort_order,
      start: offset,
      maxResults: args.max_results,
      detail: args.detail,
    });
    return { ...page, next_start: pageStart(page.next_start, callBookmarks(context)) };
  },
  render(result) {
    const head =
      `${result.returned} of ${result.total.toLocaleString("en-US")}${result.total_is_lower_bound ? "+" : ""} ` +
      `results (start ${result.start}) for: ${result.query}`;
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
      ...result.papers.map((paper) =>
        result.detail === "brief" ? renderBrief(paper) : renderPaper(paper, PAGE_RENDERING),
      ),
      next,
    ].join("\n\n");
  },
});
