// Every identifier a reference carries, wherever it stands and however it is spelled: arXiv IDs
// (arXiv:1706.03762v5, "arXiv preprint arXiv:1706.03762", hep-th/9901001, abs/pdf/html links,
// CoRR abs/...), DOIs (doi:, doi.org links, arXiv's 10.48550 and NBER's 10.3386, a DOI broken
// across a line), and NBER numbers (NBER Working Paper No. 4679, NBER WP 4679, Working Paper 4679,
// w4679, nber.org links). "Working Paper 2018" without No. is a year (ACS, Vancouver print the year there). Pure; the
// resolver looks each one up and checks it against the text.
import { parseArxivId } from "../arxiv/ids";

export interface Identifiers {
  /** arXiv IDs as cited (a version kept when given), first seen first. */
  arxiv: string[];
  /** DOIs without a resolver prefix; arXiv's and NBER's DOIs also add their ID to `arxiv` / `nber`. */
  dois: string[];
  /** NBER numbers as w<n> (also h<n> and t<n> for the historical and technical series). */
  nber: string[];
}

const MAX_EACH = 4;

// "arXiv:1706.03762", "arXiv 1706.03762", "arxiv.org/abs/...", "CoRR abs/1706.03762", "[hep-th/9901001]".
const ARXIV_PREFIXED =
  /(?:arxiv\s*[:.]?\s*(?:e-?print\s*)?|arxiv\.org\/(?:abs|pdf|html|format)\/|\bcorr\s+abs\/|\babs\/|eprint\s*[=:]?\s*\{?)((?:[a-z]+(?:-[a-z]+)?(?:\.[a-z]{2})?\/\d{7})|\d{4}\.\d{4,5})(v\d+)?/gi;
const LEGACY_BARE = /(?<![\w./-])([a-z]+(?:-[a-z]+)?(?:\.[A-Z]{2})?\/\d{7})(v\d+)?(?![\w/])/g;
// A bare new-style ID counts only in a reference that says arXiv somewhere (otherwise it may be a number).
const NEW_BARE = /(?<![\w./-])(\d{4}\.\d{4,5})(v\d+)?(?![\w.]*\d)/g;
const DOI_START = /\b10\.\d{4,9}\/\S/g;
const NBER_FORMS = [
  /\bNBER\b[^.;]{0,40}?\b(?:(?:No\.?|Number|Num\.|#)\s*[:.]?\s*w?(\d{3,5})|(?:Paper|WP|Series)\s*[:.]?\s*(?:w(\d{3,5})|(?!(?:19[5-9]\d|20[0-3]\d)\b)(\d{3,5})))\b/gi,
  /\bWorking\s+Paper\s+(?:(?:No\.?\s*|Number\s+|#\s*|w)(\d{3,5})|(?!(?:19[5-9]\d|20[0-3]\d)\b)(\d{3,5}))\b/gi,
  /\bnber\.org\/(?:papers|system\/files\/working_papers)\/(w\d{3,5})\b/gi,
  /\bNBER\b[^.;]{0,20}?\b(w\d{3,5})\b/gi,
  /(?<![\w/.-])(w\d{4,5})(?![\w/-])/g,
];

export function identifiersIn(raw: string): Identifiers {
  const text = raw.slice(0, 20_000);
  const out: Identifiers = { arxiv: [], dois: [], nber: [] };
  const add = (list: string[], value: string) => {
    if (!list.includes(value) && list.length < MAX_EACH) list.push(value);
  };
  const arxivCandidates = [...text.matchAll(ARXIV_PREFIXED), ...text.matchAll(LEGACY_BARE)];
  if (/arxiv|e-?print|preprint/i.test(text)) arxivCandidates.push(...text.matchAll(NEW_BARE));
  arxivCandidates.sort((a, b) => a.index - b.index);
  for (const match of arxivCandidates) {
    const id = match[1]! + (match[2] ?? "");
    const parsed = parseArxivId(id);
    if (parsed.ok) add(out.arxiv, parsed.id.base + (parsed.id.version !== undefined ? `v${parsed.id.version}` : ""));
  }
  for (const doi of doisIn(text)) {
    add(out.dois, doi);
    const arxiv = /^10\.48550\/arxiv\.(.+)$/i.exec(doi);
    if (arxiv) {
      const parsed = parseArxivId(arxiv[1]!);
      if (parsed.ok) add(out.arxiv, formatParsed(parsed.id));
    }
    const nber = /^10\.3386\/([wth]\d{1,5})$/i.exec(doi);
    if (nber) add(out.nber, normalNber(nber[1]!));
  }
  const nberHits: { index: number; id: string }[] = [];
  for (const pattern of NBER_FORMS)
    for (const match of text.matchAll(pattern))
      nberHits.push({ index: match.index, id: normalNber(match.slice(1).find((group) => group !== undefined)!) });
  nberHits.sort((a, b) => a.index - b.index);
  for (const hit of nberHits) add(out.nber, hit.id);
  return out;
}

function formatParsed(id: { base: string; version?: number }): string {
  return id.base + (id.version !== undefined ? `v${id.version}` : "");
}

/** "4679" / "w4679" / "W04679" -> "w4679" (NBER's own spelling: at least four digits). */
function normalNber(raw: string): string {
  const series = /^[th]/i.test(raw) ? raw[0]!.toLowerCase() : "w";
  const digits = raw.replace(/^[wth]/i, "").replace(/^0+(?=\d{4})/, "");
  return `${series}${digits.padStart(4, "0")}`;
}

/**
 * DOIs in a text. A DOI runs to the next space; when it ends a line on a character a DOI does not
 * end with (. - / _) and the next line goes on without a space, the two are one DOI broken by a line.
 */
export function doisIn(text: string): string[] {
  const found: string[] = [];
  for (const start of text.matchAll(DOI_START)) {
    let end = start.index;
    let doi = "";
    for (;;) {
      const rest = /^[^\s"<>]+/.exec(text.slice(end))?.[0] ?? "";
      doi += rest;
      end += rest.length;
      const gap = /^[ \t]*\r?\n[ \t]*(?=[\w])/.exec(text.slice(end));
      if (!gap || !/[./_-]$/.test(doi) || doi.length > 200) break;
      end += gap[0].length;
    }
    const clean = cleanDoi(doi);
    if (/^10\.\d{4,9}\/.+/.test(clean) && !found.includes(clean)) found.push(clean);
  }
  return found;
}

export function cleanDoi(raw: string): string {
  return raw
    .replace(/^(?:https?:\/\/)?(?:dx\.)?doi\.org\//i, "")
    .replace(/^doi:\s*/i, "")
    .replace(/[.,;:)\]}>'"]+$/, "")
    .trim();
}

/** The text with its identifiers and links blanked, so their digits are not read as years or words. */
export function withoutIdentifiers(text: string): string {
  return text
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/\b10\.\d{4,9}\/\S+/g, " ")
    .replace(ARXIV_PREFIXED, " ")
    .replace(LEGACY_BARE, " ")
    .replace(/\bdoi\s*:?/gi, " ")
    .replace(/\bw\d{4,5}\b/g, " ")
    .replace(
      /\b(?:NBER\s+)?(?:Working\s+Paper|WP)\s*(?:(?:No\.?|Number|#)\s*w?\d{3,5}|w\d{3,5}|(?!(?:19[5-9]\d|20[0-3]\d)\b)\d{3,5})\b/gi,
      " NBER ",
    )
    .replace(/\b(?:No\.?|Number)\s*\d{3,5}\b/g, " ")
    .replace(/(?<![\w.])\d{4}\.\d{4,5}(v\d+)?/g, " ");
}
