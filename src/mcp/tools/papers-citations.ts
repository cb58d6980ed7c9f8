import { z } from "zod";
import { citationPage, MAX_LISTED } from "../../sources/openalex/citations";
import { parseCitationTarget } from "../../sources/openalex/target";
import { graphWorkSchema } from "../../sources/openalex/work";
import { defineTool } from "../tool";

export const papersCitations = defineTool({
  name: "papers_citations",
  title: "Who cites a paper, what it cites",
  useWhen: "who cites a paper (or what it cites), how often, with arXiv/NBER IDs where they exist.",
  description: "Citing or cited works from OpenAlex, a page at a time, with the total; served_from and cache age.",
  input: z.object({
    id: z.string().min(1).max(300).describe("arXiv ID, NBER w-number or DOI"),
    direction: z.enum(["cited_by", "references"]).default("cited_by").describe("cited_by: works citing it"),
    sort: z.enum(["most_cited", "newest", "oldest"]).default("most_cited").describe("order of the works"),
    start: z
      .number()
      .int()
      .min(0)
      .max(MAX_LISTED - 1)
      .default(0)
      .describe("0-based; next_start"),
    limit: z.number().int().min(1).max(50).default(20).describe("works per page"),
  }),
  output: z.object({
    paper: z.looseObject({}),
    direction: z.string(),
    sort: z.string(),
    total: z.number(),
    start: z.number(),
    next_start: z.number().nullable(),
    works: z.array(graphWorkSchema),
    notices: z.array(z.string()),
    served_from: z.enum(["cache", "live"]),
    cached_at: z.string().optional(),
    cache_age_seconds: z.number().optional(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "invalid_id", when: "id is not an arXiv ID, NBER number or DOI" },
    { reason: "not_in_openalex", when: "OpenAlex has no work for the paper yet" },
    { reason: "rate_limited", when: "the day's OpenAlex allowance is spent and nothing is cached" },
    { reason: "server_misconfigured", when: "the server has no OpenAlex key" },
    { reason: "upstream_unavailable", when: "OpenAlex is down and nothing is cached" },
    { reason: "upstream_malformed", when: "OpenAlex answered something unreadable" },
    { reason: "invalid_request", when: "OpenAlex refused the request" },
    { reason: "timeout", when: "the call ran out of its time budget" },
  ],
  handler: async ({ id, direction, sort, start, limit }, context) =>
    citationPage(context, { target: parseCitationTarget(id), direction, sort, start, limit }),
  render(page) {
    const paper = page.paper as { id: string; title: string | null; cited_by_count: number };
    const freshness = page.served_from === "cache" ? `cache, ${page.cache_age_seconds} s old` : "live";
    const what = page.direction === "cited_by" ? "works citing" : "works cited by";
    const head =
      `${page.total.toLocaleString("en-US")} ${what} ${paper.id} "${paper.title ?? "(untitled)"}" ` +
      `(cited by ${paper.cited_by_count}; ${page.sort}; ${freshness})`;
    const lines = page.works.map((work, offset) => {
      const ours = work.arxiv_id ? ` arXiv:${work.arxiv_id}` : work.nber_id ? ` NBER ${work.nber_id}` : "";
      const more = work.authors_total > work.authors.length ? " et al." : "";
      return (
        `${page.start + offset + 1}. ${work.title ?? "(untitled)"} — ${work.authors.join(", ")}${more} ` +
        `(${work.year ?? "?"}${work.venue ? `, ${work.venue}` : ""}) cited ${work.cited_by_count}` +
        `${work.doi ? ` doi:${work.doi}` : ""}${ours}`
      );
    });
    const next = page.next_start === null ? [] : [`More: start=${page.next_start}`];
    return [head, ...lines, ...page.notices, ...next].join("\n");
  },
});
