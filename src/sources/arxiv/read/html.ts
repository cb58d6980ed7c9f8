// LaTeXML HTML (arxiv.org/html and ar5iv) -> clean text with the structure kept: Markdown
// headings with section numbers, paragraphs, lists, tables as Markdown rows, captions, footnotes,
// a numbered bibliography, and maths as TeX from the alttext (never also as MathML text).
// Streams through HTMLRewriter, so memory stays flat whatever the page size; input bytes and
// output characters are capped. This is the driver: each kind of element has its handler module
// in html/ (dropped, math, sections, paragraphs, tables, figures, bibliography), which share the
// reader's state (html/state.ts).
import { decodeHTML } from "entities";
import { PapersError } from "../../../errors";
import type { ExtractedDocument } from "../../text/document";
import { BIBLIOGRAPHY_SELECTORS, openBibItem, openBibPart } from "./html/bibliography";
import { DROPPED_SELECTORS, openDropped } from "./html/dropped";
import { FIGURE_SELECTORS, openFigure } from "./html/figures";
import { MATH_SELECTORS, openMath } from "./html/math";
import {
  PARAGRAPH_SELECTORS,
  openBlock,
  openFootnote,
  openFootnoteTag,
  openLineBreak,
  openList,
  openListItem,
} from "./html/paragraphs";
import { SECTION_SELECTORS, openHeading, openSection } from "./html/sections";
import { type ChainHandler, type Opened, type ReaderState, readerState } from "./html/state";
import { TABLE_SELECTORS, openCell, openRow, openTable } from "./html/tables";
import { stripMathBodies } from "./strip-math";

export interface HtmlLimits {
  maxBytes: number;
  maxChars: number;
}

// One selector list, so that each element reaches onStart once (most spans and all MathML
// children do not match and cost nothing on the JS side).
const INTERESTING = [
  ...new Set([
    ...DROPPED_SELECTORS,
    ...MATH_SELECTORS,
    ...SECTION_SELECTORS,
    ...PARAGRAPH_SELECTORS,
    ...TABLE_SELECTORS,
    ...FIGURE_SELECTORS,
    ...BIBLIOGRAPHY_SELECTORS,
  ]),
].join(", ");

/** What an element outside dropped text and maths writes: the first handler that takes it. */
const WRITES: readonly ChainHandler[] = [
  openHeading,
  openBlock,
  openLineBreak,
  openBibItem,
  openListItem,
  openFootnote,
  openFootnoteTag,
  openRow,
  openCell,
];

/**
 * Every interesting element, in this order: what drops text, maths, the section it opens, what
 * it writes, the float and bibliography part it opens, then lists and tables (whose depth the
 * others read). Its end-tag work runs last-first, in one callback: HTMLRewriter keeps only the
 * last onEndTag registered on an element.
 */
function openElement(state: ReaderState, element: Element): void {
  const classes = (element.getAttribute("class") ?? "").split(/\s+/).filter(Boolean);
  const opened: Opened = {
    element,
    tag: element.tagName.toLowerCase(),
    classes,
    has: (name) => classes.includes(name),
    ends: [],
    wasActive: state.skipDepth === 0,
  };
  openDropped(state, opened);
  openMath(state, opened);
  openSection(state, opened);
  const active = state.skipDepth === 0 && state.mathDepth === 0;
  if (active) for (const write of WRITES) if (write(state, opened)) break;
  if (opened.wasActive) {
    openFigure(state, opened);
    openBibPart(state, opened);
  }
  openList(state, opened);
  openTable(state, opened, active);
  const { ends } = opened;
  if (ends.length === 0) return;
  try {
    element.onEndTag(() => {
      for (let i = ends.length - 1; i >= 0; i--) ends[i]!();
    });
  } catch {
    // A void element has no end tag: undo what waited for it.
    for (let i = ends.length - 1; i >= 0; i--) ends[i]!();
  }
}

/** A piece of text: to the TeX being captured, or (outside dropped text and maths) to the page and what collects it. */
function onText(state: ReaderState, raw: string): void {
  if (raw === "") return;
  if (state.inTexAnnotation && state.texCapture) {
    state.texCapture.push(decodeHTML(raw));
    return;
  }
  if (state.skipDepth > 0 || state.mathDepth > 0) return;
  const text = raw.includes("&") ? decodeHTML(raw) : raw;
  if (state.heading) state.heading.parts.push(text);
  const figure = state.openFigures.at(-1);
  if (figure?.tag) figure.tag.push(text);
  if (figure?.caption) figure.caption.push(text);
  if (state.reference?.label) state.reference.label.push(text);
  else if (state.reference?.block) state.reference.block.push(text);
  state.out.text(text);
}

export async function htmlToDocument(body: ReadableStream<Uint8Array>, limits: HtmlLimits): Promise<ExtractedDocument> {
  const state = readerState(limits.maxChars);
  const rewriter = new HTMLRewriter()
    .on(INTERESTING, { element: (element) => openElement(state, element) })
    .onDocument({ text: (chunk) => onText(state, chunk.text) });

  // Count input bytes on the way in; past the cap, stop reading and fail (without erroring a
  // pipe, which would surface as an unhandled rejection).
  let seen = 0;
  let overLimit = false;
  const reader = body.getReader();
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      seen += value.byteLength;
      if (seen > limits.maxBytes) {
        overLimit = true;
        await reader.cancel();
        return controller.close();
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const stripped = limited
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(stripMathBodies())
    .pipeThrough(new TextEncoderStream());
  try {
    const transformed = rewriter.transform(
      new Response(stripped, { headers: { "content-type": "text/html; charset=utf-8" } }),
    );
    // Consumed natively: a JS WritableStream here cost a callback per output chunk (about half the time).
    await transformed.arrayBuffer();
  } catch (error) {
    // lol-html refuses pathological input (e.g. nesting beyond its memory limit) with a TypeError.
    const message = error instanceof Error ? error.message : String(error);
    throw new PapersError("upstream_malformed", `The HTML could not be parsed (${message.slice(0, 120)}).`, {
      recovery: "The paper's PDF may still be readable; open it on arxiv.org.",
    });
  }
  if (overLimit) throw tooLarge(limits.maxBytes);
  return {
    text: state.out.toString().trim(),
    outline: state.outline,
    title: state.title,
    bibliography_count: state.bibliography,
    references: state.references,
    figures: state.figures,
    outline_from: state.outline.length > 0 ? "headings" : "none",
    extraction_truncated: state.out.full,
  };
}

function tooLarge(maxBytes: number): PapersError {
  return new PapersError("content_too_large", `The HTML render is larger than ${Math.round(maxBytes / 1e6)} MB.`, {
    recovery:
      "Read the PDF instead (arxiv_read_paper falls back to it when asked for a version without HTML), or open the abs page.",
  });
}
