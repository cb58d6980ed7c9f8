// A deterministic synthetic arXiv mirror for the search and ingest benchmarks. Every word, author,
// category set, comment and journal reference is drawn from the real records in
// data/arxiv-sample, so term frequencies and field lengths follow real metadata; only the IDs
// and dates are made up (new-style IDs spread evenly from 0704 to 2611). A journal reference or DOI
// names one article, so a synthetic paper keeps the journal and form of a real one but gets its
// own volume, page and DOI numbers: copied verbatim, each real reference would sit on ~1,600
// papers of a 1,000,000-paper mirror, which arXiv never has.
import { loadQuantPhTexts, loadSampleRecords } from "../arxiv/sample.ts";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { toMirrorRow, MIRROR_COLUMNS, splitAuthors, type MirrorRecord } from "../../src/store/arxiv-row.ts";
import { paperKey } from "../../src/store/arxiv-key.ts";
import { mulberry32 } from "../../test/support/random.ts";

export function samplePools() {
  const records = loadSampleRecords();
  const texts = [...records.map((r) => `${r.title} ${r.abstract}`), ...loadQuantPhTexts()];
  // Words in running-text order, so drawing a random position keeps real word frequencies.
  const words = texts
    .join(" ")
    .split(/\s+/)
    .filter((w) => /[A-Za-z]/.test(w));
  const authors = records.flatMap((r) => splitAuthors(r.authors).map((a) => a.name)).filter((n) => n.length < 60);
  const abstractLengths = records.map((r) => r.abstract.split(/\s+/).length).filter((n) => n > 20);
  const titleLengths = records.map((r) => r.title.split(/\s+/).length);
  return {
    words,
    authors,
    abstractLengths,
    titleLengths,
    categorySets: records.map((r) => r.categories),
    comments: records.map((r) => r.comment),
    journalRefs: records.map((r) => r.journal_ref),
    dois: records.map((r) => r.doi),
    licenses: records.map((r) => r.license),
  };
}

const FIRST_MONTH = 2007 * 12 + 3; // 0704
const LAST_MONTH = 2026 * 12 + 10; // 2611

/** Record i of a mirror of n papers (same i, n and seed: same record). */
export interface SynthesizeOptions {
  seed?: number;
  offset?: number;
  pools?: ReturnType<typeof samplePools>;
}

export function* synthesize(
  n: number,
  { seed = 20261201, offset = 0, pools = samplePools() }: SynthesizeOptions = {},
): Generator<MirrorRecord> {
  const months = LAST_MONTH - FIRST_MONTH + 1;
  const perMonth = Math.ceil(n / months);
  const random = mulberry32(seed + offset);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const phrase = (length: number) => {
    const out: string[] = [];
    for (let k = 0; k < length; k++) out.push(pick(pools.words));
    return out.join(" ");
  };
  for (let i = offset; i < offset + n; i++) {
    const month = FIRST_MONTH + Math.floor(i / perMonth);
    const number = (i % perMonth) + 1;
    const year = Math.floor(month / 12);
    const yymm = `${String(year % 100).padStart(2, "0")}${String((month % 12) + 1).padStart(2, "0")}`;
    const id = `${yymm}.${String(number).padStart(year * 100 + (month % 12) + 1 >= 201501 ? 5 : 4, "0")}`;
    const monthStart = Date.UTC(year, month % 12, 1) / 1000;
    const published = Math.floor(monthStart + (number / (perMonth + 1)) * 28 * 86400);
    const versionCount = 1 + Math.floor(random() * random() * 4);
    const versions = Array.from({ length: versionCount }, (_, v) => published + v * Math.floor(random() * 90 * 86400));
    const authorCount = 1 + Math.floor(random() * random() * 10);
    yield {
      id,
      style: "new" as const,
      title: phrase(pick(pools.titleLengths)),
      authors: Array.from({ length: authorCount }, () => pick(pools.authors)).join(", "),
      abstract: phrase(pick(pools.abstractLengths)),
      categories: pick(pools.categorySets),
      versions,
      comment: pick(pools.comments),
      journal_ref: renumbered(pick(pools.journalRefs), i, 1),
      doi: renumbered(pick(pools.dois), i, 2, /^10\.\d+\//),
      license: pick(pools.licenses),
      datestamp: new Date(versions[versions.length - 1] * 1000).toISOString().slice(0, 10),
    };
  }
}

/**
 * The text with its numbers redrawn (same digit count, no leading zero added; four-digit years
 * 1900-2029 kept), from a stream of its own per paper so that the other fields stay as before.
 * `keep` is a prefix left as it is (a DOI's registrant).
 */
export function renumbered<T extends string | null | undefined>(
  text: T,
  paper: number,
  field: number,
  keep?: RegExp,
): T {
  if (!text) return text;
  const random = mulberry32(Math.imul(paper + 1, 2654435761) ^ Math.imul(field, 0x5eed));
  const prefix = keep ? (text.match(keep)?.[0] ?? "") : "";
  const rest = text.slice(prefix.length).replace(/\d+/g, (digits) => {
    if (/^(19\d\d|20[0-2]\d)$/.test(digits)) return digits;
    let out = "";
    for (let k = 0; k < digits.length; k++) {
      const low = k === 0 && digits[0] !== "0" ? 1 : 0;
      out += String(low + Math.floor(random() * (10 - low)));
    }
    return out;
  });
  return (prefix + rest) as T;
}

/**
 * Inserts n synthetic papers into an open node:sqlite database that has the mirror schema, then
 * the real `known` records (each replaces a synthetic paper that has its ID).
 */
export function fillMirror(db: DatabaseSync, n: number, options: SynthesizeOptions = {}, known: MirrorRecord[] = []) {
  const insert = db.prepare(
    `INSERT INTO arxiv_papers (${MIRROR_COLUMNS.join(", ")}) VALUES (${MIRROR_COLUMNS.map(() => "?").join(", ")})`,
  );
  const remove = db.prepare("DELETE FROM arxiv_papers WHERE paper_key = ?");
  db.exec("BEGIN");
  let done = 0;
  const all = function* () {
    yield* synthesize(n, options);
    yield* known;
  };
  for (const record of all()) {
    if (done >= n) remove.run(paperKey(record.id));
    const row = toMirrorRow(record, paperKey(record.id));
    insert.run(...MIRROR_COLUMNS.map((column) => row[column] as SQLInputValue));
    if (++done % 50_000 === 0) {
      db.exec("COMMIT");
      db.exec("BEGIN");
    }
  }
  db.exec("COMMIT");
}
