import { z } from "zod";
import { paperUrl } from "../../sources/nber/paper";
import { loadNberDocument } from "../../sources/nber/read";
import { figureIndex, readView } from "../../sources/text/reading";
import { defineTool } from "../tool";
import { readInput, readOutput, readPayload, readRequest, renderRead } from "./read-shared";

export const nberReadPaper = defineTool({
  name: "nber_read_paper",
  title: "Read an NBER paper",
  useWhen: "read an NBER paper's full text by pages, or one section.",
  description: "Text of an NBER paper's PDF, paged like arxiv_read_paper.",
  input: z.object({
    paper_id: z.string().min(1).max(300).describe("w25000, 25000 or nber.org link"),
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
    { reason: "invalid_id", when: "paper_id is not an NBER number" },
    { reason: "no_match", when: "NBER has no such paper or no PDF of it" },
    { reason: "not_downloadable_now", when: "NBER withholds the PDF (its first week, or subscribers only)" },
    { reason: "pdf_extraction_failed", when: "the PDF has no text layer or does not parse" },
    { reason: "content_too_large", when: "the PDF is over NBER_MAX_PDF_BYTES" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "upstream_unavailable", when: "the upstream is down and no mirror or cache holds the answer" },
    { reason: "upstream_malformed", when: "the upstream answered something unreadable" },
    { reason: "timeout", when: "the call ran out of its time budget" },
    { reason: "server_busy", when: "the server's PDF memory is taken by other reads" },
    { reason: "section_not_found", when: "section names no section, figure or table of the paper" },
  ],
  async handler({ paper_id, start, max_tokens, max_characters, section }, context) {
    const { id, document, servedFrom } = await loadNberDocument(context, paper_id, context.progress);
    const firstPage = start === 0 && section === undefined;
    const listing = firstPage ? { outline: document.outline, figures: figureIndex(document) } : undefined;
    const view = readView(document, readRequest({ start, max_tokens, max_characters, section }, listing), id);
    return {
      paper_id: id,
      source: "pdf_text" as const,
      served_from: servedFrom,
      url: paperUrl(id),
      ...view,
      extraction_truncated: document.extraction_truncated,
      ...listing,
    };
  },
  payload: readPayload,
  render: (r) => renderRead(`${r.paper_id} (${r.served_from})`, r),
});
