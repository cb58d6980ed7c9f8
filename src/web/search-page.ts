// /search: the mirror's ranked results for people, from the same tool and query grammar agents use.
import { html } from "hono/html";
import type { z } from "zod";
import type { arxivSearchPapers } from "../mcp/tools/arxiv-search-papers";
import { type Html, type PageError, count, errorBox, page, peopleNotices } from "./layout";
import { texHtml, texText, warmTex } from "./tex";

export type SearchResult = z.output<(typeof arxivSearchPapers)["output"]>;

/** The form's fields as the page reads them from the URL. */
export interface SearchForm {
  q: string;
  category: string;
  from: string;
  to: string;
  sort: "relevance" | "submitted" | "updated";
  start: number;
}

export const SEARCH_PAGE_SIZE = 10;

export function renderSearchPage(
  form: SearchForm,
  outcome: { result: SearchResult } | { error: PageError } | null,
): Html {
  const title = form.q ? `“${form.q}”` : "Search arXiv";
  if (outcome && "result" in outcome)
    warmTex(outcome.result.papers.flatMap((p) => [p.title, p.abstract, ...p.authors.map((a) => a.name)]));
  return page({
    title: form.q ? `Search: ${form.q}` : "Search arXiv",
    query: form.q,
    body: html`<h1>${title}</h1>${searchForm(form)}${
      outcome === null ? help() : "error" in outcome ? errorBox(outcome.error) : results(form, outcome.result)
    }`,
  });
}

function searchForm(form: SearchForm): Html {
  const sorts = [
    ["relevance", "Relevance"],
    ["submitted", "Newest submitted"],
    ["updated", "Last updated"],
  ] as const;
  return html`<form class="search" action="/search" method="get" role="search">
<div class="q"><label for="q">Query</label><input id="q" name="q" type="search" value="${form.q}" maxlength="1000"
 aria-describedby="q-hint"></div>
<div><label for="category">Category</label><input id="category" name="category" value="${form.category}" size="9" placeholder="cs.CL" maxlength="40"></div>
<div><label for="from">Submitted from</label><input id="from" name="from" type="date" value="${form.from}"></div>
<div><label for="to">to</label><input id="to" name="to" type="date" value="${form.to}"></div>
<div><label for="sort">Order</label><select id="sort" name="sort">${sorts.map(
    ([value, label]) => html`<option value="${value}"${form.sort === value ? html` selected` : ""}>${label}</option>`,
  )}</select></div>
<div><button type="submit">Search</button></div></form>
<p class="hint" id="q-hint">arXiv's grammar: <code>ti:</code> <code>au:</code> <code>abs:</code> <code>cat:</code>, <code>AND</code> <code>OR</code> <code>ANDNOT</code>, "phrases".</p>`;
}

function help(): Html {
  return html`<p>Examples: <a href="/search?q=attention+is+all+you+need">attention is all you need</a>,
<a href="/search?q=au%3Ahinton+AND+ti%3Aboltzmann">au:hinton AND ti:boltzmann</a>,
<a href="/search?q=%22dark+matter%22&amp;category=astro-ph">"dark matter" in astro-ph</a>.</p>`;
}

function results(form: SearchForm, result: SearchResult): Html {
  const total = `${count(result.total)}${result.total_is_lower_bound ? "+" : ""}`;
  const first = result.returned === 0 ? 0 : result.start + 1;
  const source =
    result.served_from === "mirror"
      ? "from the mirror"
      : result.served_from === "cache"
        ? "from the cache"
        : "from arXiv";
  return html`<p class="meta" aria-live="polite">${
    result.returned === 0 ? "No results" : `Results ${first}–${result.start + result.returned} of ${total}`
  } (${source})</p>
${peopleNotices(result.notices).map((notice) => html`<p class="notice">${notice}</p>`)}
<ol class="results" start="${first || 1}">${result.papers.map(
    (paper) => html`<li><a class="result-title" href="/paper/${paper.id}">${texHtml(paper.title)}</a>
<div class="meta">${authorLine(
      paper.authors.map((a) => texText(a.name)),
      paper.authors_total,
    )} · <span>${paper.primary_category}</span> ·
<time datetime="${paper.published.slice(0, 10)}">${paper.published.slice(0, 10)}</time> · ${paper.id}${
      paper.cited_by_count === undefined ? "" : ` · cited by ${count(paper.cited_by_count)}`
    }</div>
${abstractBlock(paper.abstract)}</li>`,
  )}</ol>
<nav class="pager" aria-label="Pages">${
    result.start > 0
      ? html`<a rel="prev" href="${searchHref(form, Math.max(0, result.start - SEARCH_PAGE_SIZE))}">← Previous page</a>`
      : html`<span></span>`
  }${result.next_start === null ? "" : html`<a rel="next" href="${searchHref(form, Number.parseInt(String(result.next_start), 10))}">Next page →</a>`}</nav>`;
}

/** An abstract's opening sentences are shown; the rest is behind a disclosure, whole (no "…"). */
const OPENING_CHARS = 300;

function abstractBlock(abstract: string): Html {
  const cut = openingEnd(abstract, OPENING_CHARS);
  if (cut === null) return html`<p class="abstract">${texHtml(abstract)}</p>`;
  return html`<details class="abstract"><summary>${texHtml(abstract.slice(0, cut))}<span class="more"> More</span></summary>
<p>${texHtml(abstract.slice(cut))}</p></details>`;
}

/**
 * Where the abstract's opening ends: after the last sentence that ends within `chars` (or the
 * first sentence, when it is longer), never inside a formula or a brace group, so that each part
 * converts on its own. Null when the abstract is short enough to show whole.
 */
export function openingEnd(abstract: string, chars: number): number | null {
  if (abstract.length <= chars + 100) return null;
  let best: number | null = null;
  for (const match of abstract.matchAll(/[.!?]\s+(?=\S)/g)) {
    const end = match.index + match[0].length;
    if (!closed(abstract.slice(0, end))) continue;
    if (end > chars && best !== null) break;
    best = end;
    if (end > chars) break;
  }
  return best !== null && abstract.length - best >= 40 ? best : null;
}

/** No formula or brace group open at the end of the text. */
function closed(text: string): boolean {
  const stripped = text.replace(/\\./g, "");
  const dollars = (stripped.match(/\$/g) ?? []).length;
  const depth = (stripped.match(/\{/g) ?? []).length - (stripped.match(/\}/g) ?? []).length;
  const delimited = (text.match(/\\[([]/g) ?? []).length === (text.match(/\\[)\]]/g) ?? []).length;
  return dollars % 2 === 0 && depth === 0 && delimited;
}

/** Authors as the tools shorten them: the first ten, then how many more. */
export function authorLine(names: readonly string[], total: number | undefined): string {
  const more = total !== undefined && total > names.length ? ` and ${count(total - names.length)} more` : "";
  return names.join(", ") + more;
}

export function searchHref(form: SearchForm, start: number): string {
  const params = new URLSearchParams({ q: form.q });
  if (form.category) params.set("category", form.category);
  if (form.from) params.set("from", form.from);
  if (form.to) params.set("to", form.to);
  if (form.sort !== "relevance") params.set("sort", form.sort);
  if (start > 0) params.set("start", String(start));
  return `/search?${params}`;
}
