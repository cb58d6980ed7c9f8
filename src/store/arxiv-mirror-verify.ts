// Verifying the arXiv mirror: the whole-database checks (npm run mirror:verify) and, after a harvest
// run on a large mirror, the same checks in slices, one queue message each.
import {
  FTS_INTEGRITY_SQL,
  FTS_STRUCTURE_SQL,
  MIRROR_SCHEMA_VERSION,
  VERIFY_COUNTS_SQL,
  type VerifyCounts,
} from "./arxiv-row";
import type { MirrorShard } from "./arxiv-shards";

export interface VerifyResult {
  ok: boolean;
  integrity: string;
  fts_integrity: string;
  papers: number;
  category_rows: number;
  papers_without_primary_category_row: number;
  orphan_category_rows: number;
  /** Papers in a shard whose key range does not hold them (a shard move left half done). */
  papers_outside_their_shard: number;
  state_records: number | null;
  schema_version: number | null;
  checked_at: string;
}

/** The first key past a shard, as SQL can bind it. */
const endOf = (shard: MirrorShard) => (Number.isFinite(shard.endKey) ? shard.endKey : Number.MAX_SAFE_INTEGER);

/**
 * SQLite integrity check, FTS5 integrity check, and counts that must agree, on every shard: each
 * shard's papers lie in its key range and its own harvest_state.records counts them.
 */
export async function verifyMirror(shards: readonly MirrorShard[]): Promise<VerifyResult> {
  const parts: Awaited<ReturnType<typeof checkShard>>[] = [];
  // One shard after another: each check holds its database for a while, not all at once.
  for (const shard of shards) parts.push(await checkShard(shard));
  const joined = (texts: string[]) =>
    texts.every((text) => text === "ok")
      ? "ok"
      : texts.map((text, i) => (shards.length > 1 ? `${shards[i]!.binding}: ${text}` : text)).join("; ");
  const sum = (pick: (part: (typeof parts)[number]) => number) => parts.reduce((total, part) => total + pick(part), 0);
  const result: VerifyResult = {
    ok: false,
    integrity: joined(parts.map((part) => part.integrity)),
    fts_integrity: joined(parts.map((part) => part.fts)),
    papers: sum((part) => part.counts.papers),
    category_rows: sum((part) => part.counts.category_rows),
    papers_without_primary_category_row: sum((part) => part.counts.missing),
    orphan_category_rows: sum((part) => part.counts.orphans),
    papers_outside_their_shard: sum((part) => part.misplaced),
    state_records: parts.some((part) => part.counts.state_records === null)
      ? null
      : sum((part) => part.counts.state_records ?? 0),
    schema_version: parts.every((part) => part.counts.schema_version === parts[0]!.counts.schema_version)
      ? parts[0]!.counts.schema_version
      : null,
    checked_at: new Date().toISOString(),
  };
  result.ok =
    result.integrity === "ok" &&
    result.fts_integrity === "ok" &&
    result.papers_without_primary_category_row === 0 &&
    result.orphan_category_rows === 0 &&
    result.papers_outside_their_shard === 0 &&
    parts.every((part) => part.counts.state_records === null || part.counts.state_records === part.counts.papers) &&
    result.schema_version === MIRROR_SCHEMA_VERSION;
  return result;
}

async function checkShard(shard: MirrorShard) {
  const { db } = shard;
  const integrity = await db.prepare("PRAGMA quick_check").all<Record<string, string>>();
  let fts = "ok";
  try {
    await db.prepare(FTS_INTEGRITY_SQL).run();
  } catch (error) {
    fts = error instanceof Error ? error.message : String(error);
  }
  const counts = (await db.prepare(VERIFY_COUNTS_SQL).first<VerifyCounts>())!;
  const outside = await db
    .prepare("SELECT count(*) AS n FROM arxiv_papers WHERE paper_key < ? OR paper_key >= ?")
    .bind(shard.firstKey, endOf(shard))
    .first<{ n: number }>();
  return {
    integrity: integrity.results.map((row) => Object.values(row)[0]).join("; "),
    fts,
    counts,
    misplaced: outside?.n ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Verify in slices: on a large mirror the whole-database checks (quick_check, FTS5's
// integrity-check against the content) take longer than D1 allows one statement (30 s) and
// would hold the database for that long. After a harvest, a large mirror is checked in slices,
// one queue message each, none of whose statements reads more than one slice of an index:
// papers in key order (primary-category row, FTS entry), then each category's rows in key
// order (orphans), then the totals. The whole-database checks stay in npm run mirror:verify.

/** Up to this many papers, the post-run verify runs every check at once (3.4 s measured at 100,000). */
export const FULL_VERIFY_MAX_PAPERS = 100_000;
/** FTS5's structure check takes about 4.5 s per million papers: above this it is left to mirror:verify. */
const FTS_CHECK_MAX_PAPERS = 1_000_000;

export interface SliceCounts {
  papers: number;
  missing: number;
  fts_missing: number;
  fts_orphans: number;
  orphans: number;
  category_rows: number;
  /** Papers outside their shard's key range. */
  misplaced?: number;
}

/**
 * The next `size` papers after a key: each must have its primary-category row and an FTS entry,
 * and no FTS entry in the keys they span may lack its paper. last is null when no paper is left.
 */
export async function verifyPaperSlice(
  shard: MirrorShard,
  after: number,
  size: number,
): Promise<{
  last: number | null;
  counts: Pick<SliceCounts, "papers" | "missing" | "fts_missing" | "fts_orphans"> & { misplaced: number };
}> {
  const { db } = shard;
  const row = await db
    .prepare(
      `SELECT max(paper_key) AS last, count(*) AS n, coalesce(sum(paper_key < ?3 OR paper_key >= ?4), 0) AS misplaced,
              coalesce(sum(NOT EXISTS (SELECT 1 FROM arxiv_paper_categories c WHERE c.category =
                json_extract(s.categories, '$[0]') AND c.paper_key = s.paper_key)), 0) AS missing,
              coalesce(sum(NOT EXISTS (SELECT 1 FROM arxiv_papers_fts_docsize d WHERE d.id = s.paper_key)), 0) AS fts_missing
       FROM (SELECT paper_key, categories FROM arxiv_papers WHERE paper_key > ?1 ORDER BY paper_key LIMIT ?2) s`,
    )
    .bind(after, size, shard.firstKey, endOf(shard))
    .first<{ last: number | null; n: number; misplaced: number; missing: number; fts_missing: number }>();
  const last = row?.last ?? null;
  // FTS entries between the previous slice and this one's end (after the last paper: all the rest, a slice at a time).
  const orphans = await (last === null
    ? db
        .prepare("SELECT count(*) AS n FROM (SELECT id FROM arxiv_papers_fts_docsize WHERE id > ? ORDER BY id LIMIT ?)")
        .bind(after, size)
    : db
        .prepare(
          "SELECT count(*) AS n FROM arxiv_papers_fts_docsize d WHERE d.id > ? AND d.id <= ? AND NOT " +
            "EXISTS (SELECT 1 FROM arxiv_papers p WHERE p.paper_key = d.id)",
        )
        .bind(after, last)
  ).first<{ n: number }>();
  return {
    last,
    counts: {
      papers: row?.n ?? 0,
      missing: row?.missing ?? 0,
      fts_missing: row?.fts_missing ?? 0,
      fts_orphans: orphans?.n ?? 0,
      misplaced: row?.misplaced ?? 0,
    },
  };
}

/**
 * The next `size` rows of one category after a key, checked for rows whose paper is gone.
 * Then (when the category is done) the category after it, found by one index seek.
 */
export async function verifyCategorySlice(
  db: D1Database,
  category: string,
  after: number,
  size: number,
): Promise<{ next: { category: string; after: number } | null; rows: number; orphans: number }> {
  const row = await db
    .prepare(
      `SELECT max(paper_key) AS last, count(*) AS n, coalesce(sum(NOT EXISTS (SELECT 1 FROM arxiv_papers p
        WHERE p.paper_key = c.paper_key)), 0) AS orphans
       FROM (SELECT paper_key FROM arxiv_paper_categories WHERE category = ? AND paper_key > ? ORDER BY paper_key LIMIT ?) c`,
    )
    .bind(category, after, size)
    .first<{ last: number | null; n: number; orphans: number }>();
  const rows = row?.n ?? 0;
  const orphans = row?.orphans ?? 0;
  if (rows === size && row?.last != null) return { next: { category, after: row.last }, rows, orphans };
  const following = await nextCategory(db, category);
  return { next: following === null ? null : { category: following, after: Number.MIN_SAFE_INTEGER }, rows, orphans };
}

/** The first category code after `category` in the junction ("" for the first one). */
export async function nextCategory(db: D1Database, category: string): Promise<string | null> {
  const row = await db
    .prepare("SELECT category FROM arxiv_paper_categories WHERE category > ? ORDER BY category LIMIT 1")
    .bind(category)
    .first<{ category: string }>();
  return row?.category ?? null;
}

/** The end of a sliced verify: the counts must agree, and (up to a size) each shard's FTS index structure is checked. */
export async function finishSlicedVerify(shards: readonly MirrorShard[], counts: SliceCounts): Promise<VerifyResult> {
  const totals = await Promise.all(
    shards.map((shard) =>
      shard.db
        .prepare(
          "SELECT (SELECT records FROM harvest_state WHERE source = 'arxiv') AS state_records, (SELECT " +
            "version FROM mirror_schema WHERE source = 'arxiv') AS schema_version",
        )
        .first<{ state_records: number | null; schema_version: number | null }>(),
    ),
  );
  const stateRecords = totals.some((row) => row?.state_records == null)
    ? null
    : totals.reduce((sum, row) => sum + row!.state_records!, 0);
  const schemaVersion = totals.every((row) => row?.schema_version === totals[0]?.schema_version)
    ? (totals[0]?.schema_version ?? null)
    : null;
  let ftsIntegrity = "ok (index structure)";
  if (counts.papers <= FTS_CHECK_MAX_PAPERS) {
    for (const shard of shards) {
      try {
        await shard.db.prepare(FTS_STRUCTURE_SQL).run();
      } catch (error) {
        ftsIntegrity = `${shards.length > 1 ? `${shard.binding}: ` : ""}${error instanceof Error ? error.message : String(error)}`;
        break;
      }
    }
  } else {
    ftsIntegrity = "entries checked per slice; the index structure check is left to npm run mirror:verify at this size";
  }
  if (counts.fts_missing > 0 || counts.fts_orphans > 0)
    ftsIntegrity = `${counts.fts_missing} paper(s) without an FTS entry, ${counts.fts_orphans} FTS entr(ies) without a paper`;
  const misplaced = counts.misplaced ?? 0;
  return {
    ok:
      (ftsIntegrity.startsWith("ok") || ftsIntegrity.startsWith("entries checked")) &&
      counts.missing === 0 &&
      counts.orphans === 0 &&
      misplaced === 0 &&
      (stateRecords === null || stateRecords === counts.papers) &&
      schemaVersion === MIRROR_SCHEMA_VERSION,
    integrity: "not run after a harvest at this size (npm run mirror:verify)",
    fts_integrity: ftsIntegrity,
    papers: counts.papers,
    category_rows: counts.category_rows,
    papers_without_primary_category_row: counts.missing,
    orphan_category_rows: counts.orphans,
    papers_outside_their_shard: misplaced,
    state_records: stateRecords,
    schema_version: schemaVersion,
    checked_at: new Date().toISOString(),
  };
}
