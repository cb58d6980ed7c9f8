// The differences between a bibliography entry and the record it names: where the entry states
// its fields (BibTeX, RIS, CSL-JSON), each one is compared with the record's (claims.ts), with the
// published version of an arXiv preprint asked of OpenAlex when the entry cites a venue; where it
// is free text, what the resolver read in the text (title, authors, year) and its identifiers.
import { PapersError } from "../../errors";
import { openAlexTitleSearch } from "../openalex/reference-search";
import { crossrefCandidates } from "../crossref/works";
import type { ExternalWork } from "../external-work";
import { describeJournalRef, parseJournalRefs } from "../../search/journal-ref";
import { sameWorkArticle, type Unchecked } from "./resolve-external";
import { bareDoi, type ClaimField, type Claims, compareClaims, type RecordFacts } from "./claims";
import type { identifiersIn } from "./identifiers";
import { parseReference, type ReferenceFields } from "./reference-text";
import { withoutIdentifiers } from "./identifiers";
import type { Candidate } from "./resolve";
import { RECORD } from "./resolve-score";
import type { Found } from "./resolve-candidates";
import { splitName, surnameKey } from "./names";
import { BIBLIOGRAPHIC_WORDS, compact, contentWords } from "./text-match";
import { isPreprintVenue } from "./venues";
import type { AppContext } from "../../context";

export interface Difference {
  field: ClaimField | "arxiv_id" | "arxiv_version" | "nber_number" | "journal_ref";
  cited: string | null;
  record: string | null;
}

/** A title the reference's text gives (two words or more) that is not the record's. */
function otherTitle(text: string, recordTitle: string): string | null {
  const title = parseReference(withoutIdentifiers(text)).title?.trim();
  // A journal reference read as a title ("Phys. Rev. A") is no title.
  if (!title || contentWords(title).filter((word) => !BIBLIOGRAPHIC_WORDS.has(word)).length < 2) return null;
  const cited = compact(title);
  const own = compact(recordTitle);
  return cited.includes(own) || own.includes(cited) ? null : title;
}

/** What a structured entry states, as claims to compare with a record: its fields that it gives. */
export function claimsOf(fields: ReferenceFields): Claims {
  const { title, authors, authors_open, year, venue, volume, pages, doi } = fields;
  return Object.fromEntries(
    Object.entries({ title, authors, authors_open, year, venue, volume, pages, doi }).filter(
      ([, value]) => value !== undefined && value !== "",
    ),
  ) as Claims;
}

/** A source that could not be asked for a field's check: the entry is then unchecked, with why and when to retry. */
export interface CouldNotAsk {
  unchecked: Unchecked;
}

const couldNotAsk = (source: Unchecked["source"], error: PapersError): CouldNotAsk => ({
  unchecked: { source, reason: error.reason, retry_after_ms: error.retryAfterMs ?? null },
});

export const isCouldNotAsk = (value: unknown): value is CouldNotAsk =>
  typeof value === "object" && value !== null && "unchecked" in value;

/** Where an arXiv preprint was published, as OpenAlex knows it: its venues and years, or none found. */
export interface Published {
  venues: string[];
  years: number[];
}

/**
 * An entry that cites an arXiv preprint at a venue (arXiv's metadata names none): the works
 * OpenAlex holds under the same title say where it appeared, and when. Null when there is nothing
 * to ask (no venue cited, a record that names its journal); a CouldNotAsk when OpenAlex is not configured or
 * OpenAlex could not be asked.
 */
export async function publishedVersion(
  ctx: AppContext,
  candidate: Candidate,
  claims: Claims | undefined,
  deadline: number,
): Promise<Published | null | CouldNotAsk> {
  const record = candidate[RECORD];
  if (!claims?.venue || isPreprintVenue(claims.venue) || record?.source !== "arxiv" || record.journal_ref) return null;
  // The venue cannot be checked without OpenAlex: not verified, not a difference, unchecked.
  if (!ctx.config.OPENALEX_RESOLVE_ENABLED || !ctx.config.OPENALEX_API_KEY)
    return { unchecked: { source: "openalex", reason: "not_configured", retry_after_ms: null } };
  const title = record.title.replace(/[,|]+/g, " ").replace(/\s+/g, " ").trim();
  try {
    const works = await openAlexTitleSearch(ctx, title, deadline);
    const same = works.filter((work) => compact(work.title) === compact(record.title));
    return {
      venues: same.flatMap((work) => (work.container && !isPreprintVenue(work.container) ? [work.container] : [])),
      years: same.flatMap((work) => (work.year ? [work.year] : [])),
    };
  } catch (error) {
    if (error instanceof PapersError) return couldNotAsk("openalex", error);
    throw error;
  }
}

/** The volume and first page a record gives: a work's (Crossref, OpenAlex), or an arXiv paper's journal version's. */
function volumeAndPage(found: Found): Pick<RecordFacts, "volume" | "first_page"> {
  if (found.venue) return { volume: found.venue.volume, first_page: found.venue.page?.split(/-+/)[0] ?? null };
  if (found.own_journal) return { volume: found.own_journal.volume_written, first_page: found.own_journal.page };
  return {};
}

/** The names a Crossref or OpenAlex record gives where the work appeared. */
const venuesOf = (record: Found): string[] =>
  [record.venue?.container, ...(record.venue?.containers ?? [])].filter(
    (name, i, all): name is string => !!name && all.indexOf(name) === i,
  );

const surnameOf = (name: string | undefined) => (name ? surnameKey(splitName(name)) : "");

/**
 * An NBER working paper cited as a journal article (a journal reference in the text that is not
 * NBER's): the working paper's record says nothing of the article, so Crossref is asked for it.
 * The article's record with the cited journal, volume and first page: no difference. Its record
 * with others: a journal_ref difference. No article at all: a difference too (the working paper
 * is real; the article cited is not known anywhere). "unchecked" when Crossref cannot be asked;
 * null when the entry does not cite the paper as an article.
 */
export async function nberArticleDifference(
  ctx: AppContext,
  candidate: Candidate,
  text: string,
  deadline: number,
): Promise<Difference | null | CouldNotAsk> {
  if (candidate.source !== "nber") return null;
  const cited = parseJournalRefs(withoutIdentifiers(text)).find(
    (ref) => !/\bnber\b|national bureau|working paper/i.test(ref.journal),
  );
  if (!cited) return null;
  if (!ctx.config.CROSSREF_ENABLED)
    return { unchecked: { source: "crossref", reason: "not_configured", retry_after_ms: null } };
  let works: ExternalWork[];
  try {
    works = await crossrefCandidates(ctx, withoutIdentifiers(text), deadline);
  } catch (error) {
    if (error instanceof PapersError) return couldNotAsk("crossref", error);
    throw error;
  }
  const articles = works.filter((work) => compact(work.title) === compact(candidate.title));
  if (articles.some((work) => sameWorkArticle(cited, work))) return null;
  const article = articles.find((work) => work.volume && work.page);
  return {
    field: "journal_ref",
    cited: describeJournalRef(cited),
    record: article
      ? `${article.container ?? ""} ${article.volume}, ${article.page}${article.year ? ` (${article.year})` : ""}`.trim()
      : `NBER Working Paper ${candidate.id} (Crossref knows no article of it)`,
  };
}

/** What the record holds, for the comparison with an entry's claims. */
function factsOf(
  candidate: Candidate,
  absentDois: readonly string[],
  published: Published | null = null,
  considered: readonly Found[] = [],
): RecordFacts | null {
  const found = candidate[RECORD];
  if (!found) return null;
  // The same work as other sources hold it (a conference paper and its journal version, a record in each).
  const versions = considered.filter(
    (other) =>
      other !== found &&
      other.source !== "arxiv" &&
      other.source !== "nber" &&
      compact(other.title) === compact(found.title) &&
      surnameOf(other.authors[0]) === surnameOf(found.authors[0]),
  );
  const years = [found.year, found.published_year ?? null, ...(found.years ?? [])].filter(
    (year, i, all): year is number => year !== null && all.indexOf(year) === i,
  );
  const venues =
    found.source === "arxiv"
      ? found.journal_ref
        ? [found.own_journal?.journal ?? found.journal_ref]
        : []
      : venuesOf(found);
  const dois = [
    found.doi,
    found.source === "arxiv" ? `10.48550/arxiv.${found.id}` : null,
    found.source === "nber" ? `10.3386/${found.id}` : null,
  ].flatMap((doi) => (doi && /^10\./.test(doi) ? [doi.toLowerCase()] : []));
  if (published) {
    venues.push(...published.venues);
    years.push(...published.years.filter((year) => !years.includes(year)));
  }
  for (const version of versions) {
    venues.push(...venuesOf(version));
    if (version.year !== null && !years.includes(version.year)) years.push(version.year);
  }
  return {
    source: found.source,
    title: found.title,
    ...volumeAndPage(found),
    authors: found.authors,
    ...(found.authors_total ? { authors_total: found.authors_total } : {}),
    years,
    venues,
    preprint: found.source === "arxiv" && !found.journal_ref,
    ...(published && published.venues.length === 0 ? { unpublished: true } : {}),
    dois,
    absent_dois: absentDois,
  };
}

/** What an entry is compared by: its text's identifiers and words, and the fields it states. */
export interface EntryEvidence {
  /** Every record the resolution considered: the same work's other versions give more venues and years. */
  considered?: readonly Found[];
  ids: ReturnType<typeof identifiersIn>;
  /** The entry's text (what the resolver read). */
  text: string;
  claims?: Claims | undefined;
  /** Cited DOIs Crossref answered 404 for. */
  absentDois?: readonly string[];
  published?: Published | null;
}

/** The fields in which the entry and the record part: the entry's claims where it states them, else its text's. */
export function differencesFrom(record: Candidate, entry: EntryEvidence): Difference[] {
  const fromText = differencesInText(record, entry);
  const facts = entry.claims
    ? factsOf(record, entry.absentDois ?? [], entry.published ?? null, entry.considered ?? [])
    : null;
  if (!entry.claims || !facts) return fromText;
  const stated = compareClaims(entry.claims, facts);
  const covered = new Set<string>(["title", "authors", "year", "venue", ...(entry.claims.doi ? ["doi"] : [])]);
  const differences = [...stated, ...fromText.filter((d) => !covered.has(d.field))];
  return [...differences, ...identifiersOfOthers(record, entry.considered ?? [], differences)];
}

/**
 * An identifier in the entry that names another work than the record (the DOI of another paper
 * under this one's title): looked up, it found that work, so it is a difference of this entry.
 */
function identifiersOfOthers(record: Candidate, considered: readonly Found[], known: Difference[]): Difference[] {
  const out: Difference[] = [];
  for (const other of considered) {
    if (!other.exact || (other.source === record.source && other.id === record.id)) continue;
    // The same work in another record: the same title, or one DOI (an arXiv preprint's journal DOI is its article's).
    if (compact(other.title) === compact(record.title)) continue;
    if (other.doi && record.doi && bareDoi(other.doi) === bareDoi(record.doi)) continue;
    if ((record.also ?? []).some((v) => `${v.source}:${v.id}` === `${other.source}:${other.id}` || v.id === other.doi))
      continue;
    const [, kind, value] = /^(arXiv ID|DOI|NBER number) (.+)$/.exec(other.exact) ?? [];
    const field = kind === "arXiv ID" ? "arxiv_id" : kind === "DOI" ? "doi" : kind ? "nber_number" : null;
    if (!field || !value || known.some((d) => d.field === field) || out.some((d) => d.field === field)) continue;
    const own = field === "doi" ? record.doi : field === "arxiv_id" && record.source === "arxiv" ? record.id : null;
    out.push({ field, cited: `${value} (${other.source}:${other.id}, "${other.title}")`, record: own });
  }
  return out;
}

/** The fields in which the entry's text and the record part. */
function differencesInText(record: Candidate, { ids, text }: EntryEvidence): Difference[] {
  const out: Difference[] = [];
  const a = record.agreed;
  if (a.year === "close" || a.year === "disagree")
    out.push({
      field: "year",
      cited: a.year_cited === null ? null : String(a.year_cited),
      record: String(record.year ?? "") || null,
    });
  if (a.authors === "disagree")
    out.push({
      field: "authors",
      cited: null,
      record: `${record.authors.join(", ")}${record.authors_total > record.authors.length ? ", et al." : ""}`,
    });
  // Found by an identifier or a journal reference while the text gives a title that is not the record's.
  const citedTitle =
    a.title === "none" && (a.exact_identifier || a.journal_ref) ? otherTitle(text, record.title) : null;
  if (citedTitle) out.push({ field: "title", cited: citedTitle, record: record.title });
  if (a.title === "close") out.push({ field: "title", cited: null, record: record.title });
  if (record.journal_ref_differs)
    out.push({
      field: "journal_ref",
      cited: record.journal_ref_differs.cited,
      record: record.journal_ref_differs.record,
    });
  if (record.source === "arxiv") {
    const arxiv = ids.arxiv.find((id) => id.replace(/v\d+$/, "") !== record.id);
    if (arxiv) out.push({ field: "arxiv_id", cited: arxiv, record: record.id });
    const version = ids.arxiv
      .map((id) => /v(\d+)$/.exec(id))
      .find((m) => m && record.version !== null && Number(m[1]) > record.version);
    if (version) out.push({ field: "arxiv_version", cited: `v${version[1]}`, record: `v${record.version}` });
  } else if (record.source === "nber") {
    const nber = ids.nber.find((id) => id !== record.id);
    if (nber) out.push({ field: "nber_number", cited: nber, record: record.id });
  }
  const sourceDoi =
    record.source === "arxiv"
      ? `10.48550/arxiv.${record.id}`
      : record.source === "nber"
        ? `10.3386/${record.id}`
        : null;
  const own = [record.doi, sourceDoi].filter((doi): doi is string => !!doi).map((doi) => doi.toLowerCase());
  // arXiv's DOI may carry the version cited (10.48550/arXiv.2602.12172v1): still the paper's own.
  const doi = ids.dois.find(
    (d) => !own.map(bareDoi).includes(bareDoi(d).replace(/^(10\.48550\/arxiv\..+?)v\d+$/, "$1")),
  );
  // A journal DOI the mirror does not hold is not a difference: only a DOI of arXiv's or NBER's that names another
  // paper, or one beside the record's own.
  if (doi && (/^10\.(48550|3386)\//.test(doi) || record.doi))
    out.push({ field: "doi", cited: doi, record: record.doi });
  return out;
}
