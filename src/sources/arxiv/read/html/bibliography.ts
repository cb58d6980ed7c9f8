// The bibliography: each item is numbered in the text ("12. ...") and kept as a structured
// reference (its label, its blocks of text and its links) for arxiv_get_references to resolve.
import { decodeHTMLAttribute } from "entities";
import type { MarkedUpReference } from "../../../text/document";
import type { ChainHandler, Opened, ReaderState } from "./state";

/** A bibliography longer than this is kept as text only (the structured list is for resolving). */
const MAX_REFERENCES = 2_000;

export const BIBLIOGRAPHY_SELECTORS = [".ltx_bibblock", ".ltx_tag_bibitem", ".ltx_bibitem a"];

export const openBibItem: ChainHandler = (state, { tag, has, ends }) => {
  if (tag !== "li" || !has("ltx_bibitem")) return false;
  state.out.breakLine(1);
  state.bibliography++;
  state.out.raw(`${state.bibliography}. `);
  const current = { entry: { label: "", blocks: [], links: [] } as MarkedUpReference, block: null, label: null };
  state.reference = current;
  ends.push(() => {
    current.entry.blocks = current.entry.blocks.map((block) => block.replace(/\s+/g, " ").trim()).filter(Boolean);
    if (state.references.length < MAX_REFERENCES) state.references.push(current.entry);
    if (state.reference === current) state.reference = null;
  });
  return true;
};

/** Inside an item: its blocks, its label and its links, each collected apart. */
export function openBibPart(state: ReaderState, { element, tag, has, ends }: Opened): void {
  const current = state.reference;
  if (!current) return;
  if (has("ltx_bibblock")) {
    const block: string[] = [];
    current.block = block;
    ends.push(() => {
      current.entry.blocks.push(block.join(""));
      if (current.block === block) current.block = null;
    });
  } else if (has("ltx_tag_bibitem")) {
    const label: string[] = [];
    current.label = label;
    ends.push(() => {
      current.entry.label = label.join("").replace(/\s+/g, " ").trim();
      current.label = null;
    });
  } else if (tag === "a") {
    const href = element.getAttribute("href");
    if (href && current.entry.links.length < 10) current.entry.links.push(decodeHTMLAttribute(href).slice(0, 500));
  }
}
