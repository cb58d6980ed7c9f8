// The real arXiv records bundled in data/arxiv-sample (see its PROVENANCE.md) as mirror records:
// the seed for `npm start` and the word/author/category pools of the synthetic bench mirror.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { MirrorRecord } from "../../src/store/arxiv-row.ts";

export const SAMPLE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../data/arxiv-sample");

const seconds = (date: string) => {
  const ms = Date.parse(date.replace(/\s+\(.*\)\s*$/, "").trim());
  if (Number.isNaN(ms)) throw new Error(`not a date: ${date}`);
  return Math.floor(ms / 1000);
};
const day = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 10);
const orNull = (value: unknown) =>
  value === undefined || value === null || String(value).trim() === "" ? null : String(value);

/** One JSON line -> a mirror record. The two files differ only in a few field names. */
/** A line of either file, as JSON gives it. */
type SampleRow = Record<string, unknown> & {
  id: string;
  title: string;
  authors: string;
  abstract?: string;
  categories: string;
  versions: Record<string, string>[];
};

function toRecord(
  row: SampleRow,
  { versionDate, journalRef, datestamp }: { versionDate: string; journalRef: string; datestamp?: string },
): MirrorRecord {
  const versions = row.versions.map((v) => seconds(v[versionDate]!));
  return {
    id: row.id,
    style: row.id.includes("/") ? "legacy" : "new",
    title: row.title,
    authors: row.authors,
    abstract: row.abstract ?? "",
    categories: [...new Set(row.categories.split(/\s+/).filter(Boolean))],
    versions,
    comment: orNull(row.comments),
    journal_ref: orNull(row[journalRef]),
    doi: orNull(row.doi),
    license: orNull(row.license),
    datestamp: (datestamp && (row[datestamp] as string)) || day(versions[versions.length - 1]!),
  };
}
const ABS = { versionDate: "date", journalRef: "journal_ref" };
const KAGGLE = { versionDate: "created", journalRef: "journal-ref", datestamp: "update_date" };

const jsonl = (file: string): SampleRow[] =>
  readFileSync(path.join(SAMPLE_DIR, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/** Every bundled record with its metadata complete, one per ID (the later file wins). */
export function loadSampleRecords(): MirrorRecord[] {
  const byId = new Map<string, MirrorRecord>();
  for (const row of jsonl("arxiv-browse-abs_1129-records.jsonl"))
    if (row.versions?.length && row.title && row.categories) byId.set(row.id, toRecord(row, ABS));
  for (const row of jsonl("kaggle-arxiv-metadata-oai-snapshot_first200.jsonl")) byId.set(row.id, toRecord(row, KAGGLE));
  return [...byId.values()];
}

/** Titles and abstracts of the 2,261 quant-ph records (oai_dc), for the synthetic word pool. */
export function loadQuantPhTexts(): string[] {
  const xml = readFileSync(path.join(SAMPLE_DIR, "oai_dc-derived_quant-ph_2001_2261-records.xml"), "utf8");
  const texts: string[] = [];
  for (const match of xml.matchAll(/<title>([\s\S]*?)<\/title><description>([\s\S]*?)<\/description>/g))
    texts.push(`${match[1]} ${match[2]}`);
  return texts;
}
