import { z } from "zod";
import { getMetadata, LOOKUP_BATCH } from "../../sources/arxiv/lookup";
import { knownVersions, renderPaper, servedPaperSchema, shortenAuthors } from "../../sources/arxiv/paper";
import { arxivLinks, linkSchema } from "../../sources/citations/links";
import { defineTool } from "../tool";

export const arxivGetMetadata = defineTool({
  name: "arxiv_get_metadata",
  title: "arXiv paper metadata",
  useWhen:
    "look arXiv papers up by ID in any spelling or by arxiv.org link (title, authors, abstract, versions, DOIs).",
  description:
    "arXiv metadata by ID in any spelling or link. Of up to 100 IDs, 10 are looked up and the rest returned in remaining_ids; a miss says why.",
  input: z.object({
    paper_ids: z.array(z.string().max(300)).min(1).max(100).describe("arXiv IDs or arxiv.org links"),
    full_authors: z.boolean().default(false).describe("all authors"),
  }),
  output: z.object({
    papers: servedPaperSchema
      .extend({ links: z.array(linkSchema) })
      .array()
      .describe(
        "id, base_id, version, title, abstract, authors[{name, affiliations?}], authors_total?, collaboration?, primary_category, categories, published, updated, comment, journal_ref, doi, abs_url, pdf_url, html_url, served_from, cached_at?, cache_age_seconds?, versions[{version, date}], links[{kind, source, id_or_doi, how}]",
      ),
    not_found: z.array(
      z.object({
        id: z.string(),
        reason: z.enum([
          "not_in_arxiv",
          "version_not_served",
          "live_lookup_failed",
          "invalid_id",
          "version_not_in_mirror",
          "not_yet_harvested",
        ]),
        detail: z.string(),
        latest_version: z.string().optional(),
      }),
    ),
    remaining_ids: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "invalid_request", when: "arXiv's API rejected the lookup as malformed (HTTP 400)" },
    { reason: "invalid_id", when: "an ID is not an arXiv ID in any spelling" },
    { reason: "no_match", when: "no such paper exists" },
    { reason: "version_not_served", when: "the version asked for is one arXiv's API no longer serves" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "upstream_unavailable", when: "the upstream is down and no mirror or cache holds the answer" },
    { reason: "upstream_malformed", when: "the upstream answered something unreadable" },
    { reason: "timeout", when: "the call ran out of its time budget" },
  ],
  handler: async ({ paper_ids, full_authors }, context) => {
    const result = await getMetadata(context, paper_ids);
    return {
      ...result,
      papers: result.papers.map((paper) => {
        const shown = full_authors ? paper : shortenAuthors(paper);
        return { ...shown, versions: knownVersions(paper), links: arxivLinks(paper) };
      }),
    };
  },
  render(result) {
    const lines = result.papers.map((paper) => {
      const cache =
        paper.served_from === "cache" ? ` (cache, ${paper.cache_age_seconds} s old)` : ` (${paper.served_from})`;
      return renderPaper(paper) + cache;
    });
    for (const miss of result.not_found) lines.push(`not found ${miss.id}: ${miss.reason}: ${miss.detail}`);
    if (result.remaining_ids.length > 0) {
      lines.push(
        `${result.remaining_ids.length} more IDs were not looked up (at most ${LOOKUP_BATCH} per call): pass remaining_ids as paper_ids next.`,
      );
    }
    return lines.join("\n\n");
  },
});
