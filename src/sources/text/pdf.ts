// PDF -> plain text with unpdf (pdf.js), one page at a time, stopping at a page or character
// budget so that a 500-page PDF stays well inside an isolate's 128 MB. unpdf is imported lazily:
// it is large, and only a PDF read needs it.
import { PapersError } from "../../errors";
import type { ExtractedDocument, OutlineEntry } from "./document";
import { figuresFromCaptions, outlineFromBookmarks, outlineFromHeadingLines, type Bookmark } from "./pdf-structure";

export interface PdfLimits {
  maxPages: number;
  maxChars: number;
  /** Called after each page's text is read (progress on long PDFs). */
  onPage?: (page: number, pages: number) => void;
}

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/** The PDF's text. Takes ownership of `bytes`: the caller must not use them afterwards. */
export async function pdfToDocument(
  bytes: Uint8Array,
  limits: PdfLimits,
  recovery: string,
): Promise<ExtractedDocument> {
  if (bytes.byteLength < 8 || new TextDecoder().decode(bytes.subarray(0, 5)) !== "%PDF-") {
    throw failed("The file is not a PDF.", recovery);
  }
  const { getDocumentProxy } = await import("unpdf");
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of the buffer it is given. No copy: at the 40 MB cap a copy is
    // 40 MB more of a 128 MB isolate; callers hand the bytes over (they are stored before this).
    pdf = await getDocumentProxy(bytes, { stopAtErrors: false });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/password/i.test(message)) throw failed("The PDF is encrypted.", recovery);
    throw failed(`The PDF does not parse (${message.slice(0, 120)}).`, recovery);
  }
  const parts: string[] = [];
  // Where each page's text starts in the document (pages without text start where the next does).
  const pageStarts: number[] = [];
  let length = 0;
  let truncated = false;
  let bookmarks: Bookmark[] = [];
  try {
    const pages = Math.min(pdf.numPages, limits.maxPages);
    truncated = pdf.numPages > limits.maxPages;
    for (let number = 1; number <= pages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items as TextItem[]) {
        if (item.str) text += item.str;
        if (item.hasEOL) text += "\n";
      }
      page.cleanup();
      limits.onPage?.(number, pages);
      text = text
        .replace(/[ \t]+/g, " ")
        .replace(/ *\n */g, "\n")
        .replace(/\n{3,}/g, "\n\n")
        .trim();
      pageStarts.push(length + (length > 0 && text !== "" ? 2 : 0));
      if (text === "") continue;
      const piece = (length > 0 ? "\n\n" : "") + text;
      if (length + piece.length > limits.maxChars) {
        parts.push(piece.slice(0, limits.maxChars - length));
        length = limits.maxChars;
        truncated = true;
        break;
      }
      parts.push(piece);
      length += piece.length;
    }
    bookmarks = await readBookmarks(pdf);
  } catch (error) {
    if (error instanceof PapersError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw failed(`The PDF broke during text extraction (${message.slice(0, 120)}).`, recovery);
  } finally {
    await pdf.cleanup?.();
    await (pdf as { destroy?: () => Promise<void> }).destroy?.();
  }
  const text = parts.join("");
  if (text.trim().length < 20) {
    throw failed("The PDF has no text layer (a scan or images only).", recovery);
  }
  let outline: OutlineEntry[] = outlineFromBookmarks(bookmarks, text, pageStarts);
  let outlineFrom: ExtractedDocument["outline_from"] = "pdf_bookmarks";
  if (outline.length < 2) {
    outline = outlineFromHeadingLines(text);
    outlineFrom = outline.length > 0 ? "heading_lines" : "none";
  }
  return {
    text,
    outline,
    title: null,
    bibliography_count: 0,
    figures: figuresFromCaptions(text),
    outline_from: outlineFrom,
    extraction_truncated: truncated,
  };
}

interface OutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items: OutlineNode[];
}

/** The PDF's bookmarks with the page each points at; none when it has none or they do not resolve. */
async function readBookmarks(pdf: Awaited<ReturnType<typeof import("unpdf").getDocumentProxy>>): Promise<Bookmark[]> {
  const out: Bookmark[] = [];
  let nodes: OutlineNode[] | null;
  try {
    nodes = (await pdf.getOutline()) as OutlineNode[] | null;
  } catch {
    return out;
  }
  const walk = async (items: OutlineNode[], level: number) => {
    for (const item of items) {
      if (out.length >= 500) return;
      try {
        const dest = typeof item.dest === "string" ? await pdf.getDestination(item.dest) : item.dest;
        const target = dest?.[0];
        const page =
          typeof target === "number"
            ? target
            : target
              ? await pdf.getPageIndex(target as Parameters<typeof pdf.getPageIndex>[0])
              : -1;
        if (page >= 0) out.push({ title: item.title, level, page });
      } catch {
        // A bookmark that does not resolve is skipped.
      }
      if (item.items?.length && level < 4) await walk(item.items, level + 1);
    }
  };
  await walk(nodes ?? [], 1);
  return out;
}

function failed(message: string, recovery: string): PapersError {
  return new PapersError("pdf_extraction_failed", message, { recovery });
}
