// One harvested arXiv record and its row in arxiv_papers, both ways. Pure (no runtime imports),
// so the seed builder in scripts/ runs this same code under Node.
/** The mirror layout this code writes and reads (mirror_schema.version; bumped by a migration that changes it). */
export const MIRROR_SCHEMA_VERSION = 2;

/** A paper as OAI-PMH (or a bulk metadata file) describes it: the latest version. */
export interface MirrorRecord {
  id: string; // base ID
  style: "new" | "legacy";
  title: string;
  authors: string; // arXiv's author line
  abstract: string;
  categories: string[]; // primary first
  versions: number[]; // Unix seconds of v1, v2, ...
  comment: string | null;
  journal_ref: string | null;
  doi: string | null;
  license: string | null;
  datestamp: string; // YYYY-MM-DD
}

export interface MirrorRow {
  paper_key: number;
  id: string;
  version: number;
  title: string;
  authors: string;
  abstract: string;
  categories: string;
  published: number;
  versions: string;
  comment: string | null;
  journal_ref: string | null;
  doi: string | null;
  license: string | null;
}

// Licence URLs are long and few: the two hosts are stored as a short prefix.
const LICENSE_PREFIXES: [string, string][] = [
  ["http://creativecommons.org/licenses/", "cc:"],
  ["http://creativecommons.org/publicdomain/", "ccpd:"],
  ["http://arxiv.org/licenses/", "arxiv:"],
];

export function compactLicense(url: string | null): string | null {
  if (url === null) return null;
  const normalized = url.trim().replace(/^https:/, "http:");
  for (const [prefix, short] of LICENSE_PREFIXES)
    if (normalized.startsWith(prefix)) return short + normalized.slice(prefix.length);
  return url.trim();
}

export function expandLicense(stored: string | null): string | null {
  if (stored === null) return null;
  for (const [prefix, short] of LICENSE_PREFIXES)
    if (stored.startsWith(short)) return prefix + stored.slice(short.length);
  return stored;
}

/** Whitespace as arXiv's API shows it: runs (the line wraps of OAI-PMH) become one space. */
export function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export function toMirrorRow(record: MirrorRecord, key: number): MirrorRow {
  const versions = record.versions.length > 0 ? record.versions : [0];
  return {
    paper_key: key,
    id: record.id,
    version: versions.length,
    title: squash(record.title),
    authors: squash(record.authors),
    abstract: squash(record.abstract),
    categories: JSON.stringify(record.categories),
    published: versions[0]!,
    versions: JSON.stringify(versions),
    comment: record.comment === null ? null : squash(record.comment),
    journal_ref: record.journal_ref === null ? null : squash(record.journal_ref),
    doi: record.doi === null ? null : squash(record.doi),
    license: compactLicense(record.license),
  };
}

/** Column order of the INSERT (the seed builder and the D1 writer share it). */
export const MIRROR_COLUMNS = [
  "paper_key",
  "id",
  "version",
  "title",
  "authors",
  "abstract",
  "categories",
  "published",
  "versions",
  "comment",
  "journal_ref",
  "doi",
  "license",
] as const satisfies readonly (keyof MirrorRow)[];

/**
 * Upsert that changes nothing when the stored row is the same (a replayed page), and never
 * replaces a newer version with an older one (pages can arrive out of order after a restart).
 */
export const UPSERT_SQL = `INSERT INTO arxiv_papers (${MIRROR_COLUMNS.join(", ")}) VALUES (${MIRROR_COLUMNS.map(() => "?").join(", ")})
ON CONFLICT (paper_key) DO UPDATE SET ${MIRROR_COLUMNS.filter((c) => c !== "paper_key")
  .map((c) => `${c} = excluded.${c}`)
  .join(", ")}
WHERE excluded.version >= arxiv_papers.version AND (${MIRROR_COLUMNS.filter((c) => c !== "paper_key")
  .map((c) => `arxiv_papers.${c} IS NOT excluded.${c}`)
  .join(" OR ")})`;

/** Splits arXiv's author line into names, with parenthesised affiliations kept apart. */
export function splitAuthors(line: string): { name: string; affiliations?: string[] }[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  const flush = () => {
    const name = current
      .trim()
      .replace(/^and\s+/i, "")
      .trim();
    if (name !== "") parts.push(name);
    current = "";
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "(") depth++;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && ch === ",") {
      flush();
      continue;
    }
    if (depth === 0 && (line.startsWith(" and ", i) || line.startsWith(" & ", i))) {
      flush();
      i += line.startsWith(" and ", i) ? 4 : 2;
      continue;
    }
    current += ch;
  }
  flush();
  return parts
    .map((part) => {
      const affiliations = [...part.matchAll(/\(([^()]*)\)/g)].map((m) => squash(m[1]!)).filter(Boolean);
      const name = squash(part.replace(/\([^()]*\)/g, " "));
      return affiliations.length > 0 ? { name, affiliations } : { name };
    })
    .filter((author) => author.name !== "");
}

/**
 * The counts the mirror's verify compares (src/store/arxiv-mirror-verify.ts in the Worker, and
 * scripts/arxiv/mirror-verify.ts from outside): every paper has its primary-category row, no
 * category row lacks its paper, and harvest_state.records equals the number of papers.
 */
const PAPERS_WITHOUT_PRIMARY_ROW = `(SELECT count(*) FROM arxiv_papers p WHERE NOT EXISTS (
     SELECT 1 FROM arxiv_paper_categories c WHERE c.category = json_extract(p.categories, '$[0]') AND c.paper_key = p.paper_key))`;
const TOTALS = `(SELECT count(*) FROM arxiv_paper_categories) AS category_rows,
  (SELECT count(*) FROM arxiv_paper_categories c WHERE NOT EXISTS (
     SELECT 1 FROM arxiv_papers p WHERE p.paper_key = c.paper_key)) AS orphans,
  (SELECT records FROM harvest_state WHERE source = 'arxiv') AS state_records,
  (SELECT version FROM mirror_schema WHERE source = 'arxiv') AS schema_version`;

export const VERIFY_COUNTS_SQL = `SELECT (SELECT count(*) FROM arxiv_papers) AS papers, ${PAPERS_WITHOUT_PRIMARY_ROW} AS missing,
  ${TOTALS}`;

export interface VerifyCounts {
  papers: number;
  category_rows: number;
  missing: number;
  orphans: number;
  state_records: number | null;
  schema_version: number | null;
}

/** FTS5's own check of the index against the papers table (rank 1: content included). */
export const FTS_INTEGRITY_SQL = "INSERT INTO arxiv_papers_fts (arxiv_papers_fts, rank) VALUES ('integrity-check', 1)";

/** FTS5's check of the index's own structure only (rank 0): about a quarter of the time. */
export const FTS_STRUCTURE_SQL = "INSERT INTO arxiv_papers_fts (arxiv_papers_fts, rank) VALUES ('integrity-check', 0)";

/**
 * A short fingerprint of everything a stored paper says (64-bit FNV-1a over its columns), the
 * same in the Worker, in tests and in Node scripts: the harvest benchmark compares a whole
 * mirror with its source by it.
 */
export function mirrorRowFingerprint(row: Omit<MirrorRow, "paper_key">): string {
  const text = JSON.stringify(MIRROR_COLUMNS.filter((column) => column !== "paper_key").map((column) => row[column]));
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0");
}
