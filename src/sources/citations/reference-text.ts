// A bibliography entry as free text -> the fields a resolver can check: arXiv ID, DOI, NBER
// number, title, author surnames, year, venue. Heuristic and pure; what it cannot find it leaves
// out, and the resolver then says what it had to go on.
import { cleanDoi, identifiersIn, withoutIdentifiers } from "./identifiers";
import { asciiFold } from "./names";
import { plainTitle } from "./keys";

export interface ReferenceFields {
  title?: string;
  /** Surnames as written ("Vaswani", "van der Berg"); a structured entry's whole names. */
  authors?: string[];
  /** The entry's author list ends in "and others" (BibTeX) or "et al.": it names only the first authors. */
  authors_open?: boolean;
  year?: number;
  venue?: string;
  /** A structured entry's volume and pages ("521", "436-444"). */
  volume?: string;
  pages?: string;
  doi?: string;
  arxiv_id?: string;
  nber_id?: string;
}

const YEAR = /\b(1[89]\d{2}|20\d{2})[a-z]?\b/;
const VENUE_START =
  /^(in\s|proc(eedings|\.)|arxiv|journal|trans(actions|\.)|advances in|conference|workshop|international|ieee|acm|phys(\.|ics|\b)|nature|science|the annals|econometrica|quarterly|review of|american economic|nber|preprint|technical report|working paper|mnras|apj|a&a)/i;

/** The first identifier of each kind in a reference, as fields (identifiers.ts finds them all). */
export function identifierFields(text: string): Pick<ReferenceFields, "doi" | "arxiv_id" | "nber_id"> {
  const ids = identifiersIn(text);
  const out: Pick<ReferenceFields, "doi" | "arxiv_id" | "nber_id"> = {};
  if (ids.arxiv[0]) out.arxiv_id = ids.arxiv[0];
  if (ids.dois[0]) out.doi = ids.dois[0];
  if (ids.nber[0]) out.nber_id = ids.nber[0];
  return out;
}

/** Splits at sentence ends (not after an initial: "A. Vaswani"), and at a colon after the authors' initials. */
function segments(text: string): string[] {
  return text
    .split(
      /(?<!\b[A-Z])(?<!\b(?:Th|Ch|Ph|Kh|Zh|Sh|Yu|Jr|St|Wm))(?<!\b(?:[Vv]ol|[Nn]o|[Pp]p|[Ee]d|[Ee]ds|[Pp]roc|[Cc]onf|[Ii]nt|[Jj])\.?)[.?!]\s+|(?<=\b[A-Z]\.):\s+/,
    )
    .map((segment) => segment.trim().replace(/[.,;]+$/, ""))
    .filter(Boolean);
}

export function looksLikeAuthors(segment: string): boolean {
  const words = segment
    .replace(/\bet al\b\.?/g, "")
    .split(/[\s,]+/)
    .filter(Boolean);
  if (words.length === 0) return false;
  const lower = words.filter(
    (word) => /^[a-z]/.test(word) && !/^(and|van|von|de|der|den|di|da|du|la|le|dos|del|della)$/.test(word),
  );
  const initials = words.filter((word) => /^[A-Z]\.(-?[A-Z]\.)*$/.test(word));
  return (
    lower.length <= words.length * 0.15 &&
    (segment.includes(",") || /\band\b|&/.test(segment) || initials.length > 0 || words.length <= 3)
  );
}

/** Surnames in an author list: "A. Vaswani, N. Shazeer, and L. Kaiser", "Aubert D., Pichon C.", "Vaswani, A. and Shazeer, N.". */
export function surnamesIn(segment: string): string[] {
  const parts = segment
    .replace(/\bet al\b\.?|\bothers\b/g, "")
    .split(/\s*,\s*|\s+and\s+|\s*&\s*|\s*;\s*/)
    .map((part) => part.trim())
    .filter(Boolean);
  const surnames: string[] = [];
  for (const part of parts) {
    const words = part.split(/\s+/).filter((word) => !/^[A-Z]\.?(-?[A-Z]\.?)*$/.test(word) && /\p{L}{2,}/u.test(word));
    if (words.length === 0) continue;
    // "Ashish Vaswani" -> Vaswani; "Aubert D." -> Aubert: the last word that is not an initial.
    surnames.push(words[words.length - 1]!.replace(/[^\p{L}'’-]/gu, ""));
  }
  return surnames.filter(Boolean).slice(0, 20);
}

/** `minTitleWords`: how many words a segment needs to be read as the title (two finds "Deep learning"). */
export function parseReference(raw: string, minTitleWords = 3): ReferenceFields {
  let text = raw
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\[[^\]]{1,20}\]\s*|^\(?\d{1,3}[.)]\s+/, "");
  const fields: ReferenceFields = { ...identifierFields(text) };
  // Identifiers and links out, so that their digits are not read as years or words.
  text = withoutIdentifiers(text).replace(/\s+/g, " ").trim();
  const year = YEAR.exec(text);
  if (year) fields.year = Number(year[1]);

  const quoted = /[“"«]([^”"»]{8,})[”"»]/.exec(text);
  const parts = segments(text);
  let titleIndex = -1;
  if (quoted) {
    fields.title = quoted[1]!.replace(/[,.]$/, "").trim();
    const before = text.slice(0, quoted.index).replace(/[,.\s]+$/, "");
    if (before) fields.authors = surnamesIn(before.replace(YEAR, ""));
  } else if (parts.length > 0) {
    const first = parts[0]!;
    const authorsFirst =
      !VENUE_START.test(first) && looksLikeAuthors(first.replace(/\(?\b(1[89]|20)\d{2}[a-z]?\)?.*$/, ""));
    if (authorsFirst) {
      // Author-year styles put the year right after the names: "Aubert D., Pichon C., 2004, MNRAS".
      fields.authors = surnamesIn(first.replace(/\(?\b(1[89]|20)\d{2}[a-z]?\)?.*$/, ""));
      titleIndex = parts.findIndex((part, index) => index > 0 && isTitleLike(part, minTitleWords));
    } else if (isTitleLike(first, minTitleWords)) {
      titleIndex = 0;
    }
    if (titleIndex >= 0) fields.title = parts[titleIndex]!.replace(/^\(?\b(1[89]|20)\d{2}[a-z]?\)?[.,]?\s*/, "");
  }
  const venue = parts
    .slice(Math.max(titleIndex + 1, 1))
    .find((part) => VENUE_START.test(part.replace(/^in:?\s+/i, "In ")));
  if (venue)
    fields.venue = venue
      .replace(/^in:?\s+/i, "")
      .replace(YEAR, "")
      .replace(/\(\s*\)/g, "")
      .replace(/[,.\s]+$/, "");
  if (fields.authors && fields.authors.length === 0) delete fields.authors;
  return fields;
}

export function isTitleLike(segment: string, minWords = 3): boolean {
  const words = segment.split(/\s+/);
  const wordy = words.filter((word) => /\p{L}{2,}/u.test(word));
  return (
    wordy.length >= Math.min(2, minWords) &&
    words.length >= minWords &&
    wordy.length >= words.length * 0.6 &&
    !VENUE_START.test(segment) &&
    !/^(pp?\.|pages?|vol\.|volume)\s/i.test(segment) &&
    // A number is not a title ("2015", "12(3):45-67"); a title may start with one ("3D human pose").
    !/^\d+(?![\p{L}])/u.test(segment)
  );
}

/** Title words for comparison: TeX, accents, case and punctuation gone. */
export function titleTokens(title: string): string[] {
  return asciiFold(plainTitle(title))
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Dice coefficient of the two titles' word sets (1 = the same words). */
export function titleSimilarity(a: string, b: string): number {
  const left = new Set(titleTokens(a));
  const right = new Set(titleTokens(b));
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return (2 * shared) / (left.size + right.size);
}

/**
 * A reference written from fields (and links that may carry an identifier), so that fields, a
 * pasted BibTeX/RIS/CSL-JSON entry and free text all take the resolver's one path.
 */
export function textOfFields(fields: ReferenceFields, links = ""): string {
  return [
    fields.authors ? `${fields.authors.join(", ")}${fields.authors_open ? " et al." : ""}` : undefined,
    fields.title,
    fields.venue,
    fields.year,
    fields.arxiv_id ? `arXiv:${fields.arxiv_id}` : undefined,
    fields.doi ? `doi:${cleanDoi(fields.doi)}` : undefined,
    fields.nber_id ? `NBER Working Paper No. ${fields.nber_id.replace(/^w0*/i, "")}` : undefined,
    links.trim() || undefined,
  ]
    .filter((part) => part !== undefined && part !== "")
    .join(". ");
}
