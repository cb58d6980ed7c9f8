// The one citation record every export format is written from, built from what our tools already
// serve (an arXiv paper from the mirror, cache or API; an NBER paper's info). Pure.
import type { ArxivPaper } from "../arxiv/paper";
import { collaborationOf, PUBLIC_ARXIV } from "../arxiv/paper";
import type { NberPaperInfo } from "../nber/paper";
import { PUBLIC_NBER } from "../nber/paper";
import { splitName, type PersonName } from "./names";
import { parseJournalRefs } from "../../search/journal-ref";

export interface CitationRecord {
  /** The ID as we answer it: 2401.12345, 2401.12345v2 (pinned), w25000. */
  id: string;
  kind: "arxiv" | "nber";
  title: string;
  authors: PersonName[];
  /** The author list ends in "et al." (arXiv lists some large collaborations so). */
  moreAuthors: boolean;
  year: number | null;
  month: number | null;
  /** The DOI to cite: the journal's when the paper is published, else the source's own. */
  doi: string | null;
  /** The source's own DOI (DataCite 10.48550 for arXiv, 10.3386 for NBER). */
  sourceDoi: string | null;
  url: string;
  /** arXiv: the eprint fields. */
  eprint?: { id: string; version: number | null; primaryClass: string };
  /** The published version: arXiv's journal_ref, NBER's "Published Versions" line. */
  publishedAs: string | null;
  /** arXiv's journal_ref read as fields (search/journal-ref.ts), when it parses. */
  journal?: JournalFields;
  /** NBER: series and number. */
  report?: { institution: string; series: string; number: string };
  /** Where the data came from, in words ("arXiv metadata mirror"). */
  source: string;
  /** The collaboration the author list names (BibTeX's collaboration field, as INSPIRE writes it). */
  collaboration?: string;
}

/** A journal version as a citation's fields. */
export interface JournalFields {
  /** As printed: "Phys. Rev. D". */
  name: string;
  volume: string;
  issue: string | null;
  /** First page or article number, and the last page of a range: "1149--1173" is ["1149", "1173"]. */
  firstPage: string;
  lastPage: string | null;
  /** The year of publication (null when the reference gives none). */
  year: number | null;
}

/** arXiv's free-text journal_ref as fields: "Phys.Rev.D76:013009,2007" -> Phys. Rev. D, 76, 013009, 2007. */
export function journalFields(journalRef: string | null | undefined): JournalFields | undefined {
  const ref = journalRef ? parseJournalRefs(journalRef)[0] : undefined;
  if (!ref) return undefined;
  const [firstPage, lastPage] = ref.pages.split(/-+/);
  // JHEP and JCAP are numbered by year and issue: INSPIRE cites JHEP 07 (2007) 046 as volume 07.
  const yearIssue = /^\d{4}-(\d{2})$/.exec(ref.volume);
  return {
    name: ref.journal
      .replace(/\.(?=\S)/g, ". ")
      .replace(/\s+/g, " ")
      .trim(),
    volume: yearIssue ? yearIssue[1]! : ref.volume_written,
    issue: ref.issue,
    firstPage: firstPage!,
    lastPage: lastPage ?? null,
    year: ref.year,
  };
}

/** INSPIRE's rule for large collaborations: more than this many authors, and an entry lists the first and "others". */
export const CITED_AUTHORS_MAX = 10;

/** The record as a citation lists its authors: the first and "others" past CITED_AUTHORS_MAX, unless the whole list is asked for. */
export function citedAuthors(record: CitationRecord, full = false): CitationRecord {
  if (full || record.authors.length <= CITED_AUTHORS_MAX) return record;
  return { ...record, authors: record.authors.slice(0, 1), moreAuthors: true };
}

export const ARXIV_DOI_PREFIX = "10.48550/arXiv.";
export const NBER_DOI_PREFIX = "10.3386/";
const ET_AL = /^(and\s+)?(et\.?\s*al\.?|others)$/i;

export function fromArxiv(paper: ArxivPaper, pinnedVersion: boolean, source: string): CitationRecord {
  const published = new Date(paper.published);
  const year = Number.isNaN(published.getTime()) ? null : published.getUTCFullYear();
  const sourceDoi = `${ARXIV_DOI_PREFIX}${paper.base_id}`;
  const named = paper.authors.filter((author) => !ET_AL.test(author.name));
  const journalDoi = paper.doi?.trim().split(/\s+/)[0] ?? null;
  const collaboration = collaborationOf(paper.authors.map((author) => author.name));
  const journal = journalFields(paper.journal_ref);
  return {
    id: pinnedVersion ? paper.id : paper.base_id,
    kind: "arxiv",
    title: paper.title,
    authors: named.map((author) => splitName(author.name)),
    moreAuthors: named.length < paper.authors.length,
    year,
    month: year === null ? null : published.getUTCMonth() + 1,
    doi: journalDoi || sourceDoi,
    sourceDoi,
    url: `${PUBLIC_ARXIV}/abs/${pinnedVersion ? paper.id : paper.base_id}`,
    eprint: { id: paper.base_id, version: pinnedVersion ? paper.version : null, primaryClass: paper.primary_category },
    publishedAs: paper.journal_ref?.trim() || null,
    ...(journal ? { journal } : {}),
    source,
    ...(collaboration ? { collaboration } : {}),
  };
}

export function fromNber(info: NberPaperInfo, source: string): CitationRecord {
  const [year, month] = (info.date ?? "").split("-").map(Number);
  // NBER's DOIs are 10.3386/<series><number> (the pages' citation_doi); the page's own wins.
  const sourceDoi = info.doi ?? `${NBER_DOI_PREFIX}${info.id}`;
  return {
    id: info.id,
    kind: "nber",
    title: info.title,
    authors: info.authors.filter((name) => !ET_AL.test(name)).map(splitName),
    moreAuthors: info.authors.some((name) => ET_AL.test(name)),
    year: year || null,
    month: month || null,
    doi: sourceDoi,
    sourceDoi,
    url: `${PUBLIC_NBER}/papers/${info.id}`,
    publishedAs: info.published_version?.trim() || null,
    report: {
      institution: "National Bureau of Economic Research",
      series: "Working Paper Series",
      number: info.id.replace(/^w0*/, ""),
    },
    source,
  };
}
