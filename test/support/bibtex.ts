// BibTeX read back by citation.js's parser: raw fields (it throws on any syntax error), and the same entries
// as CSL with TeX decoded.
import { Cite, plugins } from "@citation-js/core";
import "@citation-js/plugin-bibtex";

export interface BibEntry {
  type: string;
  label: string;
  properties: Record<string, string>;
}

export function parseBibtex(text: string): { entries: BibEntry[]; csl: Record<string, any>[] } {
  return { entries: plugins.input.chainLink(text) as BibEntry[], csl: new Cite(text).data as Record<string, any>[] };
}
