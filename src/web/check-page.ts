// /check: a bibliography pasted or uploaded, checked entry by entry with the tool's engine. The
// answer streams: the page's head and a progress line per step first, then the verdicts, the
// differences side by side and the corrected BibTeX. No script: a streamed page shows progress.
import { html } from "hono/html";
import type { BibliographyCheck, CheckedEntry } from "../sources/citations/check-bibliography";
import { type Html, type PageError, count, errorBox, page, peopleNotices } from "./layout";
import { NBER_PAPER } from "./nber-page";
import { texHtml, warmTex } from "./tex";

export const CHECK_EXAMPLE = `@article{vaswani2017,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam},
  year = {2017},
  eprint = {1706.03762}
}`;

export function renderCheckForm(text = "", error?: PageError): Html {
  return page({
    title: "Check a bibliography",
    body: html`<h1>Check a bibliography</h1>
<p>Paste a bibliography (BibTeX, RIS, CSL-JSON, or one reference per line) or upload a <code>.bib</code> file. Each
entry is looked up in arXiv, NBER and Crossref and comes back <strong>verified</strong>, <strong>differs</strong>
(which fields), <strong>not found</strong> (what was tried), <strong>unchecked</strong> (a source could not be asked) or
<strong>unreadable</strong>. Up to 200 entries.</p>
${error ? errorBox(error) : ""}
<form action="/check" method="post" enctype="multipart/form-data">
<p><label for="bibliography">Bibliography</label><br>
<textarea id="bibliography" name="bibliography" rows="14" placeholder="${CHECK_EXAMPLE}">${text}</textarea></p>
<p><label for="file">or a .bib, .ris or .json file</label><br><input id="file" name="file" type="file" accept=".bib,.ris,.json,.txt,text/plain"></p>
<p><button type="submit">Check</button></p></form>`,
  });
}

export const checkHead = (entries: number): Html =>
  html`<h1>Checking ${count(entries)} entr${entries === 1 ? "y" : "ies"}</h1>
<section aria-label="Progress" class="progress"><p class="progress-line" role="status"><progress max="${entries}" value="0"></progress> Reading the bibliography…</p>`;

export const progressLine = (done: number, total: number): Html =>
  html`<p class="progress-line" role="status"><progress max="${total}" value="${done}"></progress> ${count(done)} of ${count(total)} checked…</p>`;

export function checkResults(result: BibliographyCheck, corrected: string, seconds: number): Html {
  const s = result.summary;
  warmTex(result.entries.map((entry) => entry.title ?? ""));
  return html`</section><section class="checked" aria-labelledby="verdicts"><h2 id="verdicts">Verdicts</h2>
<p class="summary"><span>${count(s.entries)} entries (${result.format})</span><span class="verdict-verified">${s.verified} verified</span>
<span class="verdict-differs">${s.differs} differs</span><span class="verdict-not_found">${s.not_found} not found</span>
<span class="verdict-unchecked">${s.unchecked} unchecked</span><span class="verdict-unreadable">${s.unreadable} unreadable</span>
<span class="hint">in ${seconds.toFixed(1)} s</span></p>
${peopleNotices(result.notices).map((notice) => html`<p class="notice">${notice}</p>`)}
<div class="scroll"><table><thead><tr><th scope="col">#</th><th scope="col">Verdict</th><th scope="col">Paper</th><th scope="col">Details</th></tr></thead>
<tbody>${result.entries.map(entryRow)}</tbody></table></div>
<h2 id="corrected">Corrected BibTeX</h2>
<p class="hint">Verified and differing entries are replaced by the record's BibTeX; the rest are kept as you cited them, marked to check by hand.</p>
<form action="/check/corrected.bib" method="post"><label for="corrected-text">Corrected BibTeX (select and copy)</label>
<textarea id="corrected-text" name="bibtex" rows="12" readonly>${corrected}</textarea>
<p><button type="submit">Download corrected .bib</button></p></form>
<p><a href="/check">Check another bibliography</a></p></section>`;
}

function entryRow(entry: CheckedEntry): Html {
  const href = entry.id ? recordHref(entry.id) : null;
  const name = href ? html`<a href="${href}">${entry.id}</a>` : entry.id;
  // The record's title as letters and MathML; the differences below show the fields as written, which is what differs.
  const paper = entry.id ? html`${name}${entry.title ? html`<br>${texHtml(entry.title)}` : ""}` : "";
  return html`<tr id="entry-${entry.n}"><td>${entry.n}</td><td class="verdict verdict-${entry.verdict}">${entry.verdict.replace("_", " ")}</td>
<td>${paper}</td><td>${details(entry)}</td></tr>`;
}

const DOI = /^10\.\d{4,9}\/\S+$/;
const ARXIV_ID = /^[\w.-]+(?:\/\d+)?(?:v\d+)?$/;
const OPENALEX_WORK = /^(?:https:\/\/openalex\.org\/)?(W\d+)$/i;

/**
 * Where a matched record lives: an arXiv or NBER paper has its page here; a Crossref work (and an
 * OpenAlex work with a DOI) at its DOI; an OpenAlex work without one on openalex.org. Null for an
 * ID none of these can place: the entry then names it without a link. (/paper/ serves arXiv and
 * NBER records only: /paper/crossref:... would be a 400.)
 */
function recordHref(id: string): string | null {
  const colon = id.indexOf(":");
  const source = colon < 0 ? "" : id.slice(0, colon).toLowerCase();
  const rest = colon < 0 ? id : id.slice(colon + 1);
  if (source === "arxiv") return ARXIV_ID.test(rest) ? `/paper/${rest}` : null;
  if (source === "nber") return NBER_PAPER.test(rest) ? `/paper/${rest}` : null;
  if (DOI.test(rest) && ["crossref", "openalex", "doi", ""].includes(source)) return doiUrl(rest);
  const work = source === "openalex" ? OPENALEX_WORK.exec(rest)?.[1] : undefined;
  return work ? `https://openalex.org/${work.toUpperCase()}` : null;
}

/** A DOI's address at doi.org, each character that means something in a URL (?, #, ;, <, >, ...) escaped. */
const doiUrl = (doi: string) => `https://doi.org/${doi.split("/").map(encodeURIComponent).join("/")}`;

function details(entry: CheckedEntry): Html | string {
  if (entry.duplicate_of) return `Same paper as entry ${entry.duplicate_of}.`;
  switch (entry.verdict) {
    case "verified":
      return entry.also ? `Also ${entry.also.join(", ")}.` : "Every field cited matches the record.";
    case "differs":
      return html`<table class="differences"><thead><tr><th scope="col">Field</th><th scope="col">Cited</th><th scope="col">Record</th></tr></thead>
<tbody>${(entry.differences ?? []).map(
        (d) => html`<tr><th scope="row">${d.field}</th><td>${d.cited ?? "—"}</td><td>${d.record ?? "—"}</td></tr>`,
      )}</tbody></table>`;
    case "not_found":
      return html`No such paper found. Tried: ${(entry.tried ?? []).join("; ")}.`;
    case "unchecked":
      return html`Could not ask ${(entry.unchecked ?? []).map((u) => `${u.source} (${u.reason})`).join(", ")}; try again later.`;
    case "unreadable":
      return entry.why ?? "The entry could not be read.";
  }
}

/**
 * The bibliography with each matched entry replaced by the record's BibTeX and every other entry
 * kept as cited (BibTeX) or as a comment (other formats), marked for a person to check.
 */
export function correctedBibtex(result: BibliographyCheck, asCited: readonly string[]): string {
  const parts = result.entries.map((entry) => {
    const original = asCited[entry.n - 1] ?? "";
    if (entry.bibtex && (entry.verdict === "verified" || entry.verdict === "differs"))
      return `% [${entry.n}] ${entry.verdict}${entry.verdict === "differs" ? ": corrected from the record" : ""}\n${entry.bibtex}`;
    const kept =
      result.format === "bibtex"
        ? original
        : original
            .split("\n")
            .map((line) => `% ${line}`)
            .join("\n");
    return `% [${entry.n}] ${entry.verdict.replace("_", " ")}: kept as cited; check it by hand\n${kept}`;
  });
  return `${parts.join("\n\n")}\n`;
}

export function renderCheckFailure(error: PageError): string {
  return `</section>${String(errorBox(error))}<p><a href="/check">Try again</a></p>`;
}
