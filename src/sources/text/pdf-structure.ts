// Structure recovered from PDF text: an outline from the PDF's own bookmarks (most LaTeX PDFs
// have them; placed at the heading's text on the bookmarked page), else from heading-like lines
// (numbered, short, in sequence), and an index of figure and table captions. Pure.
import { slug, type ExtractedDocument, type FigureEntry, type OutlineEntry } from "./document";

export interface Bookmark {
  title: string;
  level: number;
  /** 0-based page index the bookmark points at. */
  page: number;
}

/** Bookmarks -> outline entries at the heading's text on its page (the page's start when the text is not found). */
export function outlineFromBookmarks(
  bookmarks: readonly Bookmark[],
  text: string,
  pageStarts: readonly number[],
): OutlineEntry[] {
  const entries: OutlineEntry[] = [];
  const seen = new Set<string>();
  for (const mark of bookmarks) {
    if (mark.page < 0 || mark.page >= pageStarts.length) continue;
    const pageStart = pageStarts[mark.page]!;
    const pageEnd = pageStarts[mark.page + 1] ?? text.length;
    const title = mark.title.replace(/\s+/g, " ").trim();
    if (title === "") continue;
    const offset = findTitle(text, title, pageStart, pageEnd) ?? pageStart;
    let id = slug(title);
    for (let n = 2; seen.has(id); n++) id = `${slug(title)}-${n}`;
    seen.add(id);
    entries.push({ level: mark.level + 1, id, title, offset });
  }
  return entries.sort((a, b) => a.offset - b.offset);
}

function findTitle(text: string, title: string, from: number, to: number): number | undefined {
  // The title's first words that are words (a maths fragment's leftovers would not match the text).
  const words = title
    .split(" ")
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .slice(0, 6)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (words.length === 0) return undefined;
  const pattern = new RegExp(words.join("\\s+"), "i");
  const match = pattern.exec(text.slice(from, to));
  if (!match) return undefined;
  // Start of the line the heading is on (a number before the title stays with it).
  const at = from + match.index;
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  return at - lineStart <= 8 ? lineStart : at;
}

const NUMBERED = /^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(\p{Lu}[^\n]{1,78})$/u;
const ROMAN = /^([IVX]{1,5})\.\s+(\p{Lu}[^\n]{2,70})$/u;
const NAMED =
  /^(abstract|introduction|conclusions?|discussion|acknowledge?ments?|references|bibliography|appendix(?:\s+[A-Z])?)\s*$/i;

/** Heading-like lines: numbered in sequence (1, 1.1, 1.2, 2 ...), Roman capitals, or the usual unnumbered names. */
export function outlineFromHeadingLines(text: string): OutlineEntry[] {
  const entries: OutlineEntry[] = [];
  const seen = new Set<string>();
  let top = 0;
  let romanTop = 0;
  let offset = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const lineOffset = offset;
    offset += lines[i]!.length + 1;
    if (line.length < 4 || line.length > 80) continue;
    const next = lines[i + 1]?.trim() ?? "";
    let level = 0;
    let title = "";
    const numbered = NUMBERED.exec(line);
    const roman = ROMAN.exec(line);
    if (numbered) {
      const parts = numbered[1]!.split(".").map(Number);
      const words = numbered[2]!.split(/\s+/);
      // A heading is short, does not end a sentence, and comes in sequence.
      // A table of contents line ends in its page number ("1 Introduction 3"): not the heading.
      if (words.length > 10 || /[.,;:]$/.test(numbered[2]!) || /\s\d+$/.test(numbered[2]!) || next === "") continue;
      if (parts.length === 1 && parts[0] === top + 1) top = parts[0]!;
      else if (!(parts.length > 1 && parts[0] === top)) continue;
      level = parts.length + 1;
      title = line;
    } else if (roman) {
      const value = romanValue(roman[1]!);
      // REVTeX headings are capitals ("III. EXISTENCE OF TIMELIKE COs"): mostly upper-case letters.
      const letters = roman[2]!.match(/\p{L}/gu) ?? [];
      const upper = letters.filter((letter) => /\p{Lu}/u.test(letter)).length;
      if (value !== romanTop + 1 || upper < letters.length * 0.7) continue;
      romanTop = value;
      level = 2;
      title = line;
    } else if (NAMED.test(line)) {
      level = 2;
      title = line;
    } else {
      continue;
    }
    let id = slug(title);
    for (let n = 2; seen.has(id); n++) id = `${slug(title)}-${n}`;
    seen.add(id);
    entries.push({ level, id, title, offset: lineOffset });
  }
  return entries;
}

function romanValue(roman: string): number {
  const values: Record<string, number> = { I: 1, V: 5, X: 10 };
  let total = 0;
  for (let i = 0; i < roman.length; i++) {
    const value = values[roman[i]!]!;
    const next = values[roman[i + 1] ?? ""] ?? 0;
    total += value < next ? -value : value;
  }
  return total;
}

// Numbers as papers print them: 3, 3a, A.1, and REVTeX's Roman "TABLE I".
const CAPTION =
  /^(Figure|Fig\.|FIG\.|FIGURE|Table|TABLE|TAB\.)\s*(\d{1,3}[a-z]?|[A-Z]\.?\d{1,2}|[IVX]{1,6})\s*[.:|]\s*(.*)$/;

/** Caption lines ("Figure 3: ...", "TABLE 2. ...") and the paragraph that follows them. */
export function figuresFromCaptions(text: string): FigureEntry[] {
  const figures: FigureEntry[] = [];
  const seen = new Set<string>();
  let offset = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const lineOffset = offset;
    offset += line.length + 1;
    const match = CAPTION.exec(line.trim());
    if (!match) continue;
    const kind: FigureEntry["kind"] = /^t/i.test(match[1]!) ? "table" : "figure";
    const id = `${kind === "table" ? "tab" : "fig"}-${match[2]!.toLowerCase().replace(/\./g, "")}`;
    if (seen.has(id)) continue;
    seen.add(id);
    // The caption runs to the next blank line (at most six lines).
    let end = lineOffset + line.length;
    const parts = [match[3]!];
    for (
      let j = i + 1;
      j < Math.min(lines.length, i + 7) && lines[j]!.trim() !== "" && !CAPTION.test(lines[j]!.trim());
      j++
    ) {
      parts.push(lines[j]!.trim());
      end += lines[j]!.length + 1;
    }
    const caption = `${match[1]} ${match[2]}: ${parts.join(" ")}`.replace(/\s+/g, " ").trim().slice(0, 500);
    figures.push({ id, kind, number: match[2]!, caption, start: lineOffset, end });
  }
  return figures;
}

/**
 * A document cached before outlines and figure indexes were extracted gets them from its text:
 * heading-like lines when it has no outline, caption lines for its figures.
 */
export function completeStructure<T extends ExtractedDocument>(document: T): T {
  if (document.figures !== undefined && document.outline_from !== undefined) return document;
  const outline = document.outline.length > 0 ? document.outline : outlineFromHeadingLines(document.text);
  const outlineFrom = document.outline.length > 0 ? "headings" : outline.length > 0 ? "heading_lines" : "none";
  return {
    ...document,
    outline,
    outline_from: document.outline_from ?? outlineFrom,
    figures: document.figures ?? figuresFromCaptions(document.text),
  };
}
