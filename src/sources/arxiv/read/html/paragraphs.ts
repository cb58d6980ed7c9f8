// Paragraphs and the other blocks (abstract, authors, quotes, captions), line breaks, lists
// (itemize gets a Markdown dash, enumerate keeps LaTeXML's own label, nested lists indent) and
// footnotes, written inline as "[Footnote 1: ...]".
import type { ChainHandler, Opened, ReaderState } from "./state";

const BLOCK_TAGS = new Set(["p", "blockquote", "dt", "dd", "pre", "figure", "figcaption"]);
const BLOCK_CLASSES = ["ltx_para", "ltx_abstract", "ltx_authors", "ltx_dates", "ltx_keywords", "ltx_classification"];

export const PARAGRAPH_SELECTORS = [
  ...BLOCK_TAGS,
  ...BLOCK_CLASSES.map((name) => `.${name}`),
  "br",
  "li",
  "ul",
  "ol",
  ".ltx_note_content",
  ".ltx_tag_note",
];

export const openBlock: ChainHandler = (state, { tag, has, ends }) => {
  if (!BLOCK_TAGS.has(tag) && !BLOCK_CLASSES.some(has)) return false;
  state.out.breakLine(2);
  ends.push(() => state.out.breakLine(2));
  return true;
};

export const openLineBreak: ChainHandler = (state, { tag }) => {
  if (tag !== "br") return false;
  state.out.breakLine(1);
  return true;
};

/** A list item (a bibliography item is bibliography.ts's; a TOC entry gets no dash). */
export const openListItem: ChainHandler = (state, { tag, has }) => {
  if (tag !== "li") return false;
  state.out.breakLine(1);
  if (!has("ltx_tocentry")) {
    state.out.raw("  ".repeat(Math.min(Math.max(0, state.listKinds.length - 1), 6)));
    if (state.listKinds.at(-1) !== "tagged") state.out.raw("- ");
  }
  return true;
};

export const openFootnote: ChainHandler = (state, { has, ends }) => {
  if (!has("ltx_note_content")) return false;
  state.out.space();
  state.out.raw("[Footnote ");
  ends.push(() => state.out.raw("] "));
  return true;
};

export const openFootnoteTag: ChainHandler = (state, { has, ends }) => {
  if (!has("ltx_tag_note")) return false;
  ends.push(() => state.out.raw(": "));
  return true;
};

/** Which kind of list an item belongs to (read by the item and by dropped.ts for bullet tags). */
export function openList(state: ReaderState, { tag, has, ends }: Opened): void {
  if (tag !== "ul" && tag !== "ol") return;
  // LaTeXML writes the enumerate label ("1.", "(a)") as text; itemize gets a Markdown dash.
  state.listKinds.push(has("ltx_enumerate") || tag === "ol" ? "tagged" : "bullet");
  ends.push(() => void state.listKinds.pop());
}
