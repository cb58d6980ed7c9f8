import { z } from "zod";
import { loadArxivDocument } from "../../sources/arxiv/read/reader";
import { PUBLIC_ARXIV } from "../../sources/arxiv/paper";
import { figureIndex, readView } from "../../sources/text/reading";
import { defineTool } from "../tool";
import { readInput, readOutput, readPayload, readRequest, renderRead } from "./read-shared";

export const arxivReadPaper = defineTool({
  name: "arxiv_read_paper",
  title: "Read an arXiv paper",
  useWhen: "read an arXiv paper's full text by pages of max_tokens, or one section, figure or table.",
  description:
    "An arXiv paper's text (Markdown, TeX maths) from arXiv HTML, ar5iv or PDF, max_tokens a page. " +
    "Page 1 lists the outline and figures; section reads one.",
  input: z.object({
    paper_id: z.string().min(1).max(300).describe("ID or arxiv.org link; vN for an exact revision"),
    ...readInput,
  }),
  output: z.object({
    paper_id: z.string(),
    source: z.enum(["arxiv_html", "ar5iv", "pdf_text"]),
    served_from: z.enum(["live", "cache"]),
    cached_at: z.string().optional(),
    revision_unconfirmed: z.boolean(),
    pdf_url: z.string(),
    abs_url: z.string(),
    title: z.string().nullable(),
    ...readOutput,
    notices: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "invalid_id", when: "an ID is not an arXiv ID in any spelling" },
    { reason: "no_match", when: "no such paper exists" },
    { reason: "content_unavailable", when: "no HTML, ar5iv or PDF text exists for the paper" },
    { reason: "pdf_extraction_failed", when: "the PDF has no text layer or does not parse" },
    { reason: "version_unavailable", when: "the version asked for does not exist" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "timeout", when: "the call ran out of its time budget" },
    { reason: "server_busy", when: "the server's PDF memory is taken by other reads" },
    { reason: "content_too_large", when: "the paper's HTML or PDF is over the size cap" },
    { reason: "section_not_found", when: "section names no section, figure or table of the paper" },
  ],
  async handler({ paper_id, start, max_tokens, max_characters, section }, context) {
    const loaded = await loadArxivDocument(context, paper_id, context.progress);
    const { document } = loaded;
    const firstPage = start === 0 && section === undefined;
    const listing = firstPage ? { outline: document.outline, figures: figureIndex(document) } : undefined;
    const request = readRequest({ start, max_tokens, max_characters, section }, listing);
    const view = readView(document, request, loaded.resolvedId);
    const notices = [...loaded.notices];
    if (document.extraction_truncated)
      notices.push("The text stops at this server's extraction budget; the rest of the paper is on arxiv.org.");
    if (loaded.revisionUnconfirmed)
      notices.push("ar5iv keeps one render per paper; it may be another revision than the one asked for.");
    if (firstPage && document.outline_from === "heading_lines")
      notices.push("The outline was made from heading-like lines of the PDF text (the PDF has no bookmarks).");
    return {
      paper_id: loaded.resolvedId,
      source: loaded.source,
      served_from: loaded.servedFrom,
      ...(loaded.cachedAt ? { cached_at: loaded.cachedAt } : {}),
      revision_unconfirmed: loaded.revisionUnconfirmed,
      pdf_url: `${PUBLIC_ARXIV}/pdf/${loaded.resolvedId}`,
      abs_url: `${PUBLIC_ARXIV}/abs/${loaded.resolvedId}`,
      title: document.title,
      // Offsets are within the returned text: the section or figure view when one was asked for.
      ...view,
      extraction_truncated: document.extraction_truncated,
      ...listing,
      notices,
    };
  },
  payload: readPayload,
  render(result) {
    const head =
      `${result.paper_id} via ${result.source} ` +
      `(${result.served_from})${result.revision_unconfirmed ? ", revision unconfirmed" : ""}`;
    return renderRead(head, result);
  },
});
