import { z } from "zod";
import { getMetadata, LOOKUP_BATCH } from "../../sources/arxiv/lookup";
import { knownVersions, renderPaper, servedPaperSchema, shortenAuthors } from "../../sources/arxiv/paper";
import { fitFullAuthors, METADATA_TOKEN_BUDGET } from "../../sources/arxiv/metadata-budget";
import { arxivLinks, linkSchema } from "../../sources/citations/links";
import { withCitationCounts } from "../../sources/openalex/counts";
import { arxivDoi } from "../../sources/openalex/target";
import { defineTool } from "../tool";

/** Papers of one lookup whose citation count may be asked of OpenAlex (free, but each is a request). */
const LIVE_COUNTS = 3;

export const arxivGetMetadata = defineTool({
  name: "arxiv_get_metadata",
  title: "arXiv paper metadata",
  useWhen:
    "look arXiv papers up by ID in any spelling or by arxiv.org link (title, authors, abstract, versions, DOIs).",
  description:
    "arXiv metadata by ID in any spelling or link. Of up to 100 IDs, 10 are looked up and the rest " +
    "returned in remaining_ids; a miss says why.",
  input: z.object({
    paper_ids: z.array(z.string().max(300)).min(1).max(100).describe("arXiv IDs or arxiv.org links"),
    full_authors: z.boolean().default(false).describe("all authors"),
    authors_start: z.number().int().min(0).max(100_000).default(0).describe("full_authors: authors_next_start"),
  }),
  output: z.object({
    papers: servedPaperSchema
      .extend({
        links: z.array(linkSchema),
        authors_start: z.number().optional(),
        authors_next_start: z.number().optional(),
      })
      .array()
      .describe(
        "id, base_id, version, title, abstract, authors[{name, affiliations?}], authors_total?, " +
          "collaboration?, primary_category, categories, published, updated, comment, journal_ref, " +
          "doi, abs_url, pdf_url, html_url, served_from, cached_at?, cache_age_seconds?, versions[{version, " +
          "date}], links[{kind, source, id_or_doi, how}], cited_by_count?, cited_by_count_as_of?",
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
  handler: async ({ paper_ids, full_authors, authors_start }, context) => {
    const result = await getMetadata(context, paper_ids);
    const described = result.papers.map((paper) => ({
      ...(full_authors ? paper : shortenAuthors(paper)),
      versions: knownVersions(paper),
      links: arxivLinks(paper),
    }));
    const papers = await withCitationCounts(context, described, (paper) => [arxivDoi(paper.base_id), paper.doi], {
      live: LIVE_COUNTS,
    });
    if (!full_authors) return { ...result, papers };
    // Whole author lists: in order while they fit the budget; the rest are asked for next.
    const fitted = fitFullAuthors(papers, authors_start);
    const left = fitted.left.map((paper) => paper.id);
    return { ...result, papers: fitted.papers, remaining_ids: [...left, ...result.remaining_ids] };
  },
  render(result) {
    const lines = result.papers.map((paper) => {
      const cache =
        paper.served_from === "cache" ? ` (cache, ${paper.cache_age_seconds} s old)` : ` (${paper.served_from})`;
      return renderPaper(paper) + cache;
    });
    for (const paper of result.papers)
      if (paper.authors_next_start !== undefined)
        lines.push(
          `${paper.id} lists authors ${(paper.authors_start ?? 0) + 1}-${paper.authors_next_start} of ` +
            `${paper.authors_total} to keep this answer within ${METADATA_TOKEN_BUDGET.toLocaleString("en-US")} ` +
            `tokens: call again with paper_ids ["${paper.id}"], full_authors and authors_start=${paper.authors_next_start} for the next.`,
        );
    for (const miss of result.not_found) lines.push(`not found ${miss.id}: ${miss.reason}: ${miss.detail}`);
    if (result.remaining_ids.length > 0) {
      lines.push(
        `${result.remaining_ids.length} more IDs were not answered (at most ${LOOKUP_BATCH} per call, ` +
          `and whole author lists within ${METADATA_TOKEN_BUDGET.toLocaleString("en-US")} tokens): ` +
          `pass remaining_ids (${result.remaining_ids.slice(0, 10).join(", ")}${result.remaining_ids.length > 10 ? ", ..." : ""}) ` +
          `as paper_ids next.`,
      );
    }
    return lines.join("\n\n");
  },
});
