// The arXiv mirror's lookups: papers by base ID (one query per shard holding one), the newest key,
// papers by DOI (every shard). They hand back stored rows; sources/arxiv/mirror.ts turns them into paper records.
import { paperKey } from "./arxiv-key";
import { MIRROR_COLUMNS, type MirrorRow } from "./arxiv-row";
import type { D1Reader } from "../search/rank";
import { byShard, type MirrorShard, shardOf } from "./arxiv-shards";
import { HELD_WORKS_COLUMN, keepHeldWorks } from "./held-works";

export type StoredRow = Omit<MirrorRow, "paper_key"> & { held_works?: string | null };
/** The stored columns a lookup or a search page reads (everything but the key). */
export const SELECT_COLUMNS = MIRROR_COLUMNS.filter((column) => column !== "paper_key")
  .map((column) => `p.${column}`)
  .join(", ");
/** A page's or a lookup's columns: the stored ones and the paper's cached OpenAlex works (store/held-works.ts). */
export const PAGE_COLUMNS = `${SELECT_COLUMNS}, ${HELD_WORKS_COLUMN}`;

/** Papers held for these base IDs (one primary-key seek each, in one query per shard; a D1 session may read a replica). */
export async function mirrorLookup(
  shards: readonly MirrorShard<D1Reader>[],
  baseIds: readonly string[],
): Promise<Map<string, StoredRow>> {
  const found = new Map<string, StoredRow>();
  if (baseIds.length === 0) return found;
  const groups = byShard(shards, baseIds, (id) => paperKey(id));
  const answers = await Promise.all(
    groups.map(async ({ shard, items }) => {
      const { results } = await shard.db
        .prepare(`SELECT ${PAGE_COLUMNS} FROM json_each(?) k JOIN arxiv_papers p ON p.paper_key = k.value`)
        .bind(JSON.stringify(items.map((id) => paperKey(id))))
        .all<StoredRow>();
      keepHeldWorks(results, shard.binding);
      return results;
    }),
  );
  for (const results of answers) for (const row of results) if (baseIds.includes(row.id)) found.set(row.id, row);
  // Not in its shard: while a rebalance moves papers (store/arxiv-shard-move.ts) it may still be in
  // another. Only IDs the mirror lacks cost these seeks.
  const missing = baseIds.filter((id) => !found.has(id));
  if (missing.length > 0 && shards.length > 1) {
    const elsewhere = await Promise.all(
      shards.map((shard) =>
        shard.db
          .prepare(`SELECT ${SELECT_COLUMNS} FROM json_each(?) k JOIN arxiv_papers p ON p.paper_key = k.value`)
          .bind(JSON.stringify(missing.filter((id) => shardOf(shards, paperKey(id)) !== shard).map(paperKey)))
          .all<StoredRow>(),
      ),
    );
    for (const { results } of elsewhere)
      for (const row of results) if (missing.includes(row.id)) found.set(row.id, row);
  }
  return found;
}

/** The newest paper key the mirror holds (papers enter in key order: a new submission has a higher key). */
export async function mirrorNewestKey(shards: readonly MirrorShard<D1Reader>[]): Promise<number> {
  // The newest shard that holds a paper holds the newest key.
  for (const shard of [...shards].reverse()) {
    const row = await shard.db
      .prepare("SELECT max(paper_key) AS newest FROM arxiv_papers")
      .first<{ newest: number | null }>();
    if (row?.newest != null) return row.newest;
  }
  return 0;
}

/** Papers whose DOI field is this DOI (case-insensitive; the arxiv_papers_doi index of every shard). */
export async function mirrorByDoi(shards: readonly MirrorShard<D1Reader>[], doi: string): Promise<StoredRow[]> {
  const answers = await Promise.all(
    shards.map((shard) =>
      shard.db
        .prepare(
          `SELECT ${SELECT_COLUMNS} FROM arxiv_papers p WHERE lower(p.doi) = lower(?) AND p.doi IS NOT NULL LIMIT 5`,
        )
        .bind(doi.trim())
        .all<StoredRow>(),
    ),
  );
  return answers.flatMap((answer) => answer.results).slice(0, 5);
}

/** Base IDs of the papers whose DOI field is one of these DOIs (lower-cased DOI -> base ID), a statement per 90 per shard. */
export async function mirrorIdsByDoi(
  shards: readonly MirrorShard<D1Reader>[],
  dois: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unique = [...new Set(dois.map((doi) => doi.trim().toLowerCase()))];
  for (let i = 0; i < unique.length; i += 90) {
    const chunk = unique.slice(i, i + 90);
    const answers = await Promise.all(
      shards.map((shard) =>
        shard.db
          .prepare(
            `SELECT p.id AS id, lower(p.doi) AS doi FROM arxiv_papers p WHERE p.doi IS NOT NULL AND lower(p.doi) IN (${chunk.map(() => "?").join(",")})`,
          )
          .bind(...chunk)
          .all<{ id: string; doi: string }>(),
      ),
    );
    for (const { results } of answers) for (const row of results) if (!out.has(row.doi)) out.set(row.doi, row.id);
  }
  return out;
}

/** A journal reference's tokens as the FTS index holds them in journal_ref (store/ knows no parser). */
export interface JournalRefTokens {
  /** Spellings of the page or article number ("013009", "13009"). */
  pages: readonly string[];
  /** Spellings of the volume ("76", "d76"; "0705", "jhep0705"). */
  volumes: readonly string[];
}

/**
 * Papers whose journal_ref holds one of these page spellings and one of these volume spellings
 * (the main index's journal_ref column, every shard in parallel: one round trip). A candidate
 * list: the resolver parses each row's journal_ref and keeps those naming the same journal,
 * volume and page. Tokens must be index tokens (letters and digits), so no FTS5 syntax gets in.
 */
export async function mirrorByJournalRef(
  shards: readonly MirrorShard<D1Reader>[],
  refs: readonly JournalRefTokens[],
  limit = 20,
): Promise<StoredRow[]> {
  const quoted = (tokens: readonly string[]) =>
    [...new Set(tokens.map((token) => token.toLowerCase()).filter((token) => /^[a-z0-9]+$/.test(token)))]
      .map((token) => `"${token}"`)
      .join(" OR ");
  const clauses = refs
    .map((ref) => [quoted(ref.pages), quoted(ref.volumes)] as const)
    .filter(([pages, volumes]) => pages !== "" && volumes !== "")
    .map(([pages, volumes]) => `((${pages}) AND (${volumes}))`);
  if (clauses.length === 0) return [];
  const match = `journal_ref : (${clauses.join(" OR ")})`;
  const answers = await Promise.all(
    shards.map((shard) =>
      shard.db
        .prepare(
          `SELECT ${SELECT_COLUMNS} FROM arxiv_papers_fts f JOIN arxiv_papers p ON p.paper_key = f.rowid
           WHERE arxiv_papers_fts MATCH ? LIMIT ?`,
        )
        .bind(match, limit)
        .all<StoredRow>(),
    ),
  );
  return answers.flatMap((answer) => answer.results);
}
