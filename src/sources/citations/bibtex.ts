// CitationRecord -> BibTeX. arXiv papers are @misc with eprint/archivePrefix/primaryClass (the
// fields arXiv's own export and biblatex use), @article when published (journal_ref read into
// journal, volume, number, pages and the year of publication, the journal's DOI); NBER papers are @techreport as NBER's own export writes them. A comment
// line before each entry says where its data came from.
import { bibtexText, bibtexVerbatim } from "./latex";
import { type PersonName, splitName } from "./names";
import { CITED_AUTHORS_MAX, type CitationRecord } from "./record";
import { type Candidate, RECORD } from "./resolve-score";

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

function bibtexName(name: PersonName): string {
  if (name.literal) return `{${bibtexText(name.literal)}}`;
  const family = bibtexText(name.family);
  const given = bibtexText(name.given);
  // "von Last, Jr, First": BibTeX's three-part form keeps the suffix out of the given names.
  if (name.suffix) return `${family}, ${bibtexText(name.suffix)}, ${given}`;
  return given ? `${family}, ${given}` : family;
}

export function toBibtex(record: CitationRecord, key: string): string {
  const fields: [string, string][] = [];
  const add = (name: string, value: string | null | undefined) => {
    if (value !== null && value !== undefined && value !== "") fields.push([name, `{${value}}`]);
  };
  add("title", bibtexText(record.title, { title: true }));
  add("author", [...record.authors.map(bibtexName), ...(record.moreAuthors ? ["others"] : [])].join(" and "));
  if (record.collaboration) add("collaboration", bibtexText(record.collaboration));
  let type: string;
  if (record.kind === "arxiv") {
    type = record.publishedAs ? "article" : "misc";
    if (record.journal) {
      // The journal version's own fields, as a reference manager keeps them; the eprint follows.
      add("journal", bibtexText(record.journal.name));
      add("volume", bibtexText(record.journal.volume));
      add("number", record.journal.issue && bibtexText(record.journal.issue));
      add("pages", bibtexText([record.journal.firstPage, record.journal.lastPage].filter(Boolean).join("--")));
    } else if (record.publishedAs) add("journal", bibtexText(record.publishedAs));
  } else if (record.journal) {
    // An NBER paper cited as its journal version: the article, with the working paper in a note.
    type = "article";
    add("journal", bibtexText(record.journal.name));
    add("volume", bibtexText(record.journal.volume));
    add("number", record.journal.issue && bibtexText(record.journal.issue));
    add("pages", bibtexText([record.journal.firstPage, record.journal.lastPage].filter(Boolean).join("--")));
  } else {
    type = "techreport";
    add("institution", record.report!.institution);
    add("type", "Working Paper");
    add("series", record.report!.series);
    add("number", record.report!.number);
  }
  // A published paper is cited by its year of publication; the month is the preprint's, so it goes.
  const published = record.journal?.year ?? null;
  if (published !== null) add("year", String(published));
  else if (record.year !== null) add("year", String(record.year));
  if (record.month !== null && published === null) fields.push(["month", MONTHS[record.month - 1]!]);
  if (record.eprint) {
    add("eprint", record.eprint.id);
    add("archivePrefix", "arXiv");
    add("primaryClass", record.eprint.primaryClass);
    if (record.eprint.version !== null) add("version", String(record.eprint.version));
  }
  // The journal version's DOI is not known here: the working paper's would name the other version.
  if (!(record.kind === "nber" && record.journal)) add("doi", record.doi && bibtexVerbatim(record.doi));
  add("url", bibtexVerbatim(record.url));
  add("note", note(record));
  const body = fields.map(([name, value]) => `  ${name} = ${value}`).join(",\n");
  return `% ${record.id}: from ${record.source}\n@${type}{${key},\n${body}\n}`;
}

function note(record: CitationRecord): string | null {
  const parts: string[] = [];
  // A published arXiv paper cites the journal's DOI; its arXiv DOI stays findable.
  if (record.kind === "arxiv" && record.doi !== record.sourceDoi)
    parts.push(`arXiv DOI: ${bibtexVerbatim(record.sourceDoi!)}`);
  if (record.kind === "nber" && record.journal)
    parts.push(`Also NBER Working Paper ${record.report!.number}, doi:${bibtexVerbatim(record.sourceDoi ?? "")}`);
  else if (record.kind === "nber" && record.publishedAs) parts.push(`Published as: ${bibtexText(record.publishedAs)}`);
  return parts.length > 0 ? parts.join(". ") : null;
}

/** Crossref's work types as BibTeX entry types. */
const WORK_TYPES: Record<string, string> = {
  "journal-article": "article",
  "proceedings-article": "inproceedings",
  "book-chapter": "incollection",
  book: "book",
  monograph: "book",
  "edited-book": "book",
  report: "techreport",
  dissertation: "phdthesis",
  "posted-content": "misc",
};

/** A work outside the mirrors (a Crossref or OpenAlex match) as BibTeX, from the fields its source gave. */
export function workToBibtex(work: Candidate): string {
  const venue = work.venue;
  const type = WORK_TYPES[venue?.type ?? ""] ?? "misc";
  const fields: [string, string][] = [];
  const add = (name: string, value: string | null | undefined) => {
    if (value) fields.push([name, `{${value}}`]);
  };
  const record = work[RECORD];
  const people = record?.people ?? (record?.authors ?? work.authors).map(splitName);
  const family = people[0]?.family ?? "anon";
  const key = `${
    family
      .normalize("NFKD")
      .replace(/[^A-Za-z]/g, "")
      .toLowerCase() || "anon"
  }${work.year ?? ""}`;
  add("title", bibtexText(work.title, { title: true }));
  // The record's whole list, in the parts its source gave (Crossref's family "Del Maestro" is not re-split);
  // past CITED_AUTHORS_MAX, the first and "others" (INSPIRE's rule, as papers_export_citations writes it).
  add(
    "author",
    (people.length > CITED_AUTHORS_MAX ? [bibtexName(people[0]!), "others"] : people.map(bibtexName)).join(" and "),
  );
  const container = venue?.container && bibtexText(venue.container);
  if (type !== "book") add(type === "article" ? "journal" : "booktitle", container);
  add("volume", venue?.volume && bibtexText(venue.volume));
  add("number", venue?.issue && bibtexText(venue.issue));
  add("pages", venue?.page && bibtexText(venue.page.replace(/-+/, "--")));
  add("publisher", type === "book" || type === "incollection" ? venue?.publisher && bibtexText(venue.publisher) : null);
  if (work.year !== null) add("year", String(work.year));
  add("doi", work.doi && bibtexVerbatim(work.doi));
  return `% ${work.doi ?? work.id}: from ${work.source === "openalex" ? "OpenAlex" : "Crossref"}\n@${type}{${key},\n${fields.map(([n, v]) => `  ${n} = ${v}`).join(",\n")}\n}`;
}
