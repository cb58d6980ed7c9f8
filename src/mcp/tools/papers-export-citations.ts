import { z } from "zod";
import { EXPORT_MAX_IDS, EXPORT_TOKEN_BUDGET, exportCitations } from "../../sources/citations/export";
import { agentFor } from "../../agent/client";
import { defineTool } from "../tool";

export const papersExportCitations = defineTool({
  name: "papers_export_citations",
  title: "Export citations",
  useWhen: "cite papers: BibTeX, RIS or CSL-JSON from the real records (arXiv and NBER IDs, or a library tag).",
  description: "BibTeX, RIS or CSL-JSON of up to 50 arXiv and NBER IDs, from the real records.",
  input: z.object({
    ids: z.array(z.string().max(300)).min(1).max(EXPORT_MAX_IDS).optional().describe("arXiv (vN pins) or NBER IDs"),
    tag: z.string().min(1).max(40).optional().describe("library tag"),
    format: z.enum(["bibtex", "ris", "csl-json"]).default("bibtex").describe("citation format"),
    full_authors: z.boolean().default(false).describe("all authors"),
  }),
  output: z.object({
    format: z.string(),
    entries: z
      .array(
        z.object({
          id: z.string(),
          key: z.string(),
          kind: z.enum(["arxiv", "nber"]),
          title: z.string(),
          source: z.string(),
        }),
      )
      .describe("{id, key, kind, title, source}"),
    text: z.string(),
    remaining_ids: z.array(z.string()),
    notices: z.array(z.string()),
    not_found: z
      .array(z.object({ id: z.string(), reason: z.string(), detail: z.string() }))
      .describe("{id, reason, detail}"),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "no_identity", when: "the call carries no client identity for per-client state" },
    { reason: "no_match", when: "a tag names no paper of the library" },
  ],
  async handler({ ids, tag, format, full_authors }, context) {
    const tagged = tag === undefined ? [] : (await (await agentFor(context.env, context.identity)).taggedIds(tag)).ids;
    const all = [...(ids ?? []), ...tagged];
    if (all.length === 0) {
      return context.fail(
        tag === undefined ? "invalid_argument" : "no_match",
        tag === undefined
          ? "Pass ids, or a tag of your library."
          : `No paper in your library has the tag ${JSON.stringify(tag)}.`,
        {
          recovery:
            tag === undefined
              ? "Give up to 50 arXiv or NBER IDs in ids."
              : "List your tags with papers_library action=list.",
        },
      );
    }
    return exportCitations(context, all.slice(0, EXPORT_MAX_IDS), format, { fullAuthors: full_authors });
  },
  payload: { field: "text" },
  render(result) {
    const lines = [
      `${result.entries.length} ${FORMAT_NAMES[result.format] ?? result.format} entr${result.entries.length === 1 ? "y" : "ies"}:`,
    ];
    for (const miss of result.not_found) lines.push(`not found ${miss.id}: ${miss.reason}: ${miss.detail}`);
    lines.push(...result.notices);
    if (result.remaining_ids.length > 0)
      lines.push(
        `${result.remaining_ids.length} more paper${result.remaining_ids.length === 1 ? " was" : "s were"} ` +
          `left out to keep this answer within ${EXPORT_TOKEN_BUDGET.toLocaleString("en-US")} tokens: ` +
          `pass remaining_ids (${result.remaining_ids.join(", ")}) as ids next.`,
      );
    return lines.join("\n");
  },
});

const FORMAT_NAMES: Record<string, string> = { bibtex: "BibTeX", ris: "RIS", "csl-json": "CSL-JSON" };
