// Sections and headings: each heading becomes a Markdown heading (its level from LaTeXML's title
// class: the document title #, sections ##, subsections ###, ...) and an outline entry with the
// id of its section and its offset in the text; the first level-1 heading is the title.
import { slug } from "../../../text/document";
import type { ChainHandler, Opened, ReaderState } from "./state";

const TITLE_LEVEL: Record<string, number> = {
  ltx_title_document: 1,
  ltx_title_section: 2,
  ltx_title_appendix: 2,
  ltx_title_bibliography: 2,
  ltx_title_abstract: 2,
  ltx_title_subsection: 3,
  ltx_title_subsubsection: 4,
  ltx_title_paragraph: 5,
  ltx_title_subparagraph: 6,
};
const HEADING = /^h[1-6]$/;

export const SECTION_SELECTORS = [
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "section",
  "article",
  ".ltx_appendix",
  ".ltx_bibliography",
];

/** The section an element opens names the headings inside it (ids such as S3.SS1). */
export function openSection(state: ReaderState, { element, tag, has }: Opened): void {
  if (
    (tag === "section" || tag === "article" || has("ltx_appendix") || has("ltx_bibliography")) &&
    element.getAttribute("id")
  ) {
    state.lastSectionId = element.getAttribute("id")!;
  } else if (has("ltx_abstract")) {
    state.lastSectionId = "abstract";
  }
}

export const openHeading: ChainHandler = (state, { element, tag, classes, ends }) => {
  if (!HEADING.test(tag) || state.heading) return false;
  const { out } = state;
  const titleClass = classes.find((name) => name in TITLE_LEVEL);
  const level = titleClass ? TITLE_LEVEL[titleClass]! : Number(tag.slice(1));
  out.breakLine(2);
  const offset = out.mark();
  out.raw(`${"#".repeat(level)} `);
  const current = { level, offset, id: element.getAttribute("id") ?? state.lastSectionId, parts: [] as string[] };
  state.heading = current;
  ends.push(() => {
    state.heading = null;
    const text = current.parts.join("").replace(/\s+/g, " ").trim();
    if (level === 1 && state.title === null) state.title = text;
    state.outline.push({ level, id: current.id || slug(text), title: text, offset: current.offset });
    out.breakLine(2);
  });
  return true;
};
