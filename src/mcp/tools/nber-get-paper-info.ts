import { z } from "zod";
import { getNberPaperInfo } from "../../sources/nber/info";
import { nberPaperInfoSchema } from "../../sources/nber/paper";
import { linkSchema, nberLinks } from "../../sources/citations/links";
import { citationCountFields, withCitationCounts } from "../../sources/openalex/counts";
import { nberDoi } from "../../sources/openalex/target";
import { defineTool } from "../tool";

export const nberGetPaperInfo = defineTool({
  name: "nber_get_paper_info",
  title: "NBER paper info",
  useWhen: "an NBER paper's title, authors, abstract, date, programs and links.",
  description: "An NBER paper's title, authors, date, abstract and links; served_from and cache age say how fresh.",
  input: z.object({
    paper_id: z.string().min(1).max(300).describe("w25000, 25000 or nber.org link"),
    include_all: z.boolean().default(true).describe("adds topics, programs, JEL, published version"),
    refresh: z.boolean().default(false).describe("Bypass the cache"),
  }),
  output: nberPaperInfoSchema.extend({
    served_from: z.enum(["cache", "live", "mirror"]),
    cached_at: z.string().optional(),
    cache_age_seconds: z.number().optional(),
    notices: z.array(z.string()),
    links: z.array(linkSchema).describe("{kind, source, id_or_doi, how}"),
    ...citationCountFields,
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "invalid_id", when: "paper_id is not an NBER number (w12345, 12345, an nber.org link)" },
    { reason: "no_match", when: "NBER has no such paper" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "upstream_unavailable", when: "the upstream is down and no mirror or cache holds the answer" },
    { reason: "upstream_malformed", when: "the upstream answered something unreadable" },
    { reason: "timeout", when: "the call ran out of its time budget" },
  ],
  handler: async ({ paper_id, include_all, refresh }, context) => {
    const info = await getNberPaperInfo(context, paper_id, { includeAll: include_all, refresh });
    const { links, notices } = await nberLinks(context, info);
    const [counted] = await withCitationCounts(context, [info], (paper) => [nberDoi(paper.id), paper.doi], { live: 1 });
    return { ...counted!, links, notices: [...info.notices, ...notices] };
  },
  render(info) {
    const extra = [
      info.topics && `Topics: ${info.topics.join(", ")}`,
      info.programs && `Programs: ${info.programs.join(", ")}`,
      info.jel_codes && `JEL: ${info.jel_codes.join(", ")}`,
      info.published_version && `Published: ${info.published_version}`,
      info.doi && `DOI: ${info.doi}`,
      info.cited_by_count !== undefined && `Cited by ${info.cited_by_count} (OpenAlex, ${info.cited_by_count_as_of})`,
      ...info.links
        .filter((link) => link.kind !== "nber_doi")
        .map((link) => `${link.kind}: ${link.id_or_doi} (${link.how})`),
    ].filter(Boolean);
    const freshness = info.served_from === "cache" ? `cache, ${info.cache_age_seconds} s old` : info.served_from;
    return [
      `[${info.id}] ${info.title} (${freshness})`,
      info.authors.join(", "),
      info.date ?? "",
      ...extra,
      ...info.notices,
      info.abstract ?? "(no abstract)",
      info.url,
    ].join("\n");
  },
});
