import { z } from "zod";
import { utcDay } from "../schema";
import { nberPaperSchema } from "../../sources/nber/paper";
import { searchNber } from "../../sources/nber/search";
import { citationCountFields, withCitationCounts } from "../../sources/openalex/counts";
import { nberDoi } from "../../sources/openalex/target";
import { defineTool } from "../tool";

export const nberSearchPapers = defineTool({
  name: "nber_search_papers",
  title: "Search NBER working papers",
  useWhen: "find NBER working papers by words, with a date range.",
  description: "Search NBER working papers; served_from says mirror, live or cache.",
  input: z.object({
    query: z.string().min(1).max(500).describe("words, an author or a number"),
    start_date: utcDay.optional().describe("inclusive"),
    end_date: utcDay.optional().describe("inclusive"),
    page: z.number().int().min(1).max(500).default(1).describe("1-based"),
    per_page: z
      .union([z.literal(20), z.literal(50), z.literal(100)])
      .default(20)
      .describe("20, 50 or 100"),
  }),
  output: z.object({
    query: z.string(),
    total: z.number(),
    page: z.number(),
    per_page: z.number(),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
    served_from: z.enum(["mirror", "live", "cache"]),
    cached_at: z.string().optional(),
    cache_age_seconds: z.number().optional(),
    papers: nberPaperSchema
      .extend(citationCountFields)
      .array()
      .describe("{ id, title, authors[], date, abstract, url, cited_by_count? }"),
    notices: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "invalid_request", when: "NBER's search API rejected the request (HTTP 400)" },
    { reason: "invalid_query", when: "the query is empty or too long" },
    { reason: "invalid_date", when: "a date is malformed, out of range, or the range is reversed" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "upstream_unavailable", when: "the upstream is down and no mirror or cache holds the answer" },
    { reason: "upstream_malformed", when: "the upstream answered something unreadable" },
    { reason: "timeout", when: "the call ran out of its time budget" },
  ],
  handler: async (args, context) => {
    const result = await searchNber(context, args, "nber_search_papers");
    // Counts from the cache only: a page never sends a request per result.
    const papers = await withCitationCounts(context, result.papers, (paper) => [nberDoi(paper.id)], { live: 0 });
    return { ...result, papers };
  },
  render(result) {
    const head =
      `${result.papers.length} of ${result.total} NBER papers for "${result.query}" (page ` +
      `${result.page}, ${result.served_from})`;
    const rows = result.papers.map(
      (p) =>
        `[${p.id}] ${p.title} — ${p.authors.join(", ")} (${p.date ?? "n.d."})` +
        `${p.cited_by_count === undefined ? "" : ` cited by ${p.cited_by_count}`}\n  ${p.url}`,
    );
    return [head, ...result.notices, ...rows].join("\n\n");
  },
});
