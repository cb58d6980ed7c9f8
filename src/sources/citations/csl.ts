// CitationRecord -> CSL-JSON (the input format of citeproc, Zotero, Pandoc), valid against the
// CSL 1.0 csl-data schema.
import type { CitationRecord } from "./record";

export type CslItem = Record<string, unknown>;

export function toCsl(record: CitationRecord, key: string): CslItem {
  const item: CslItem = {
    id: key,
    "citation-key": key,
    type: record.kind === "nber" ? "report" : record.publishedAs ? "article-journal" : "article",
    title: record.title,
    author: record.authors.map((name) =>
      name.literal
        ? { literal: name.literal }
        : { family: name.family, given: name.given, ...(name.suffix ? { suffix: name.suffix } : {}) },
    ),
    URL: record.url,
    source: record.source,
  };
  if (record.year !== null)
    item.issued = { "date-parts": [record.month === null ? [record.year] : [record.year, record.month]] };
  if (record.doi) item.DOI = record.doi;
  const notes: string[] = [];
  if (record.kind === "arxiv") {
    item.publisher = "arXiv";
    item.number = `arXiv:${record.eprint!.id}${record.eprint!.version === null ? "" : `v${record.eprint!.version}`}`;
    item.archive = "arXiv";
    item.archive_location = record.eprint!.primaryClass;
    if (record.journal) {
      item["container-title"] = record.journal.name;
      item.volume = record.journal.volume;
      if (record.journal.issue) item.issue = record.journal.issue;
      item.page = [record.journal.firstPage, record.journal.lastPage].filter(Boolean).join("-");
      if (record.journal.year !== null) item.issued = { "date-parts": [[record.journal.year]] };
      if (record.year !== null) item["original-date"] = { "date-parts": [[record.year]] };
    } else if (record.publishedAs) item["container-title"] = record.publishedAs;
    if (record.doi !== record.sourceDoi) notes.push(`arXiv DOI: ${record.sourceDoi}`);
  } else {
    item.publisher = record.report!.institution;
    item.genre = "Working Paper";
    item["collection-title"] = record.report!.series;
    item.number = record.report!.number;
    if (record.publishedAs) notes.push(`Published as: ${record.publishedAs}`);
  }
  if (notes.length > 0) item.note = notes.join(". ");
  return item;
}
