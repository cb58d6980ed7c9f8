// Figures, tables and equations with an id are indexed: their kind, number (from LaTeXML's tag,
// "Figure 3" -> "3", "Table A.1" -> "A.1"), caption (an equation's TeX stands in) and where
// they sit in the text, so that a read can give one figure and the paragraphs that cite it.
import type { FigureEntry } from "../../../text/document";
import type { Opened, ReaderState } from "./state";

/** Figures, tables and equations indexed per paper (a few hundred at most in real papers). */
const MAX_FIGURES = 2_000;

export const FIGURE_SELECTORS = [
  "figure",
  "figcaption",
  "table",
  ".ltx_tag_figure",
  ".ltx_tag_table",
  ".ltx_tag_equation",
];

export function openFigure(state: ReaderState, { element, tag, has, ends }: Opened): void {
  const { out, figures, openFigures } = state;
  const id = element.getAttribute("id");
  const isFloat = tag === "figure" && (has("ltx_figure") || has("ltx_table") || has("ltx_float"));
  const isEquation = tag === "table" && (has("ltx_equation") || has("ltx_equationgroup"));
  if (id && (isFloat || isEquation) && figures.length < MAX_FIGURES) {
    const kind: FigureEntry["kind"] = isEquation ? "equation" : has("ltx_table") ? "table" : "figure";
    const open = {
      entry: { id, kind, number: null, caption: "", start: out.nextOffset(), end: 0 } as FigureEntry,
      caption: null,
      tex: [] as string[],
      tag: null,
    };
    openFigures.push(open);
    ends.push(() => {
      openFigures.splice(openFigures.indexOf(open), 1);
      open.entry.end = out.length;
      if (kind === "equation") open.entry.caption = open.tex.join(" ").replace(/\s+/g, " ").trim().slice(0, 500);
      figures.push(open.entry);
    });
  }
  const current = openFigures.at(-1);
  if (current && tag === "figcaption" && current.entry.kind !== "equation") {
    const caption: string[] = [];
    current.caption = caption;
    ends.push(() => {
      current.entry.caption = caption.join("").replace(/\s+/g, " ").trim().slice(0, 500);
      current.caption = null;
    });
  } else if (current && (has("ltx_tag_figure") || has("ltx_tag_table") || has("ltx_tag_equation"))) {
    const label: string[] = [];
    current.tag = label;
    ends.push(() => {
      const number = /(\d+(?:[.-]\d+)*[a-z]?|[A-Z]\.?\d+(?:\.\d+)*)/.exec(label.join(""));
      current.entry.number = number ? number[1]! : null;
      current.tag = null;
    });
  }
}
