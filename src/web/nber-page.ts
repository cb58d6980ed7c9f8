// /paper/w{n}: one NBER working paper for people, from what nber_get_paper_info answers: title,
// authors, date, abstract, programs, the links (NBER's page, the PDF, its DOIs, its arXiv
// version when the mirror finds one), and its citation to copy or download, as an arXiv paper's page.
import { html } from "hono/html";
import type { z } from "zod";
import type { nberGetPaperInfo } from "../mcp/tools/nber-get-paper-info";
import { type Html, count, page, peopleNotices } from "./layout";
import { citeSection } from "./paper-page";

export type NberRecord = z.output<(typeof nberGetPaperInfo)["output"]>;

/** NBER's numbers: w (working papers), h (historical), t (technical). */
export const NBER_PAPER = /^[wht]\d{1,6}$/i;

const doiHref = (doi: string) => `https://doi.org/${doi.split("/").map(encodeURIComponent).join("/")}`;

export function renderNberPage(paper: NberRecord, bibtex: string): Html {
  const list = (label: string, values: readonly string[] | undefined) =>
    values?.length ? html`<dt>${label}</dt><dd>${values.join(", ")}</dd>` : "";
  const link = (kind: string) => paper.links.find((l) => l.kind === kind)?.id_or_doi;
  const own = link("nber_doi");
  const published = link("published_doi");
  const arxiv = link("arxiv_version");
  return page({
    // NBER's records are plain text, not TeX: "$660 Billion" is money, never a formula.
    title: paper.title,
    body: html`<article><h1>${paper.title}</h1>
<p class="authors">${paper.authors.join(", ")}</p>
<dl class="facts"><dt>NBER</dt><dd>Working paper ${paper.id}</dd>
${paper.date ? html`<dt>Issued</dt><dd><time datetime="${paper.date}">${paper.date}</time></dd>` : ""}
${list("Programs", paper.programs)}${list("Topics", paper.topics)}${list("JEL codes", paper.jel_codes)}
${own ? html`<dt>DOI</dt><dd><a href="${doiHref(own)}">${own}</a></dd>` : ""}
${paper.published_version ? html`<dt>Published</dt><dd>${paper.published_version}${published ? html` (<a href="${doiHref(published)}">${published}</a>)` : ""}</dd>` : ""}
${arxiv ? html`<dt>On arXiv</dt><dd><a href="/paper/${arxiv}">${arxiv}</a></dd>` : ""}
${
  paper.cited_by_count === undefined
    ? ""
    : html`<dt>Cited by</dt><dd>${count(paper.cited_by_count)} (OpenAlex, ${paper.cited_by_count_as_of ?? "cached"})</dd>`
}</dl>
<div class="actions"><a href="${paper.url}">The paper's page on nber.org</a><a href="${paper.pdf_url}">PDF</a></div>
${peopleNotices(paper.notices).map((notice) => html`<p class="notice">${notice}</p>`)}
<h2>Abstract</h2>${paper.abstract ? html`<p class="abstract">${paper.abstract}</p>` : html`<p class="hint">NBER gives no abstract for this paper.</p>`}
${citeSection(paper.id, bibtex)}
<p class="hint">${servedFrom(paper)}</p></article>`,
  });
}

function servedFrom(paper: NberRecord): string {
  if (paper.served_from === "mirror")
    return "From this server's copy of NBER's catalogue: nber.org could not be asked just now.";
  const when = paper.served_from === "cache" && paper.cached_at ? paper.cached_at.slice(0, 10) : "just now";
  return `Read from nber.org ${paper.served_from === "cache" ? `on ${when}` : when}.`;
}
