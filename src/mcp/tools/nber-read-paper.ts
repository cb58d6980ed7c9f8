import { z } from "zod";
import { paperUrl } from "../../sources/nber/paper";
import { loadNberDocument } from "../../sources/nber/read";
import { figureIndex, readView } from "../../sources/text/reading";
import { defineTool } from "../tool";
import { readInput, readOutput, readRequest, renderRead } from "./read-shared";

export const nberReadPaper = defineTool({
  name: "nber_read_paper",
  title: "Read an NBER paper",
  description: "Text of an NBER paper's PDF, paged like arxiv_read_paper.",
  input: z.object({
    paper_id: z.string().min(1).max(300),
    ...readInput,
  }),
  output: z.object({
    paper_id: z.string(),
    source: z.literal("pdf_text"),
    served_from: z.enum(["cache", "live"]),
    url: z.string(),
    ...readOutput,
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    "invalid_id",
    "no_match",
    "not_downloadable_now",
    "pdf_extraction_failed",
    "content_too_large",
    "rate_limited",
    "upstream_unavailable",
    "upstream_malformed",
    "timeout",
    "server_busy",
    "section_not_found",
  ],
  async handler({ paper_id, start, max_tokens, max_characters, section }, { env, progress }) {
    const { id, document, servedFrom } = await loadNberDocument(env, paper_id, progress);
    const view = readView(document, readRequest({ start, max_tokens, max_characters, section }), id);
    const firstPage = start === 0 && section === undefined;
    return {
      paper_id: id,
      source: "pdf_text" as const,
      served_from: servedFrom,
      url: paperUrl(id),
      ...view,
      extraction_truncated: document.extraction_truncated,
      ...(firstPage ? { outline: document.outline, figures: figureIndex(document) } : {}),
    };
  },
  render: (r) => renderRead(`${r.paper_id} (${r.served_from})`, r),
});
