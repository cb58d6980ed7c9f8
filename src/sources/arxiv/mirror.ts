// Mirror rows -> the paper record every arXiv tool returns (same shape as the live API's).
import { splitAuthors } from "../../store/arxiv-row";
import type { StoredRow } from "../../store/arxiv-mirror-lookup";
import { PUBLIC_ARXIV, type ArxivPaper } from "./paper";

const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");

export function rowToPaper(row: StoredRow): ArxivPaper {
  const id = `${row.id}v${row.version}`;
  const categories = JSON.parse(row.categories) as string[];
  const versions = JSON.parse(row.versions) as number[];
  return {
    id,
    base_id: row.id,
    version: row.version,
    title: row.title,
    abstract: row.abstract,
    authors: splitAuthors(row.authors),
    primary_category: categories[0] ?? "",
    categories,
    published: iso(row.published),
    updated: iso(versions[versions.length - 1] ?? row.published),
    comment: row.comment,
    journal_ref: row.journal_ref,
    doi: row.doi,
    abs_url: `${PUBLIC_ARXIV}/abs/${id}`,
    pdf_url: `${PUBLIC_ARXIV}/pdf/${id}`,
    html_url: `${PUBLIC_ARXIV}/html/${id}`,
    versions: versions.map((seconds, index) => ({ version: index + 1, date: iso(seconds) })),
  };
}
