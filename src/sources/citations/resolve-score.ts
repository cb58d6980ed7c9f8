// How much a candidate is the reference: its title inside the reference's text, its authors'
// surnames and its year in what is left (text-match.ts), and an identifier that agrees or is
// contradicted.
import type { OtherVersion } from "./resolve-versions";
import { STOPWORDS } from "../../search/stopwords";
import { asciiFold, splitName } from "./names";
import { words as indexWords } from "../../search/tokenize";
import type { identifiersIn } from "./identifiers";
import {
  contentWords,
  authorEvidence,
  BIBLIOGRAPHIC_WORDS,
  nameWords,
  titleEvidence,
  yearEvidence,
  type AuthorEvidence,
  type TitleEvidence,
  type YearEvidence,
} from "./text-match";
import type { Found, Venue } from "./resolve-candidates";
import { describeJournalRef, type JournalRef, sameArticle, sameJournal } from "../../search/journal-ref";

/**
 * The record a candidate was scored from (its whole author list, its venue), under a symbol: it
 * travels with the candidate through copies (spread copies symbol keys) but never into an answer
 * (JSON and the output schemas see string keys only).
 */
export const RECORD: unique symbol = Symbol("record");

/** Every record a resolution considered, under a symbol on it (never in an answer): other versions of the match among them. */
export const CONSIDERED: unique symbol = Symbol("considered");

/** At or above this, a candidate is a match; below it the answer is no_match. */
export const MATCH_THRESHOLD = 0.8;

export interface Candidate {
  source: "arxiv" | "nber" | "crossref" | "openalex";
  id: string;
  title: string;
  authors: string[];
  authors_total: number;
  year: number | null;
  doi: string | null;
  /** The latest arXiv version the record holds (null for NBER). */
  version: number | null;
  confidence: number;
  agreed: {
    /** exact: the whole title is inside the reference; close: nearly all its words in order; none. */
    title: TitleEvidence["kind"];
    /** Share of the title's words found in the reference, in order. */
    title_coverage: number;
    authors: AuthorEvidence["kind"];
    surnames_matched: string;
    year: YearEvidence["kind"];
    year_cited: number | null;
    exact_identifier: string | null;
    /** The paper's own journal reference, found in the text (journal, volume and page agree). */
    journal_ref: string | null;
  };
  how: string;
  /** A work outside the mirrors: where it was published. */
  venue?: Venue;
  /** The text cites the record's journal with another volume or first page. */
  journal_ref_differs?: { cited: string; record: string };
  /** The same work's other versions and DOIs (matches only). */
  also?: OtherVersion[];
  [RECORD]?: Found;
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Confidence from what the reference's own text says of the candidate. A title found whole with
 * its authors and year agreeing is the paper; the same title by other authors, or years apart, is
 * not; a short title needs authors and year both. An identifier decides unless the text
 * contradicts it (another title, other authors, another year): the signature of an invented reference.
 */
export function score(
  plain: string,
  candidate: Found,
  ids: ReturnType<typeof identifiersIn>,
  cited: readonly JournalRef[] = [],
): Candidate {
  const title = titleEvidence(plain, candidate.title);
  const authors = authorEvidence(title.rest, candidate.authors, outsideTitle(plain, candidate.title));
  // The preprint's year within one (the journal's may come a year later); the journal version's exactly.
  const year = bestYear(
    yearEvidence(title.rest, candidate.year),
    candidate.published_year ? yearEvidence(title.rest, candidate.published_year, 0) : null,
  );
  const distinctive = title.words >= 4 && compactLength(candidate.title) >= 20;
  let confidence: number;
  if (candidate.exact) {
    const contradicted =
      (authors.kind === "disagree" && authors.names >= 2) ||
      year.kind === "disagree" ||
      (title.kind === "none" && hasOtherTitle(title, candidate, plain));
    confidence = contradicted ? 0.4 : 0.99;
  } else if (title.kind === "exact") {
    if (authors.kind === "disagree" || year.kind === "disagree") confidence = 0.6;
    else if (authors.kind === "agree" && !distinctive)
      // A short or generic title ("Introduction") is the record's only with two of its authors, or its one author with the initial, and the year.
      confidence =
        year.kind === "agree" &&
        (authors.matched >= 2 || (candidate.authors.length === 1 && firstAuthorCited(plain, candidate.authors[0]!)))
          ? 0.9
          : 0.6;
    else if (authors.kind === "agree") confidence = year.kind === "agree" ? 0.98 : year.kind === "absent" ? 0.93 : 0.85;
    else if (!distinctive) confidence = 0.6;
    else confidence = year.kind === "agree" ? 0.9 : year.kind === "absent" ? 0.85 : 0.7;
  } else if (title.kind === "close") {
    // A title that runs on past the record's is another title, whoever wrote it.
    confidence = authors.kind === "agree" && year.kind === "agree" && !title.extended ? 0.85 : 0.6;
  } else {
    confidence = Math.min(0.5, 0.5 * title.coverage + (authors.kind === "agree" ? 0.1 : 0));
  }
  // The paper's own journal reference (journal, volume, page) is in the text: with an author's
  // surname it is the paper, as physics cites without a title; with other authors it is not.
  if (candidate.journal && !candidate.exact) {
    // With no title to go on, the first author must be the reference's: surname and initial.
    const firstAuthor = candidate.authors[0] ? firstAuthorCited(plain, candidate.authors[0]) : false;
    const byJournal =
      title.kind === "none" && otherTitleRun(candidate, plain, journalWords(cited))
        ? 0.4
        : authors.kind === "agree" && !firstAuthor && title.kind === "none"
          ? 0.6
          : authors.kind === "agree"
            ? year.kind === "agree" || year.kind === "absent"
              ? 0.95
              : year.kind === "close"
                ? 0.85
                : 0.6
            : authors.kind === "absent"
              ? 0.6
              : 0.4;
    confidence = authors.kind === "disagree" ? Math.min(confidence, byJournal) : Math.max(confidence, byJournal);
  }
  // The reference names another paper's identifier: whatever else agrees, this is not the one it cites.
  const citedArxiv = ids.arxiv.map((id) => id.replace(/v\d+$/, ""));
  if (
    (candidate.source === "arxiv" && citedArxiv.length > 0 && !citedArxiv.includes(candidate.id)) ||
    (candidate.source === "nber" && ids.nber.length > 0 && !ids.nber.includes(candidate.id))
  )
    confidence = Math.min(confidence, 0.5);
  return {
    source: candidate.source,
    id: candidate.id,
    title: candidate.title.replace(/\s+/g, " "),
    authors: candidate.authors.slice(0, 5),
    authors_total: candidate.authors.length,
    year: candidate.year,
    doi: candidate.doi,
    version: candidate.version,
    confidence: round(confidence),
    agreed: {
      title: title.kind,
      title_coverage: round(title.coverage),
      authors: authors.kind,
      surnames_matched: `${authors.matched} of ${authors.checked}`,
      year: year.kind,
      year_cited: year.cited,
      exact_identifier: candidate.exact ?? null,
      journal_ref: candidate.journal ?? null,
    },
    how: candidate.how,
    ...(candidate.venue ? { venue: candidate.venue } : {}),
    ...journalDiffers(candidate, cited),
    [RECORD]: candidate,
  };
}

/** The text cites the record's journal with another volume or page: a difference to report, not another paper. */
function journalDiffers(candidate: Found, cited: readonly JournalRef[]): Pick<Candidate, "journal_ref_differs"> {
  const own = candidate.own_journal;
  // The record's own article cited anywhere in the text (an erratum may follow it) is no difference.
  if (!own || candidate.journal || cited.some((ref) => sameArticle(ref, own))) return {};
  const other = cited.find((ref) => sameJournal(ref.key, own.key) && !sameArticle(ref, own));
  return other ? { journal_ref_differs: { cited: describeJournalRef(other), record: describeJournalRef(own) } } : {};
}

/**
 * Is this the reference's own first-named author: its surname there with the same first initial
 * ("C.-H. Chang" is not Ming-Wei Chang), or its surname with no initial beside it ("Chang et al.")?
 */
export function firstAuthorCited(plain: string, name: string): boolean {
  const person = splitName(name);
  const family = (person.literal ?? person.family).trim();
  if (!family) return false;
  const initial = asciiFold(person.given.trim()).charAt(0).toLowerCase();
  const text = asciiFold(plain.replace(/\\["'`^~=.]\{?([a-zA-Z])\}?/g, "$1"));
  const surname = asciiFold(family).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const at = new RegExp(`(?:^|[^\\p{L}])${surname}(?![\\p{L}])`, "giu");
  for (const match of text.matchAll(at)) {
    if (!initial) return true;
    const start = match.index + match[0].length - surname.length;
    // "C. Chang", "C.-H. Chang", "Chang, C.", "Chang C" (Vancouver): the letters next to the surname.
    const before = text.slice(Math.max(0, start - 20), start);
    const after = text.slice(start + surname.length, start + surname.length + 6);
    const initialBefore = /(?:^|[^\p{L}])(\p{L})[.\s-][\s\p{L}.-]*$/u.exec(before)?.[1];
    const initialAfter = /^,?\s+(\p{L})(?:[.\s,-]|$)/u.exec(after)?.[1];
    const given = [initialBefore, initialAfter].filter(Boolean).map((c) => c!.toLowerCase());
    if (given.length === 0 || given.includes(initial)) return true;
  }
  return false;
}

const YEAR_ORDER: YearEvidence["kind"][] = ["agree", "close", "absent", "disagree"];

/** The nearer of the preprint's year and the journal version's: a reference may cite either. */
function bestYear(preprint: YearEvidence, journal: YearEvidence | null): YearEvidence {
  if (!journal || journal.kind === "absent") return preprint;
  return YEAR_ORDER.indexOf(journal.kind) < YEAR_ORDER.indexOf(preprint.kind) ? journal : preprint;
}

/**
 * A title the text gives that is not the candidate's, beside a journal reference: a run of four
 * words or more between punctuation (outside parentheses, where affiliations stand) with three
 * that are neither the candidate's title's or authors' words, names, bibliographic words, nor the
 * journal reference's ("Contact Entanglement of Closures Force Through Model"). A physics
 * reference's names and journal never make one.
 */
function otherTitleRun(candidate: Found, plain: string, journal: readonly string[]): boolean {
  const own = new Set([...contentWords(`${candidate.title} ${candidate.authors.slice(0, 20).join(" ")}`), ...journal]);
  const names = nameWords(plain);
  return plain
    .replace(/\([^)]*\)/g, " ")
    .split(/[.,;:()[\]]+/)
    .some((segment) => {
      if (segment.trim().split(/\s+/).length < 3) return false;
      const other = contentWords(segment).filter(
        (word) => word.length >= 3 && !own.has(word) && !BIBLIOGRAPHIC_WORDS.has(word) && !names.has(word),
      );
      return other.length >= 3;
    });
}

/** The words of the text's journal references (the journal as written, its volume and pages): no title's. */
const journalWords = (refs: readonly JournalRef[]): string[] =>
  contentWords(refs.map((ref) => `${ref.journal} ${ref.volume_written} ${ref.issue ?? ""} ${ref.pages}`).join(" "));

const compactLength = (title: string) => title.replace(/[^\p{L}\p{N}]/gu, "").length;

/** Does the text hold a title other than the identifier's paper's (three or more words that are neither its title's nor names)? */
function hasOtherTitle(
  title: TitleEvidence,
  candidate: Found,
  plain: string,
  journal: readonly string[] = [],
): boolean {
  if (title.coverage >= 0.5) return false;
  const own = new Set([...contentWords(`${candidate.title} ${candidate.authors.slice(0, 20).join(" ")}`), ...journal]);
  const names = nameWords(plain);
  const other = contentWords(title.rest).filter(
    (word) => word.length >= 3 && !own.has(word) && !BIBLIOGRAPHIC_WORDS.has(word) && !names.has(word),
  );
  return other.length >= 3;
}

/** The reference with the title's words taken out, case kept (for telling names apart). */
function outsideTitle(plain: string, title: string): string {
  const own = new Set(contentWords(title));
  return plain
    .split(/\s+/)
    .filter((word) => {
      const folded = indexWords(word);
      return folded.length === 0 || !folded.every((w) => own.has(w) || STOPWORDS.has(w));
    })
    .join(" ");
}
