// An entry's claims against a record, field by field: the title (the whole of it), the authors
// as a list (count, order, family names and initials; "and others" may stand for the rest), the
// year, the venue, the DOI. What it returns is each field that disagrees, with the cited and the
// recorded value; a field the entry does not state, or the record does not hold, is no
// difference. Pure: papers_check_bibliography judges every record through this one comparison.
import { decodeHTML } from "entities";
import { asciiFold, splitName } from "./names";
import type { ReferenceFields } from "./reference-text";
import { compact } from "./text-match";
import { isPreprintVenue, isPublisher, isSeries, sameVenue } from "./venues";

/**
 * What a structured entry states (its fields as read, entry-formats.ts): the whole names of its
 * authors in order, and whether "and others" ends them. A DOI of arXiv's or NBER's own names the
 * record itself and is compared as its identifier, not here.
 */
export type Claims = Pick<
  ReferenceFields,
  "title" | "authors" | "authors_open" | "year" | "venue" | "volume" | "pages" | "doi"
>;

export interface RecordFacts {
  /** Where the record is from: arXiv's titles and author lists are whole; Crossref's may lack a subtitle or authors. */
  source: "arxiv" | "nber" | "crossref" | "openalex";
  title: string;
  /** The author list: whole, or its first names when `authors_total` says how many there are. */
  authors: readonly string[];
  authors_total?: number;
  /** The record's year first, then other years it is known by (the journal version's, print and online). */
  years: readonly number[];
  /** The names the record gives its venue; empty when it names none (a preprint, a series). */
  venues: readonly string[];
  /** The volume and first page (or article number) the record gives, when it gives them. */
  volume?: string | null;
  first_page?: string | null;
  /** An arXiv preprint: a conference year one after its first version's is its published version's. */
  preprint: boolean;
  /** A preprint that no source knows as published anywhere. */
  unpublished?: boolean;
  /** The record's DOIs, lower case. */
  dois: readonly string[];
  /** Cited DOIs that no agency resolves (so a record without a DOI cannot be carrying them). */
  absent_dois?: readonly string[];
}

export type ClaimField = "title" | "authors" | "year" | "venue" | "volume" | "pages" | "doi";

export interface ClaimDifference {
  field: ClaimField;
  cited: string | null;
  record: string | null;
}

/** Authors shown in a difference: enough to see which, never a 2,831-name list. */
const SHOWN_AUTHORS = 8;

export function compareClaims(claims: Claims, record: RecordFacts): ClaimDifference[] {
  const out: ClaimDifference[] = [];
  if (claims.title && !sameTitle(claims.title, record.title, record.source !== "arxiv"))
    out.push({ field: "title", cited: claims.title, record: record.title });
  if (claims.authors && claims.authors.length > 0 && record.authors.length > 0) {
    const problem = authorListProblem(
      claims.authors,
      !!claims.authors_open,
      record.authors,
      record.authors_total,
      record.source,
    );
    if (problem)
      out.push({
        field: "authors",
        cited: `${shownAuthors(claims.authors, claims.authors.length)}${claims.authors_open ? ", and others" : ""} (${problem})`,
        record: shownAuthors(record.authors, record.authors_total ?? record.authors.length),
      });
  }
  if (claims.year !== undefined && record.years.length > 0 && !yearAgrees(claims, record))
    out.push({ field: "year", cited: String(claims.year), record: String(record.years[0]) });
  const venues = record.venues.filter((name) => name.trim() && !isSeries(name));
  const venueClaimed = !!claims.venue && !isPreprintVenue(claims.venue) && !isPublisher(claims.venue);
  if (venueClaimed && record.unpublished)
    out.push({ field: "venue", cited: claims.venue ?? null, record: "arXiv preprint (no published version known)" });
  else if (venueClaimed && venues.length > 0) {
    const preprintRecord = venues.every(isPreprintVenue);
    if (!preprintRecord && !venues.some((name) => sameVenue(claims.venue!, name)))
      out.push({ field: "venue", cited: claims.venue ?? null, record: venues[0]! });
  }
  // Volume and first page, when both sides give them (leading zeros and a page range's end aside).
  const number = (value: string) =>
    value
      .trim()
      .split(/\s*[-–]+\s*/)[0]!
      .replace(/^0+(?=\w)/, "")
      .toLowerCase();
  // JHEP and JCAP number their volumes by year and issue: "05", "0705" and "2007" are one volume written three ways.
  const yearIssue = (a: string, b: string) => /^\d{1,2}$/.test(a.trim()) && /^\d{4}$/.test(b.trim());
  if (
    claims.volume &&
    record.volume &&
    number(claims.volume) !== number(record.volume) &&
    !yearIssue(claims.volume, record.volume) &&
    !yearIssue(record.volume, claims.volume)
  )
    out.push({ field: "volume", cited: claims.volume, record: record.volume });
  if (claims.pages && record.first_page && number(claims.pages) !== number(record.first_page))
    out.push({ field: "pages", cited: claims.pages, record: record.first_page });
  if (claims.doi && !/^10\.(48550|3386)\//.test(bareDoi(claims.doi))) {
    const doi = bareDoi(claims.doi);
    const absent = (record.absent_dois ?? []).some((d) => bareDoi(d) === doi);
    if ((record.dois.length > 0 && !record.dois.map(bareDoi).includes(doi)) || (record.dois.length === 0 && absent))
      out.push({ field: "doi", cited: claims.doi, record: record.dois[0] ?? null });
  }
  return out;
}

/**
 * A DOI as registered: lower case, without what a link adds after it (a landing page's "/full",
 * "/abstract", "/pdf") or bioRxiv's and medRxiv's version suffix ("v1"), which are not part of it.
 */
export function bareDoi(doi: string): string {
  const lower = doi
    .trim()
    .toLowerCase()
    .replace(/^(?:(?:https?:\/\/)?(?:www\.|dx\.)?doi\.org\/|doi:?\s*)/, "")
    .replace(/\/(full|abstract|pdf|epdf|html|meta)$/, "")
    .replace(/[.,;/]+$/, "");
  // bioRxiv's and arXiv's DOIs may carry the version cited; the DOI is the work's.
  return /^10\.(1101\/|48550\/arxiv\.)/.test(lower) ? lower.replace(/v\d+$/, "") : lower;
}

/**
 * The cited title is the record's: the same words (case, punctuation and TeX aside), or the
 * record's title with its subtitle, which records often leave out ("Looking to listen at the
 * cocktail party" for "...: a speaker-independent audio-visual model"), when the record's own
 * title says enough (four words or more) and the cited one goes on after a colon or a dash.
 */
export function sameTitle(citedTitle: string, recordedTitle: string, recordMayLackSubtitle = true): boolean {
  // Either side may carry HTML entities (DBLP's export writes "&amp;" and "&apos;" into BibTeX).
  const cited = decodeHTML(citedTitle);
  const recorded = decodeHTML(recordedTitle);
  const a = compact(cited);
  const b = compact(recorded);
  if (a === b) return true;
  // The citation leaves the record's subtitle out; or the record (Crossref, OpenAlex) leaves the cited one out.
  const mainOf = (title: string) => /^(.+?)\s*(?::|\s[-–—]\s)\s*\S/.exec(title)?.[1];
  const citedMain = mainOf(cited);
  const recordedMain = mainOf(recorded);
  if (recordedMain && compact(recordedMain) === a && cited.trim().split(/\s+/).length >= 4) return true;
  return recordMayLackSubtitle && !!citedMain && compact(citedMain) === b && recorded.trim().split(/\s+/).length >= 4;
}

function yearAgrees(claims: Claims, record: RecordFacts): boolean {
  const year = claims.year!;
  if (record.years.includes(year)) return true;
  // A preprint cited where it was published: the proceedings usually come the year after its first version.
  return record.preprint && !!claims.venue && !isPreprintVenue(claims.venue) && year === record.years[0]! + 1;
}

function shownAuthors(names: readonly string[], total: number): string {
  const shown = names.slice(0, SHOWN_AUTHORS).join(", ");
  return total > SHOWN_AUTHORS ? `${shown}, ... (${total} in all)` : shown;
}

interface Person {
  family: string;
  /** The family name's last word (particles and compounds dropped: "van de Meent" -> "meent"). */
  last: string;
  initial: string;
  initials: string[];
  /** Every word of the name, folded. */
  words: string[];
  literal: boolean;
}

function person(raw: string): Person {
  const name = splitName(raw.replace(/[{}]/g, ""));
  const family = asciiFold(name.literal ?? name.family)
    .replace(/[^a-z]+/g, " ")
    .trim();
  return {
    family: family.replace(/ /g, ""),
    last: family.split(" ").at(-1) ?? "",
    initial: asciiFold(name.given)
      .replace(/[^a-z]/g, "")
      .charAt(0),
    // Every given name's initial: "H. Brendan McMahan" is cited as "Brendan McMahan" too.
    initials: asciiFold(name.given)
      .split(/[^a-z]+/)
      .filter(Boolean)
      .map((word) => word.charAt(0)),
    words: asciiFold(raw)
      .split(/[^a-z]+/)
      .filter(Boolean),
    literal: !!name.literal,
  };
}

/** The same person: the same family name (or its last word), and the same first initial when both give one. */
function samePerson(cited: Person, recorded: Person): boolean {
  if (cited.literal || recorded.literal) return cited.family === recorded.family;
  // The family name, whole or as the record's last words ("van der Maaten" cited as "Maaten"), never a word's end
  // ("Smith" is not "Goldsmith").
  const tails = recorded.words.map((_, i) => recorded.words.slice(i).join(""));
  const family =
    cited.family === recorded.family ||
    (cited.last.length > 1 && cited.last === recorded.last) ||
    (cited.family.length > 2 && tails.includes(cited.family)) ||
    // A letter dropped or doubled in copying ("Rodrguez-Fernndez", "Liggett"): one edit in eight letters, in a
    // name of six or more ("Zheng" is not "Zhang").
    (cited.family.length >= 6 &&
      editDistance(cited.family, recorded.family) <= Math.max(1, Math.floor(cited.family.length / 8)));
  if (family) return !cited.initial || recorded.initials.length === 0 || recorded.initials.includes(cited.initial);
  // Given and family the other way round (East Asian names written family first).
  return (
    cited.words.length >= 2 &&
    recorded.words.length >= 2 &&
    [...cited.words].sort().join(" ") === [...recorded.words].sort().join(" ")
  );
}

/** Levenshtein distance, for short strings (family names). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 4;
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** A list in alphabetical order of family names: how some proceedings' records list their authors. */
function alphabetical(people: Person[]): boolean {
  return people.length >= 3 && people.every((p, i) => i === 0 || people[i - 1]!.last <= p.last);
}

/** What is wrong with a cited author list against the record's, or null when it agrees. */
export function authorListProblem(
  cited: readonly string[],
  open: boolean,
  recorded: readonly string[],
  total = recorded.length,
  source: RecordFacts["source"] = "crossref",
): string | null {
  // A collaboration cited for its members ("{ATLAS Collaboration}") names the list, not a person of it: a record of
  // more than ten authors, or one that names the group.
  if (cited.length === 1 && splitName(cited[0]!).literal && (total > 10 || recorded.includes(cited[0]!))) return null;
  const a = cited.map(person);
  // A group among a record's authors ("for the Alzheimer's Disease Neuroimaging Initiative") is not a
  // person an entry must name, unless the entry names groups itself.
  if (!a.some((p) => p.literal)) {
    const people = recorded.filter((name) => !splitName(name).literal);
    total -= recorded.length - people.length;
    recorded = people;
  }
  const b = recorded.map(person);
  // A record that names one author where the entry names several is often a record cut short (Crossref):
  // its author must be the entry's first.
  if (source === "crossref" && b.length === 1 && total === 1 && a.length > 1)
    return samePerson(a[0]!, b[0]!) ? null : `author 1, ${cited[0]}, is not the record's ${recorded[0]}`;
  // A record in alphabetical order says nothing of the order: each cited author must be one of its.
  if (alphabetical(b) && !alphabetical(a) && total === b.length) {
    const missing = a.findIndex((p) => !b.some((q) => samePerson(p, q)));
    if (missing >= 0) return `author ${missing + 1}, ${cited[missing]}, is not among the record's authors`;
  } else
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (samePerson(a[i]!, b[i]!)) continue;
      const elsewhere = b.findIndex((p) => samePerson(a[i]!, p));
      return elsewhere >= 0
        ? `author ${i + 1} is the record's author ${elsewhere + 1}`
        : `author ${i + 1}, ${cited[i]}, is not the record's ${recorded[i]}`;
    }
  // Past a shortened record list, only the count can be compared.
  if (a.length < total && !open) return `${a.length} of the record's ${total} authors`;
  if (a.length > total) return `${a.length} authors where the record has ${total}`;
  return null;
}
