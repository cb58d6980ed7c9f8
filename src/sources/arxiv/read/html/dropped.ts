// What the reader drops: the page's chrome (navigation, header, footer, scripts, the TOC),
// footnote marks and note types, and a bullet list's item tags (Markdown writes its own dash).
import type { Opened, ReaderState } from "./state";

export const SKIP_TAGS = new Set([
  "script",
  "style",
  "noscript",
  "nav",
  "header",
  "footer",
  "button",
  "svg",
  "form",
  "iframe",
  "template",
  "object",
  "head",
]);
export const SKIP_CLASSES = [
  "ltx_page_navbar",
  "ltx_page_footer",
  "ltx_page_header",
  "ltx_TOC",
  "ltx_page_logo",
  "ar5iv-footer",
  "ltx_note_mark",
  "package-alerts",
  "html-header-message",
  "ltx_rdf",
  "ltx_note_type",
];

export const DROPPED_SELECTORS = [...SKIP_TAGS, ...SKIP_CLASSES.map((name) => `.${name}`), ".ltx_tag_item"];

export function openDropped(state: ReaderState, { tag, has, ends }: Opened): void {
  if (SKIP_TAGS.has(tag) || SKIP_CLASSES.some(has) || (has("ltx_tag_item") && state.listKinds.at(-1) === "bullet")) {
    state.skipDepth++;
    ends.push(() => void state.skipDepth--);
  }
}
