// /paper/{id}: one arXiv record for people: what the metadata tool answers, its citation in
// three formats, and the opening of its text when a read has already cached it.
import { html } from "hono/html";
import type { z } from "zod";
import type { arxivGetMetadata } from "../mcp/tools/arxiv-get-metadata";
import { type Html, type PageError, count, errorBox, page } from "./layout";
import { authorLine } from "./search-page";
import { texHtml, texText, warmTex } from "./tex";

export type PaperRecord = z.output<(typeof arxivGetMetadata)["output"]>["papers"][number];

export interface PaperView {
  paper: PaperRecord;
  bibtex: string;
  /** The opening of the cached text, when a read has stored it. */
  text: { excerpt: string; source: string; cachedAt: string; more: boolean } | null;
}

/** The downloads of a paper's citation: path suffix, format, media type, file extension. */
export const CITATION_FILES = [
  { suffix: "cite.bib", format: "bibtex", type: "application/x-bibtex", label: "BibTeX (.bib)" },
  { suffix: "cite.ris", format: "ris", type: "application/x-research-info-systems", label: "RIS (.ris)" },
  {
    suffix: "cite.json",
    format: "csl-json",
    type: "application/vnd.citationstyles.csl+json",
    label: "CSL-JSON (.json)",
  },
] as const;

export function renderPaperPage(view: PaperView): Html {
  const { paper, bibtex, text } = view;
  warmTex([
    paper.title,
    paper.abstract,
    paper.comment ?? "",
    paper.journal_ref ?? "",
    ...paper.authors.map((a) => a.name),
  ]);
  // Shown as letters and MathML; the BibTeX box below keeps the record's TeX, as BibTeX should.
  const names = paper.authors.map((author) => texText(author.name));
  const doi = paper.doi ? html`<dt>DOI</dt><dd><a href="https://doi.org/${paper.doi}">${paper.doi}</a></dd>` : "";
  return page({
    title: texText(paper.title),
    body: html`<article><h1>${texHtml(paper.title)}</h1>
<p class="authors">${authorLine(names, paper.authors_total)}${paper.collaboration ? ` (${paper.collaboration})` : ""}</p>
<dl class="facts"><dt>arXiv</dt><dd>${paper.id}</dd>
<dt>Categories</dt><dd>${paper.categories.join(", ")}</dd>
<dt>Submitted</dt><dd><time datetime="${paper.published.slice(0, 10)}">${paper.published.slice(0, 10)}</time></dd>
${paper.journal_ref ? html`<dt>Journal</dt><dd>${texHtml(paper.journal_ref)}</dd>` : ""}${doi}
${
  paper.cited_by_count === undefined
    ? ""
    : html`<dt>Cited by</dt><dd>${count(paper.cited_by_count)} (OpenAlex, ${paper.cited_by_count_as_of ?? "cached"})</dd>`
}
${paper.comment ? html`<dt>Comment</dt><dd>${texHtml(paper.comment)}</dd>` : ""}</dl>
<div class="actions"><a href="${paper.abs_url}">Abstract page on arxiv.org</a><a href="${paper.pdf_url}">PDF</a><a href="${paper.html_url}">HTML</a></div>
<h2>Abstract</h2><p class="abstract">${texHtml(paper.abstract)}</p>
<h2>Versions</h2><ul>${(paper.versions ?? []).map(
      (v) => html`<li>v${v.version}: <time datetime="${v.date.slice(0, 10)}">${v.date.slice(0, 10)}</time></li>`,
    )}</ul>
${citeSection(paper.id, bibtex)}
${textSection(text)}</article>`,
  });
}

/** The record's BibTeX to copy (TeX kept, as BibTeX should) and its three files to download. */
export function citeSection(id: string, bibtex: string): Html {
  return html`<h2 id="cite">Cite</h2><label for="bibtex">BibTeX (select and copy)</label>
<textarea id="bibtex" rows="${Math.min(16, bibtex.split("\n").length + 1)}" readonly>${bibtex}</textarea>
<p class="actions">Download: ${CITATION_FILES.map(
    (file) => html`<a href="/paper/${id}/${file.suffix}" download>${file.label}</a>`,
  )}</p>`;
}

function textSection(text: PaperView["text"]): Html | string {
  if (!text) return "";
  return html`<h2>The text's opening</h2><p class="hint">From ${text.source.replace("_", " ")}, cached
${text.cachedAt.slice(0, 10)}.</p>
<pre>${text.excerpt}${text.more ? "\n…" : ""}</pre>`;
}

export function renderPaperError(id: string, error: PageError): Html {
  return page({
    title: `Paper ${id}`,
    body: html`<h1>Paper ${id}</h1>${errorBox(error)}<p><a href="/search">Search the mirror</a> instead.</p>`,
  });
}
