// One view over an extracted document for both read tools: a page by token budget (or by
// characters), one section of the outline, or one figure, table or equation by its id: a table
// as its rows, a figure or equation as its caption with the paragraphs that refer to it.
import { PapersError } from "../../errors";
import {
  pageOf,
  sectionRange,
  type ExtractedDocument,
  type FigureEntry,
  type OutlineEntry,
  type Page,
} from "./document";
import { estimateTokens, tokenPageEnd } from "./tokens";

export const DEFAULT_MAX_TOKENS = 10_000;

export interface ReadRequest {
  start: number;
  maxTokens: number;
  /** When given, pages by characters instead (null: the whole text). */
  maxCharacters?: number | null;
  section?: string;
}

export interface ReadView {
  text: string;
  /** Offsets within the text the view pages (the section's text when a section was asked for). */
  start: number;
  next_start: number | null;
  truncated: boolean;
  total_characters: number;
  /** Estimated tokens of `text` (see tokens.ts). */
  tokens: number;
  section?: OutlineEntry;
  figure?: FigureEntry;
}

export function readView(document: ExtractedDocument, request: ReadRequest, paperId: string): ReadView {
  let text = document.text;
  let base = 0;
  let section: OutlineEntry | undefined;
  let figure: FigureEntry | undefined;
  if (request.section !== undefined) {
    const range = sectionRange(document, request.section);
    figure = range ? undefined : findFigure(document, request.section);
    if (range) {
      text = text.slice(range.start, range.end);
      base = range.start;
      section = { ...range.entry, offset: range.entry.offset - base };
    } else if (figure) {
      text = figureText(document, figure);
    } else {
      throw sectionNotFound(document, request.section, paperId);
    }
  }
  if (request.start > text.length) {
    throw new PapersError(
      "invalid_argument",
      `start ${request.start} is past the end of the text (${text.length} characters).`,
      {
        recovery: "Use a start below total_characters (next_start of the previous page).",
      },
    );
  }
  let page: Page;
  if (request.maxCharacters !== undefined) {
    page = pageOf(text, request.start, request.maxCharacters);
  } else {
    const { end } = tokenPageEnd(text, request.start, request.maxTokens);
    page = {
      start: request.start,
      next_start: end < text.length ? end : null,
      truncated: end < text.length,
      text: text.slice(request.start, end),
    };
  }
  return {
    ...page,
    total_characters: text.length,
    tokens: estimateTokens(page.text),
    ...(section ? { section } : {}),
    ...(figure ? { figure } : {}),
  };
}

export type FigureIndexEntry = Omit<FigureEntry, "end">;

/**
 * The index served on a read's first page, kept cheap (about 45 tokens an entry as JSON): each entry's
 * caption cut to its first sentence and 80 characters without the "Figure 3:" label (`section`
 * reads the whole), and unnumbered subfigures left out (their figure's entry covers them).
 */
export function figureIndex(document: ExtractedDocument): FigureIndexEntry[] {
  return (document.figures ?? [])
    .filter((entry) => entry.number !== null || (entry.caption !== "" && !/\.sf\d+$/.test(entry.id)))
    .map(({ end: _end, ...entry }) => ({ ...entry, caption: shortCaption(entry.caption) }));
}

function shortCaption(caption: string): string {
  const unlabelled = caption.replace(/^(?:Figure|Fig\.|Table|TABLE|FIGURE|Equation)\s*[\w.]+\s*[:.|]\s*/, "");
  const sentence = /^.*?[.!?](?=\s|$)/.exec(unlabelled)?.[0] ?? unlabelled;
  return sentence.length <= 80 ? sentence : `${sentence.slice(0, 79).replace(/\s+\S*$/, "")}…`;
}

function findFigure(document: ExtractedDocument, wanted: string): FigureEntry | undefined {
  const key = wanted.trim().toLowerCase();
  const figures = document.figures ?? [];
  const byId = figures.find((entry) => entry.id.toLowerCase() === key);
  if (byId) return byId;
  // "Figure 3", "fig. 3", "Table 2", "Eq. 4", "equation (4)"
  const named = /^(fig(?:ure)?|tab(?:le)?|eq(?:uation)?)\.?\s*\(?([\w.-]+?)\)?$/.exec(key);
  if (!named) return undefined;
  const kind = named[1]!.startsWith("f") ? "figure" : named[1]!.startsWith("t") ? "table" : "equation";
  return figures.find((entry) => entry.kind === kind && entry.number?.toLowerCase() === named[2]);
}

/** A table is its rows; a figure or an equation is its caption (TeX) and the paragraphs that refer to it. */
function figureText(document: ExtractedDocument, figure: FigureEntry): string {
  const own = document.text.slice(figure.start, figure.end).trim();
  if (figure.kind === "table") return own;
  const head =
    figure.kind === "equation"
      ? `Equation ${figure.number ? `(${figure.number})` : figure.id}: $$${figure.caption}$$`
      : figure.caption || own;
  const mentions = figure.number ? referringParagraphs(document, figure) : [];
  if (mentions.length === 0) return head;
  return [head, "Referred to in:", ...mentions.map((paragraph) => `[@${paragraph.offset}] ${paragraph.text}`)].join(
    "\n\n",
  );
}

function referringParagraphs(document: ExtractedDocument, figure: FigureEntry): { offset: number; text: string }[] {
  const number = figure.number!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern =
    figure.kind === "equation"
      ? new RegExp(`\\b(?:Eqs?\\.|Equations?)\\s*\\(?${number}\\)|\\(${number}\\)`)
      : new RegExp(`\\bFig(?:ure|\\.)?s?\\s*${number}(?![\\w.])`, "i");
  const out: { offset: number; text: string }[] = [];
  let offset = 0;
  for (const paragraph of document.text.split("\n\n")) {
    const at = offset;
    offset += paragraph.length + 2;
    if (at >= figure.start && at < figure.end) continue;
    if (pattern.test(paragraph))
      out.push({ offset: at, text: paragraph.length > 1_500 ? `${paragraph.slice(0, 1_500)}…` : paragraph });
    if (out.length >= 5) break;
  }
  return out;
}

function sectionNotFound(document: ExtractedDocument, wanted: string, paperId: string): PapersError {
  const sections = document.outline.slice(0, 25).map((entry) => `${entry.id} (${entry.title})`);
  const figures = (document.figures ?? []).slice(0, 25).map((entry) => entry.id);
  const options = [
    sections.length > 0 ? `sections: ${sections.join(", ")}` : "",
    figures.length > 0 ? `figures, tables and equations: ${figures.join(", ")}` : "",
  ].filter(Boolean);
  return new PapersError(
    "section_not_found",
    `No section, figure or table ${JSON.stringify(wanted.slice(0, 80))} in ${paperId}.`,
    {
      recovery:
        options.length > 0
          ? `Use one of these ids or titles: ${options.join("; ")}.`
          : "This text has no outline or figure index; page with start instead.",
    },
  );
}
