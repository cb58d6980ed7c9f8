// The arXiv mirror's lookups: papers by base ID (one query), the newest key, papers by DOI. They
// hand back stored rows; sources/arxiv/mirror.ts turns them into paper records.
import { paperKey } from "./arxiv-key";
import { MIRROR_COLUMNS, type MirrorRow } from "./arxiv-row";
import type { D1Reader } from "../search/rank";

export type StoredRow = Omit<MirrorRow, "paper_key">;
/** The stored columns a lookup or a search page reads (everything but the key). */
export const SELECT_COLUMNS = MIRROR_COLUMNS.filter((column) => column !== "paper_key")
  .map((column) => `p.${column}`)
  .join(", ");

/** Papers held for these base IDs (one primary-key seek each, in one query; a D1 session may read a replica). */
export async function mirrorLookup(db: D1Reader, baseIds: readonly string[]): Promise<Map<string, StoredRow>> {
  const found = new Map<string, StoredRow>();
  if (baseIds.length === 0) return found;
  const keys = baseIds.map((id) => paperKey(id));
  const { results } = await db
    .prepare(`SELECT ${SELECT_COLUMNS} FROM json_each(?) k JOIN arxiv_papers p ON p.paper_key = k.value`)
    .bind(JSON.stringify(keys))
    .all<StoredRow>();
  for (const row of results) if (baseIds.includes(row.id)) found.set(row.id, row);
  return found;
}

/** The newest paper key the mirror holds (papers enter in key order: a new submission has a higher key). */
export async function mirrorNewestKey(db: D1Reader): Promise<number> {
  const row = await db.prepare("SELECT max(paper_key) AS newest FROM arxiv_papers").first<{ newest: number | null }>();
  return row?.newest ?? 0;
}

/** Papers whose DOI field is this DOI (case-insensitive; the arxiv_papers_doi index). */
export async function mirrorByDoi(db: D1Reader, doi: string): Promise<StoredRow[]> {
  const { results } = await db
    .prepare(`SELECT ${SELECT_COLUMNS} FROM arxiv_papers p WHERE lower(p.doi) = lower(?) AND p.doi IS NOT NULL LIMIT 5`)
    .bind(doi.trim())
    .all<StoredRow>();
  return results;
}

/** Base IDs of the papers whose DOI field is one of these DOIs (lower-cased DOI -> base ID), a statement per 90. */
export async function mirrorIdsByDoi(db: D1Reader, dois: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unique = [...new Set(dois.map((doi) => doi.trim().toLowerCase()))];
  for (let i = 0; i < unique.length; i += 90) {
    const chunk = unique.slice(i, i + 90);
    const { results } = await db
      .prepare(
        `SELECT p.id AS id, lower(p.doi) AS doi FROM arxiv_papers p WHERE p.doi IS NOT NULL AND lower(p.doi) IN (${chunk.map(() => "?").join(",")})`,
      )
      .bind(...chunk)
      .all<{ id: string; doi: string }>();
    for (const row of results) if (!out.has(row.doi)) out.set(row.doi, row.id);
  }
  return out;
}
