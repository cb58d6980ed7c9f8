// The arXiv mirror in D1: page writes (records + checkpoint in one batch), lookups by ID, the
// search executor, readiness and verification. It hands back stored rows; sources/arxiv/mirror.ts
// turns them into paper records, and sources/arxiv/mirror-query.ts plans the searches.
import { monthEndKey, monthStartKey, paperKey } from "./arxiv-key";
import {
  FTS_INTEGRITY_SQL,
  FTS_STRUCTURE_SQL,
  MIRROR_COLUMNS,
  MIRROR_SCHEMA_VERSION,
  toMirrorRow,
  UPSERT_SQL,
  VERIFY_COUNTS_SQL,
  type MirrorRecord,
  type MirrorRow,
  type VerifyCounts,
} from "./arxiv-row";
import type { TextQuery } from "../search/expression";
import { toMatch } from "../search/expression";
import { rankRelevance, type RANK_TUNING, type D1Reader, type KeyFilters, type RankMethod } from "../search/rank";

export type { D1Reader };

/** Statements that write one page's records; the caller adds its checkpoint and runs one batch. */
export function pageWriteStatements(
  db: D1Database,
  records: readonly MirrorRecord[],
  deletedIds: readonly string[],
): D1PreparedStatement[] {
  const upsert = db.prepare(UPSERT_SQL);
  const remove = db.prepare("DELETE FROM arxiv_papers WHERE paper_key = ? AND id = ?");
  return [
    ...records.map((record) => {
      const row = toMirrorRow(record, paperKey(record.id));
      return upsert.bind(...MIRROR_COLUMNS.map((column) => row[column]));
    }),
    ...deletedIds.map((id) => remove.bind(paperKey(id), id)),
  ];
}

export type StoredRow = Omit<MirrorRow, "paper_key">;
const SELECT_COLUMNS = MIRROR_COLUMNS.filter((column) => column !== "paper_key")
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

export interface MirrorState {
  /** The mirror holds everything in its scope (its first cold harvest completed, or a seed) and its schema is known. */
  ready: boolean;
  /** Why the mirror cannot answer as a whole one, when it is not ready. */
  reason?: string;
  /** A first harvest is under way (or stopped): the mirror holds some papers, not all. It answers only when arXiv cannot. */
  partial?: { papers: number; description: string };
  papers: number;
  status: string;
  lastDatestamp: string | null;
  /** What the mirror holds all of: "all of arXiv", an OAI set, "the bundled sample". */
  scope: string | null;
  /** When the last harvest run completed, and whether the latest run failed since (the mirror still serves). */
  lastSuccessAt: string | null;
  latestRunFailed: boolean;
  watermark: string | null;
}

// Readiness is read on every search and lookup; it changes once a day, so an isolate keeps it
// for a few seconds (a finished harvest shows within that time).
const STATE_TTL_MS = 5_000;
const stateMemo = new WeakMap<D1Database, { at: number; state: Promise<MirrorState> }>();

export function forgetMirrorState(db: D1Database): void {
  stateMemo.delete(db);
}

/**
 * The mirror answers as a whole once a cold harvest has completed at least once (or a seed
 * loaded it) and its schema is the one this Worker knows. A running or failed refresh does not
 * stop it answering; a first harvest still under way makes it partial, never whole.
 */
export function mirrorState(db: D1Database): Promise<MirrorState> {
  const memo = stateMemo.get(db);
  if (memo && Date.now() - memo.at < STATE_TTL_MS) return memo.state;
  const state = readMirrorState(db);
  stateMemo.set(db, { at: Date.now(), state });
  state.catch(() => stateMemo.delete(db));
  return state;
}

async function readMirrorState(db: D1Database): Promise<MirrorState> {
  const row = await db
    .prepare(
      `SELECT (SELECT version FROM mirror_schema WHERE source = 'arxiv') AS schema_version,
              h.status, h.records, h.last_datestamp, h.complete_at, h.complete_scope, h.last_success_at, h.watermark, h.mode,
              (SELECT max(coalesce(until_date, 'now')) FROM arxiv_harvest_windows w WHERE w.run_id = h.run_id AND w.status = 'done') AS listed_until
       FROM (SELECT 1) LEFT JOIN harvest_state h ON h.source = 'arxiv'`,
    )
    .first<{
      schema_version: number | null;
      status: string | null;
      records: number | null;
      last_datestamp: string | null;
      complete_at: string | null;
      complete_scope: string | null;
      last_success_at: string | null;
      watermark: string | null;
      mode: string | null;
      listed_until: string | null;
    }>();
  const papers = row?.records ?? 0;
  const base = {
    papers,
    status: row?.status ?? "idle",
    lastDatestamp: row?.last_datestamp ?? null,
    scope: row?.complete_scope ?? null,
    lastSuccessAt: row?.last_success_at ?? null,
    latestRunFailed: row?.status === "error",
    watermark: row?.watermark ?? null,
  };
  if (row?.schema_version !== MIRROR_SCHEMA_VERSION) {
    return {
      ...base,
      ready: false,
      reason: `the mirror's schema is version ${row?.schema_version ?? "none"}, this server reads ${MIRROR_SCHEMA_VERSION}`,
    };
  }
  if (row?.complete_at == null) {
    if (papers === 0)
      return { ...base, ready: false, reason: "the mirror holds no papers yet (its first harvest has not run)" };
    const listed =
      row.mode === "cold" && row.listed_until
        ? `; its first harvest has listed records dated up to ${row.listed_until}`
        : "";
    const description = `the mirror is partial: it holds ${papers.toLocaleString("en-US")} papers so far${listed}, and its first full harvest has not completed (${base.status})`;
    return { ...base, ready: false, reason: description, partial: { papers, description } };
  }
  return { ...base, ready: true };
}

export interface VerifyResult {
  ok: boolean;
  integrity: string;
  fts_integrity: string;
  papers: number;
  category_rows: number;
  papers_without_primary_category_row: number;
  orphan_category_rows: number;
  state_records: number | null;
  schema_version: number | null;
  checked_at: string;
}

/** SQLite integrity check, FTS5 integrity check, and counts that must agree. */
export async function verifyMirror(db: D1Database): Promise<VerifyResult> {
  const integrity = await db.prepare("PRAGMA quick_check").all<Record<string, string>>();
  const integrityText = integrity.results.map((row) => Object.values(row)[0]).join("; ");
  let ftsIntegrity = "ok";
  try {
    await db.prepare(FTS_INTEGRITY_SQL).run();
  } catch (error) {
    ftsIntegrity = error instanceof Error ? error.message : String(error);
  }
  const counts = await db.prepare(VERIFY_COUNTS_SQL).first<VerifyCounts>();
  const result: VerifyResult = {
    ok: false,
    integrity: integrityText,
    fts_integrity: ftsIntegrity,
    papers: counts!.papers,
    category_rows: counts!.category_rows,
    papers_without_primary_category_row: counts!.missing,
    orphan_category_rows: counts!.orphans,
    state_records: counts!.state_records,
    schema_version: counts!.schema_version,
    checked_at: new Date().toISOString(),
  };
  result.ok =
    integrityText === "ok" &&
    ftsIntegrity === "ok" &&
    result.papers_without_primary_category_row === 0 &&
    result.orphan_category_rows === 0 &&
    (result.state_records === null || result.state_records === result.papers) &&
    result.schema_version === MIRROR_SCHEMA_VERSION;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Search

/** Counting stops here; a total that reaches it is a lower bound. */
export const COUNT_CAP = 10_000;
/** At most this many candidate rows are examined to count a filtered search. */
export const SCAN_CAP = 20_000;
/** Up to this many hits are sorted exactly by date; more are walked in key (= submission) order. */
export const RANK_CAP = 2_000;

export interface MirrorSearchPlan {
  match: TextQuery | null;
  categoryGroups: string[][];
  excludedCategories: string[];
  submitted: { from: number; to: number } | null;
}

export interface MirrorSearchOptions {
  sortBy: "relevance" | "submitted" | "updated";
  sortOrder: "ascending" | "descending";
  start: number;
  limit: number;
  /** Tests shrink these to reach the ceilings with a small mirror. */
  caps?: { count: number; scan: number; rank: number };
  /** Tests shrink the ranker's candidate sets to reach its other paths. */
  tuning?: Partial<typeof RANK_TUNING>;
  /** Answer even when papers dated in the window have IDs of far-off months (they are missed). */
  ignoreDateOutliers?: boolean;
  /** Filled with the ranker's stage times (the bench). */
  trace?: Record<string, number>;
  /** Every hit scored, in plain BM25 order (the bench's reference ranking). */
  reference?: boolean;
}

/** relevance: BM25 order; newest_first: no words to rank, so the page is listed newest first. */
export type MirrorOrdering = "relevance" | "submitted" | "updated" | "newest_first";

export type MirrorSearchResult =
  | {
      kind: "answer";
      total: number;
      totalIsLowerBound: boolean;
      rows: MirrorRow[];
      ordering: MirrorOrdering;
      method?: RankMethod;
    }
  | { kind: "live"; reason: string; mirrorCouldApproximate: boolean };

const MONTH_SECONDS = 31 * 86_400;

/** A category code as an SQL literal: codes are validated against the taxonomy, and literals keep D1's 100 bound values for the rest. */
function categoryLiteral(code: string): string {
  if (!/^[A-Za-z0-9.*-]+$/.test(code)) throw new Error(`not a category value: ${code}`);
  return `'${code}'`;
}

/** The category and date conditions of a plan on a paper key expression (no bound values: literals and numbers). */
function keyFilters(plan: MirrorSearchPlan, groups = plan.categoryGroups): KeyFilters {
  return (key: string) => {
    const clauses: string[] = [];
    for (const group of groups) {
      clauses.push(
        `EXISTS (SELECT 1 FROM arxiv_paper_categories c WHERE c.category IN (${group.map(categoryLiteral).join(", ")}) AND c.paper_key = ${key})`,
      );
    }
    if (plan.excludedCategories.length > 0) {
      clauses.push(
        `NOT EXISTS (SELECT 1 FROM arxiv_paper_categories c WHERE c.category IN (${plan.excludedCategories.map(categoryLiteral).join(", ")}) AND c.paper_key = ${key})`,
      );
    }
    if (plan.submitted !== null) {
      const { from, to } = plan.submitted;
      // Key order is the ID's month, and a paper's v1 date lies within a month of it (usually
      // inside it; the first 0704 IDs went to papers of 31 March, an old adap-org one was dated
      // five days after its month). So keys of months that sit at least that margin inside the
      // window need no date check, and only the months near its edges read the paper's date.
      const outerLo = monthStartKey(new Date((from - MONTH_SECONDS) * 1000));
      const outerHi = monthEndKey(new Date((to + MONTH_SECONDS) * 1000));
      const innerLo = monthEndKey(new Date((from + MONTH_SECONDS) * 1000)) + 1;
      const innerHi = monthStartKey(new Date((to - MONTH_SECONDS) * 1000)) - 1;
      clauses.push(`${key} BETWEEN ${outerLo} AND ${outerHi}`);
      clauses.push(
        `((${key} BETWEEN ${innerLo} AND ${innerHi} AND ${key} NOT IN (SELECT paper_key FROM arxiv_date_outliers)) OR (SELECT published FROM arxiv_papers WHERE paper_key = ${key}) BETWEEN ${Math.trunc(from)} AND ${Math.trunc(to)})`,
      );
    }
    return { clauses, binds: [] };
  };
}

interface Source {
  from: string;
  where: string[];
  binds: unknown[];
  key: string;
  /** The driver is arxiv_papers itself (aliased p): the page needs no join. */
  isPapers?: boolean;
}

/** What the walk is driven by (the FTS index, one category's rows, or the papers) and the conditions left for each row. */
function buildSource(plan: MirrorSearchPlan): { source: Source; filters: string[] } {
  const groups = [...plan.categoryGroups];
  let source: Source;
  if (plan.match !== null) {
    source = {
      from: "arxiv_papers_fts",
      where: ["arxiv_papers_fts MATCH ?"],
      binds: [toMatch(plan.match)],
      key: "arxiv_papers_fts.rowid",
    };
  } else {
    const single = groups.findIndex((group) => group.length === 1);
    if (single >= 0) {
      const [value] = groups.splice(single, 1)[0]!;
      source = {
        from: "arxiv_paper_categories d",
        where: [`d.category = ${categoryLiteral(value!)}`],
        binds: [],
        key: "d.paper_key",
      };
    } else {
      source = { from: "arxiv_papers p", where: [], binds: [], key: "p.paper_key", isPapers: true };
    }
  }
  const { clauses } = keyFilters(plan, groups)(source.key);
  // The key range of a date window drives the walk itself (an FTS5 rowid range, a junction range).
  const range = clauses.findIndex((clause) => clause.startsWith(`${source.key} BETWEEN`));
  if (range >= 0) source.where.push(...clauses.splice(range, 1));
  return { source, filters: clauses };
}

/** Papers dated in the window whose keys lie outside the window's key range (a few old oddities). */
async function outliersOutsideRange(db: D1Reader, submitted: { from: number; to: number }): Promise<number> {
  const outerLo = monthStartKey(new Date((submitted.from - MONTH_SECONDS) * 1000));
  const outerHi = monthEndKey(new Date((submitted.to + MONTH_SECONDS) * 1000));
  const row = await db
    .prepare(
      "SELECT count(*) AS n FROM arxiv_date_outliers WHERE published BETWEEN ? AND ? AND paper_key NOT BETWEEN ? AND ?",
    )
    .bind(submitted.from, submitted.to, outerLo, outerHi)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export async function searchMirror(
  db: D1Reader,
  plan: MirrorSearchPlan,
  options: MirrorSearchOptions,
): Promise<MirrorSearchResult> {
  if (plan.submitted !== null && !options.ignoreDateOutliers) {
    const outliers = await outliersOutsideRange(db, plan.submitted);
    if (outliers > 0) {
      return {
        kind: "live",
        mirrorCouldApproximate: true,
        reason: `${outliers} paper(s) dated in this window carry IDs of other months, which the mirror's date filter would miss`,
      };
    }
  }
  const { source, filters } = buildSource(plan);
  const {
    count: countCap,
    scan: scanCap,
    rank: rankCap,
  } = options.caps ?? { count: COUNT_CAP, scan: SCAN_CAP, rank: RANK_CAP };
  const key = source.key;
  const baseWhere = source.where.length > 0 ? `WHERE ${source.where.join(" AND ")}` : "";
  const filtered = filters.length > 0;
  // Exact up to the cap; the walk stops there (a filtered count examines at most scanCap rows).
  const countStatement = db
    .prepare(
      filtered
        ? `SELECT count(*) AS scanned, coalesce(sum(ok), 0) AS matched FROM (SELECT CASE WHEN ${filters.join(" AND ")} THEN 1 ELSE 0 END AS ok FROM ${source.from} ${baseWhere} ORDER BY ${key} DESC LIMIT ${scanCap})`
        : `SELECT count(*) AS scanned, count(*) AS matched FROM (SELECT 1 FROM ${source.from} ${baseWhere} ORDER BY ${key} DESC LIMIT ${countCap})`,
    )
    .bind(...source.binds);
  const lowerBound = (counted: { scanned: number; matched: number }) =>
    filtered ? counted.scanned >= scanCap || counted.matched >= countCap : counted.scanned >= countCap;

  if (options.sortBy === "relevance" && plan.match !== null) {
    // Relevance with words: always BM25 order, whatever the number of hits (src/search/rank.ts).
    const ranked = await rankRelevance<MirrorRow>(db, {
      query: plan.match,
      filters: keyFilters(plan),
      count: countStatement,
      isLowerBound: lowerBound,
      select: SELECT_COLUMNS,
      start: options.start,
      limit: options.limit,
      ascending: options.sortOrder === "ascending",
      ...(options.tuning ? { tuning: options.tuning } : {}),
      ...(options.trace ? { trace: options.trace } : {}),
      ...(options.reference ? { reference: true } : {}),
    });
    if (ranked.live !== undefined) return { kind: "live", reason: ranked.live, mirrorCouldApproximate: true };
    const totalIsLowerBound = lowerBound(ranked.counted);
    return {
      kind: "answer",
      total: Math.min(ranked.counted.matched, countCap),
      totalIsLowerBound,
      rows: ranked.rows,
      ordering: "relevance",
      method: ranked.method,
    };
  }

  const counted = await countStatement.first<{ scanned: number; matched: number }>();
  const matched = Math.min(counted?.matched ?? 0, countCap);
  const totalIsLowerBound = lowerBound({ scanned: counted?.scanned ?? 0, matched: counted?.matched ?? 0 });
  const exact = !totalIsLowerBound && matched <= rankCap;

  if (options.sortBy === "updated" && !exact) {
    return {
      kind: "live",
      mirrorCouldApproximate: false,
      reason: `sorting ${totalIsLowerBound ? `over ${matched.toLocaleString("en-US")}` : matched.toLocaleString("en-US")} hits by last update needs arXiv's index (the mirror sorts at most ${rankCap.toLocaleString("en-US")})`,
    };
  }
  const direction = options.sortOrder === "ascending" ? "ASC" : "DESC";
  let ordering: MirrorOrdering;
  let orderBy: string;
  if (options.sortBy === "updated") {
    ordering = "updated";
    orderBy = `json_extract(p.versions, '$[#-1]') ${direction}, ${key} ${direction}`;
  } else if (options.sortBy === "submitted" && exact) {
    ordering = "submitted";
    orderBy = `p.published ${direction}, ${key} ${direction}`;
  } else if (options.sortBy === "submitted") {
    ordering = "submitted";
    orderBy = `${key} ${direction}`;
  } else {
    // Relevance without words (only categories or dates): nothing to rank.
    ordering = "newest_first";
    orderBy = `${key} DESC`;
  }
  // The page with its rows in one query: the join touches only the rows the walk reaches.
  const where = [...source.where, ...filters];
  const join = source.isPapers ? "" : `JOIN arxiv_papers p ON p.paper_key = ${key}`;
  const pageSql = `SELECT p.paper_key AS paper_key, ${SELECT_COLUMNS} FROM ${source.from} ${join} ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY ${orderBy} LIMIT ? OFFSET ?`;
  const { results } = await db
    .prepare(pageSql)
    .bind(...source.binds, options.limit, options.start)
    .all<MirrorRow>();
  return { kind: "answer", total: matched, totalIsLowerBound, rows: results, ordering };
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
}

/**
 * The next `size` papers after a key: each must have its primary-category row and an FTS entry,
 * and no FTS entry in the keys they span may lack its paper. last is null when no paper is left.
 */
export async function verifyPaperSlice(
  db: D1Database,
  after: number,
  size: number,
): Promise<{ last: number | null; counts: Pick<SliceCounts, "papers" | "missing" | "fts_missing" | "fts_orphans"> }> {
  const row = await db
    .prepare(
      `SELECT max(paper_key) AS last, count(*) AS n,
              coalesce(sum(NOT EXISTS (SELECT 1 FROM arxiv_paper_categories c WHERE c.category = json_extract(s.categories, '$[0]') AND c.paper_key = s.paper_key)), 0) AS missing,
              coalesce(sum(NOT EXISTS (SELECT 1 FROM arxiv_papers_fts_docsize d WHERE d.id = s.paper_key)), 0) AS fts_missing
       FROM (SELECT paper_key, categories FROM arxiv_papers WHERE paper_key > ? ORDER BY paper_key LIMIT ?) s`,
    )
    .bind(after, size)
    .first<{ last: number | null; n: number; missing: number; fts_missing: number }>();
  const last = row?.last ?? null;
  // FTS entries between the previous slice and this one's end (after the last paper: all the rest, a slice at a time).
  const orphans = await (last === null
    ? db
        .prepare("SELECT count(*) AS n FROM (SELECT id FROM arxiv_papers_fts_docsize WHERE id > ? ORDER BY id LIMIT ?)")
        .bind(after, size)
    : db
        .prepare(
          "SELECT count(*) AS n FROM arxiv_papers_fts_docsize d WHERE d.id > ? AND d.id <= ? AND NOT EXISTS (SELECT 1 FROM arxiv_papers p WHERE p.paper_key = d.id)",
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
      `SELECT max(paper_key) AS last, count(*) AS n, coalesce(sum(NOT EXISTS (SELECT 1 FROM arxiv_papers p WHERE p.paper_key = c.paper_key)), 0) AS orphans
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

/** The end of a sliced verify: the counts must agree, and (up to a size) the FTS index's structure is checked. */
export async function finishSlicedVerify(db: D1Database, counts: SliceCounts): Promise<VerifyResult> {
  const totals = await db
    .prepare(
      "SELECT (SELECT records FROM harvest_state WHERE source = 'arxiv') AS state_records, (SELECT version FROM mirror_schema WHERE source = 'arxiv') AS schema_version",
    )
    .first<{ state_records: number | null; schema_version: number | null }>();
  let ftsIntegrity: string;
  if (counts.papers <= FTS_CHECK_MAX_PAPERS) {
    try {
      await db.prepare(FTS_STRUCTURE_SQL).run();
      ftsIntegrity = "ok (index structure)";
    } catch (error) {
      ftsIntegrity = error instanceof Error ? error.message : String(error);
    }
  } else {
    ftsIntegrity = "entries checked per slice; the index structure check is left to npm run mirror:verify at this size";
  }
  if (counts.fts_missing > 0 || counts.fts_orphans > 0)
    ftsIntegrity = `${counts.fts_missing} paper(s) without an FTS entry, ${counts.fts_orphans} FTS entr(ies) without a paper`;
  return {
    ok:
      (ftsIntegrity.startsWith("ok") || ftsIntegrity.startsWith("entries checked")) &&
      counts.missing === 0 &&
      counts.orphans === 0 &&
      (totals!.state_records === null || totals!.state_records === counts.papers) &&
      totals!.schema_version === MIRROR_SCHEMA_VERSION,
    integrity: "not run after a harvest at this size (npm run mirror:verify)",
    fts_integrity: ftsIntegrity,
    papers: counts.papers,
    category_rows: counts.category_rows,
    papers_without_primary_category_row: counts.missing,
    orphan_category_rows: counts.orphans,
    state_records: totals!.state_records,
    schema_version: totals!.schema_version,
    checked_at: new Date().toISOString(),
  };
}
