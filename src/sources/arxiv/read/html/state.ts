// What the HTML reader's handlers share while a page streams through: the text being written,
// the outline, figures and references found so far, and what is open (a heading, a float, a
// bibliography item, tables and lists) or being skipped. One handler module per kind of element
// reads and writes it (dropped, math, sections, paragraphs, tables, figures, bibliography).
import type { FigureEntry, MarkedUpReference, OutlineEntry } from "../../../text/document";
import { TextBuilder } from "./text-builder";

export interface TableState {
  equation: boolean;
  rows: number;
  cells: number;
  firstRowCells: number;
}

export interface OpenFigure {
  entry: FigureEntry;
  /** Text of its figcaption while it is read. */
  caption: string[] | null;
  /** An equation's TeX, which becomes its caption. */
  tex: string[];
  /** Text of its label ("Figure 3") while it is read. */
  tag: string[] | null;
}

export interface OpenReference {
  entry: MarkedUpReference;
  block: string[] | null;
  label: string[] | null;
}

export interface ReaderState {
  out: TextBuilder;
  outline: OutlineEntry[];
  /** Inside an element whose text is dropped (navigation, scripts, footnote marks). */
  skipDepth: number;
  /** Inside MathML: its text is replaced by the TeX. */
  mathDepth: number;
  pendingTex: { tex: string; display: boolean } | null;
  texCapture: string[] | null;
  inTexAnnotation: boolean;
  heading: { level: number; offset: number; id: string; parts: string[] } | null;
  lastSectionId: string;
  title: string | null;
  /** Bibliography items numbered so far. */
  bibliography: number;
  references: MarkedUpReference[];
  reference: OpenReference | null;
  figures: FigureEntry[];
  /** Floats and equations being read (nested: a subfigure inside a figure). */
  openFigures: OpenFigure[];
  tables: TableState[];
  listKinds: ("bullet" | "tagged")[];
}

export function readerState(maxChars: number): ReaderState {
  return {
    out: new TextBuilder(maxChars),
    outline: [],
    skipDepth: 0,
    mathDepth: 0,
    pendingTex: null,
    texCapture: null,
    inTexAnnotation: false,
    heading: null,
    lastSectionId: "",
    title: null,
    bibliography: 0,
    references: [],
    reference: null,
    figures: [],
    openFigures: [],
    tables: [],
    listKinds: [],
  };
}

/** One element as every handler sees it, and the work its end tag will do (run last-first). */
export interface Opened {
  element: Element;
  tag: string;
  classes: string[];
  has(name: string): boolean;
  ends: (() => void)[];
  /** No enclosing element was being dropped when this one opened. */
  wasActive: boolean;
}

/** A handler of the element chain where at most one applies: true when it took the element. */
export type ChainHandler = (state: ReaderState, opened: Opened) => boolean;
