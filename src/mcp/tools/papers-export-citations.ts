import { z } from "zod";
import { EXPORT_MAX_IDS, exportCitations } from "../../sources/citations/export";
import { defineTool } from "../tool";

export const papersExportCitations = defineTool({
  name: "papers_export_citations",
  title: "Export citations",
  description:
    "BibTeX, RIS or CSL-JSON for up to 50 arXiv and NBER IDs (mixed), from the real records (eprint, arXiv and journal DOIs, NBER series). Unknown IDs are listed in not_found.",
  input: z.object({
    ids: z.array(z.string().max(300)).min(1).max(EXPORT_MAX_IDS).describe("arXiv (vN pins a version) or NBER (w25000) IDs"),
    format: z.enum(["bibtex", "ris", "csl-json"]).default("bibtex"),
  }),
  output: z.object({
    format: z.string(),
    entries: z.array(z.object({ id: z.string(), key: z.string(), kind: z.enum(["arxiv", "nber"]), title: z.string(), source: z.string() })).meta({ description: "{id, key, kind, title, source}", "x-compact": true }),
    text: z.string(),
    not_found: z.array(z.object({ id: z.string(), reason: z.string(), detail: z.string() })).meta({ description: "{id, reason, detail}", "x-compact": true }),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [],
  handler: ({ ids, format }, { env }) => exportCitations(env, ids, format),
  render(result) {
    const misses = result.not_found.map((miss) => `not found ${miss.id}: ${miss.reason}: ${miss.detail}`);
    return [result.text.trimEnd(), ...misses].filter(Boolean).join("\n\n") || "No entries.";
  },
});
