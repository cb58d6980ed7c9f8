import { z } from "zod";
import { ToolError } from "../../errors";
import { paperUrl } from "../../sources/nber/paper";
import { loadNberDocument } from "../../sources/nber/read";
import { pageOf } from "../../sources/text/document";
import { sameShapeAs } from "../schema";
import { defineTool } from "../tool";

export const nberReadPaper = defineTool({
  name: "nber_read_paper",
  title: "Read an NBER paper",
  description: "Text of an NBER paper's PDF, paged like arxiv_read_paper (start, max_characters, next_start).",
  input: z.object({
    paper_id: z.string().min(1).max(300),
    start: z.number().int().min(0).max(100_000_000).default(0),
    max_characters: z.number().int().min(100).max(2_000_000).nullable().default(40_000),
  }),
  output: z.object({
    paper_id: z.string(),
    source: z.literal("pdf_text"),
    served_from: z.enum(["cache", "live"]),
    url: z.string(),
    total_characters: z.number(),
    start: z.number(),
    next_start: z.number().nullable(),
    truncated: z.boolean(),
    extraction_truncated: z.boolean(),
    outline: sameShapeAs(z.object({ level: z.number(), id: z.string(), title: z.string(), offset: z.number() }), "{ level, id, title, offset } per heading").optional(),
    text: z.string(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: ["invalid_id", "no_match", "not_downloadable_now", "pdf_extraction_failed", "content_too_large", "rate_limited", "upstream_unavailable", "upstream_malformed", "timeout"],
  async handler({ paper_id, start, max_characters }, { env }) {
    const { id, document, servedFrom } = await loadNberDocument(env, paper_id);
    if (start > document.text.length) {
      throw new ToolError("invalid_argument", `start ${start} is past the end of the text (${document.text.length} characters).`, { recovery: "Use a start below total_characters." });
    }
    const page = pageOf(document.text, start, max_characters);
    return {
      paper_id: id,
      source: "pdf_text" as const,
      served_from: servedFrom,
      url: paperUrl(id),
      total_characters: document.text.length,
      ...page,
      extraction_truncated: document.extraction_truncated,
      ...(start === 0 ? { outline: document.outline } : {}),
    };
  },
  render: (r) => [`${r.paper_id} (${r.served_from}): characters ${r.start}-${r.start + r.text.length} of ${r.total_characters}`, r.text, r.next_start === null ? "End of text." : `More: call again with start=${r.next_start}.`].join("\n\n"),
});
