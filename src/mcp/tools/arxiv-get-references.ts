import { z } from "zod";
import { getReferences, REFERENCES_MAX_PAGE, REFERENCES_PAGE } from "../../sources/citations/references";
import { defineTool } from "../tool";

export const arxivGetReferences = defineTool({
  name: "arxiv_get_references",
  title: "arXiv paper references",
  useWhen: "an arXiv paper's bibliography, each entry resolved to an arXiv or NBER ID where one exists.",
  description: "An arXiv paper's bibliography, each entry resolved to an arXiv or NBER paper when one matches.",
  input: z.object({
    paper_id: z.string().min(1).max(300).describe("arXiv ID or link"),
    start: z.number().int().min(0).default(0).describe("next_start"),
    max_results: z.number().int().min(1).max(REFERENCES_MAX_PAGE).default(REFERENCES_PAGE).describe("page size"),
  }),
  output: z.object({
    paper_id: z.string(),
    text_source: z.string(),
    total: z.number(),
    start: z.number(),
    next_start: z.number().nullable(),
    references: z
      .array(z.looseObject({ number: z.number(), text: z.string(), resolved: z.looseObject({ status: z.string() }) }))
      .describe("{number, text, authors, title, year, doi, arxiv_id, resolved}"),
    notices: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "invalid_id", when: "an ID is not an arXiv ID in any spelling" },
    { reason: "no_match", when: "no such paper exists" },
    { reason: "content_unavailable", when: "no text of the paper holds a reference list" },
    { reason: "timeout", when: "the call ran out of its time budget" },
    { reason: "server_busy", when: "the server's PDF memory is taken by other reads" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "version_unavailable", when: "the version asked for does not exist" },
    { reason: "pdf_extraction_failed", when: "the PDF has no text layer or does not parse" },
  ],
  handler: async ({ paper_id, start, max_results }, context) => {
    const result = await getReferences(context, paper_id, start, max_results, context.progress);
    return { ...result, references: result.references.map((entry) => ({ ...entry, resolved: { ...entry.resolved } })) };
  },
  render(result) {
    const lines = result.references.map((entry) => {
      const resolved = entry.resolved as { status: string; source?: string; id?: string; confidence?: number };
      const tag =
        resolved.status === "match"
          ? ` -> ${resolved.source}:${resolved.id} (${resolved.confidence})`
          : ` -> ${resolved.status}`;
      return `[${entry.number}] ${entry.text}${tag}`;
    });
    const more =
      result.next_start === null
        ? []
        : [`${result.total - result.next_start} more: call again with start=${result.next_start}.`];
    return [
      `${result.paper_id}: ${result.total} references (${result.text_source})`,
      ...lines,
      ...more,
      ...result.notices,
    ].join("\n");
  },
});
