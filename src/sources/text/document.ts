// What every reader produces (HTML, ar5iv, PDF), and how a stored document is cut into pages.
export interface OutlineEntry {
  level: number;
  /** The section's anchor (S3.SS1) where the source has one, else a slug of the title. */
  id: string;
  title: string;
  /** Character offset of the heading in `text`. */
  offset: number;
}

export interface ExtractedDocument {
  text: string;
  outline: OutlineEntry[];
  title: string | null;
  bibliography_count: number;
  /** The bibliography's entries as the HTML marks them up (LaTeXML bibitems): blocks and link targets. PDFs have none. */
  references?: MarkedUpReference[];
  /** Figures, tables and equations with their captions and where they sit in `text`. */
  figures?: FigureEntry[];
  /** How the outline was made: the source's headings, the PDF's bookmarks, or heading-like lines. */
  outline_from?: "headings" | "pdf_bookmarks" | "heading_lines" | "none";
  /** The extraction stopped at a size, character or page budget: the text is a prefix. */
  extraction_truncated: boolean;
}

export interface FigureEntry {
  /** The source's anchor (S3.F1, S4.T2, S2.E1) or, for PDF text, fig-3 / tab-2. */
  id: string;
  kind: "figure" | "table" | "equation";
  /** As printed: "3", "A.1", "(12)" -> "12"; null when unnumbered. */
  number: string | null;
  /** The caption (for an equation, its TeX), at most 500 characters. */
  caption: string;
  /** [start, end) of the element in `text`. */
  start: number;
  end: number;
}

export interface MarkedUpReference {
  /** The entry's label as printed: "[HW19]", "Vaswani et al. (2017)". */
  label: string;
  /** LaTeXML's bibblocks in order (typically authors, title, venue). */
  blocks: string[];
  /** href of every link in the entry (doi.org, arxiv.org, ...). */
  links: string[];
}

export interface Page {
  start: number;
  next_start: number | null;
  truncated: boolean;
  text: string;
}

/** A page of text from `start`, `maxCharacters` long (null: to the end), not splitting a surrogate pair. */
export function pageOf(text: string, start: number, maxCharacters: number | null): Page {
  const from = Math.min(Math.max(0, start), text.length);
  let to = maxCharacters === null ? text.length : Math.min(text.length, from + maxCharacters);
  if (to < text.length && /[\uD800-\uDBFF]/.test(text[to - 1] ?? "")) to--;
  return {
    start: from,
    next_start: to < text.length ? to : null,
    truncated: to < text.length,
    text: text.slice(from, to),
  };
}

/** The [start, end) of a section: from its heading to the next heading of the same or a higher level. */
export function sectionRange(
  document: ExtractedDocument,
  wanted: string,
): { entry: OutlineEntry; start: number; end: number } | undefined {
  const key = wanted.trim().toLowerCase();
  const index = document.outline.findIndex(
    (entry) =>
      entry.id.toLowerCase() === key ||
      entry.title.toLowerCase() === key ||
      stripNumber(entry.title).toLowerCase() === key,
  );
  if (index < 0) return undefined;
  const entry = document.outline[index]!;
  const next = document.outline.slice(index + 1).find((other) => other.level <= entry.level);
  return { entry, start: entry.offset, end: next?.offset ?? document.text.length };
}

const stripNumber = (title: string) => title.replace(/^[A-Z]?[\d.]+\s+/, "");

export function slug(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 60) || "section"
  );
}
