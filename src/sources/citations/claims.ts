// An entry's claims against a record, field by field: the title (the whole of it), the authors
// as a list (count, order, family names and initials; "and others" may stand for the rest), the
// year, the venue, the DOI. What it returns is each field that disagrees, with the cited and the
// recorded value; a field the entry does not state, or the record does not hold, is no
// difference. Pure: papers_check_bibliography judges every record through this one comparison.
import { asciiFold, splitName } from "./names";
import { compact } from "./text-match";
import { isPreprintVenue, isSeries, sameVenue } from "./venues";

export interface Claims {
  title?: string;
  /** Full names as cited, in order. */
  authors?: string[];
  /** "and others" / "et al." stands for authors after the ones named. */
  authors_open?: boolean;
  year?: number;
  venue?: string;
  /** Journal DOIs (not arXiv's or NBER's own, which name the record itself). */
  doi?: string;
}

export interface RecordFacts {
  title: string;
  /** The author list: whole, or its first names when `authors_total` says how many there are. */
  authors: readonly string[];
  authors_total?: number;
  /** The record's year first, then other years it is known by (the journal version's, print and online). */
  years: readonly number[];
  /** The names the record gives its venue; empty when it names none (a preprint, a series). */
  venues: readonly string[];
  /** An arXiv preprint: a conference year one after its first version's is its published version's. */
  preprint: boolean;
  /** A preprint that no source knows as published anywhere. */
  unpublished?: boolean;
  /** The record's DOIs, lower case. */
  dois: readonly string[];
  /** Cited DOIs that no agency resolves (so a record without a DOI cannot be carrying them). */
  absent_dois?: readonly string[];
}

export type ClaimField = "title" | "authors" | "year" | "venue" | "doi";

export interface ClaimDifference {
  field: ClaimField;
  cited: string | null;
  record: string | null;
}

/** Authors shown in a difference: enough to see which, never a 2,831-name list. */
const SHOWN_AUTHORS = 8;

export function compareClaims(claims: Claims, record: RecordFacts): ClaimDifference[] {
  const out: ClaimDifference[] = [];
  if (claims.title && compact(claims.title) !== compact(record.title))
    out.push({ field: "title", cited: claims.title, record: record.title });
  if (claims.authors && claims.authors.length > 0 && record.authors.length > 0) {
    const problem = authorListProblem(claims.authors, !!claims.authors_open, record.authors, record.authors_total);
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
  if (claims.venue && !isPreprintVenue(claims.venue) && record.unpublished)
    out.push({ field: "venue", cited: claims.venue, record: "arXiv preprint (no published version known)" });
  else if (claims.venue && !isPreprintVenue(claims.venue) && venues.length > 0) {
    const preprintRecord = venues.every(isPreprintVenue);
    if (!preprintRecord && !venues.some((name) => sameVenue(claims.venue!, name)))
      out.push({ field: "venue", cited: claims.venue, record: venues[0]! });
  }
  if (claims.doi && !/^10\.(48550|3386)\//i.test(claims.doi)) {
    const doi = claims.doi.toLowerCase();
    const absent = (record.absent_dois ?? []).some((d) => d.toLowerCase() === doi);
    if ((record.dois.length > 0 && !record.dois.includes(doi)) || (record.dois.length === 0 && absent))
      out.push({ field: "doi", cited: claims.doi, record: record.dois[0] ?? null });
  }
  return out;
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
    words: asciiFold(raw)
      .split(/[^a-z]+/)
      .filter(Boolean),
    literal: !!name.literal,
  };
}

/** The same person: the same family name (or its last word), and the same first initial when both give one. */
function samePerson(cited: Person, recorded: Person): boolean {
  if (cited.literal || recorded.literal) return cited.family === recorded.family;
  const family =
    cited.family === recorded.family ||
    (cited.last.length > 1 && cited.last === recorded.last) ||
    (cited.family.length > 2 && recorded.words.join("").endsWith(cited.family));
  if (family) return !cited.initial || !recorded.initial || cited.initial === recorded.initial;
  // Given and family the other way round (East Asian names written family first).
  return (
    cited.words.length >= 2 &&
    recorded.words.length >= 2 &&
    [...cited.words].sort().join(" ") === [...recorded.words].sort().join(" ")
  );
}

/** What is wrong with a cited author list against the record's, or null when it agrees. */
export function authorListProblem(
  cited: readonly string[],
  open: boolean,
  recorded: readonly string[],
  total = recorded.length,
): string | null {
  // A collaboration cited for its members ("{ATLAS Collaboration}") names the list, not a person of it.
  if (cited.length === 1 && splitName(cited[0]!).literal && recorded.length > 1) return null;
  const a = cited.map(person);
  const b = recorded.map(person);
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
