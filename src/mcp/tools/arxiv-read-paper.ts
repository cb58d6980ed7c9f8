import { z } from "zod";
import { ToolError } from "../../errors";
import { pageOf, sectionRange } from "../../sources/text/document";
import { loadArxivDocument } from "../../sources/arxiv/read/reader";
import { PUBLIC_ARXIV } from "../../sources/arxiv/paper";
import { sameShapeAs } from "../schema";
import { defineTool } from "../tool";

const DEFAULT_PAGE = 40_000; // about 10,000 tokens

const outlineEntry = z.object({ level: z.number(), id: z.string(), title: z.string(), offset: z.number() });

export const arxivReadPaper = defineTool({
  name: "arxiv_read_paper",
  title: "Read an arXiv paper",
  description:
    "An arXiv paper's text (Markdown, TeX maths) from arXiv HTML, ar5iv or the PDF (source says which). Page with start/next_start; the first page has the outline; section gives one section.",
  input: z.object({
    paper_id: z.string().min(1).max(300).describe("ID or arxiv.org link; vN for an exact revision"),
    start: z.number().int().min(0).max(100_000_000).default(0).describe("Character offset"),
    max_characters: z.number().int().min(100).max(2_000_000).nullable().default(DEFAULT_PAGE).describe("null: the whole text"),
    section: z.string().min(1).max(300).optional().describe("An outline id or title"),
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
    total_characters: z.number(),
    start: z.number(),
    next_start: z.number().nullable(),
    truncated: z.boolean(),
    extraction_truncated: z.boolean(),
    section: outlineEntry.optional(),
    outline: sameShapeAs(outlineEntry, "{ level, id, title, offset } per heading").optional(),
    text: z.string(),
    notices: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: ["invalid_id", "no_match", "content_unavailable", "pdf_extraction_failed", "version_unavailable", "rate_limited", "timeout", "content_too_large", "section_not_found"],
  async handler({ paper_id, start, max_characters, section }, { env }) {
    const loaded = await loadArxivDocument(env, paper_id);
    const { document } = loaded;
    let text = document.text;
    let offset = 0;
    let sectionEntry: z.infer<typeof outlineEntry> | undefined;
    if (section !== undefined) {
      const range = sectionRange(document, section);
      if (!range) {
        const titles = document.outline.slice(0, 30).map((entry) => `${entry.id} (${entry.title})`).join(", ");
        throw new ToolError("section_not_found", `No section ${JSON.stringify(section.slice(0, 80))} in ${loaded.resolvedId}.`, {
          recovery: document.outline.length > 0 ? `Use an id or title from the outline: ${titles}.` : "This text has no outline (PDF text); page with start instead.",
        });
      }
      text = text.slice(range.start, range.end);
      offset = range.start;
      sectionEntry = range.entry;
    }
    const page = pageOf(text, start, max_characters);
    const firstPage = start === 0 && section === undefined;
    const notices = [...loaded.notices];
    if (document.extraction_truncated) notices.push("The text stops at this server's extraction budget; the rest of the paper is on arxiv.org.");
    if (loaded.revisionUnconfirmed) notices.push("ar5iv keeps one render per paper; it may be another revision than the one asked for.");
    return {
      paper_id: loaded.resolvedId,
      source: loaded.source,
      served_from: loaded.servedFrom,
      ...(loaded.cachedAt ? { cached_at: loaded.cachedAt } : {}),
      revision_unconfirmed: loaded.revisionUnconfirmed,
      pdf_url: `${PUBLIC_ARXIV}/pdf/${loaded.resolvedId}`,
      abs_url: `${PUBLIC_ARXIV}/abs/${loaded.resolvedId}`,
      title: document.title,
      total_characters: text.length,
      // Offsets are within the returned text: the section when one was asked for.
      start: page.start,
      next_start: page.next_start,
      truncated: page.truncated,
      extraction_truncated: document.extraction_truncated,
      ...(sectionEntry ? { section: { ...sectionEntry, offset: sectionEntry.offset - offset } } : {}),
      ...(firstPage ? { outline: document.outline } : {}),
      text: page.text,
      notices,
    };
  },
  render(result) {
    const head = `${result.paper_id} via ${result.source} (${result.served_from})${result.revision_unconfirmed ? ", revision unconfirmed" : ""}: characters ${result.start}-${result.start + result.text.length} of ${result.total_characters}`;
    const next = result.next_start === null ? "End of text." : `More: call again with start=${result.next_start}.`;
    const outline = result.outline?.length
      ? `Outline:\n${result.outline.map((entry) => `${"  ".repeat(Math.max(0, entry.level - 1))}${entry.title} [${entry.id} @${entry.offset}]`).join("\n")}`
      : "";
    return [head, ...result.notices, outline, result.text, next].filter(Boolean).join("\n\n");
  },
});
