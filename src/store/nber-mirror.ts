// The NBER mirror in D1: papers written by the seed and the daily refresh, looked up by number,
// searched through FTS5, and its coverage (which decides mirror or live for a search).
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { nberPapers } from "./schema";
import { unmetered } from "./d1-meter";

export interface MirrorPaper {
  id: string;
  title: string;
  authors: string[];
  date: string | null;
  abstract: string | null;
}

export interface MirrorRow {
  id: string;
  title: string;
  authors: string[];
  date: string | null;
  abstract: string | null;
  programs?: string[];
  source: "nberwp" | "api" | "page";
}

const now = () => new Date().toISOString();
const toPaper = (row: typeof nberPapers.$inferSelect): MirrorPaper => ({
  id: row.id,
  title: row.title,
  authors: row.authors === "" ? [] : row.authors.split("; "),
  date: row.date,
  abstract: row.abstract,
});

/** Inserts or refreshes papers. A richer source never loses its abstract to a poorer one. */
export async function upsertMirror(db: D1Database, rows: readonly MirrorRow[]): Promise<void> {
  if (rows.length === 0) return;
  const orm = drizzle(db);
  const statements = rows.map((row) =>
    orm
      .insert(nberPapers)
      .values({
        id: row.id,
        title: row.title,
        authors: row.authors.join("; "),
        date: row.date,
        abstract: row.abstract,
        programs: row.programs?.join(" ") ?? null,
        source: row.source,
        updatedAt: now(),
      })
      .onConflictDoUpdate({
        target: nberPapers.id,
        set: {
          title: row.title,
          authors: sql`CASE WHEN ${row.authors.join("; ")} = '' THEN ${nberPapers.authors} ELSE ${row.authors.join("; ")} END`,
          date: sql`coalesce(${row.date}, ${nberPapers.date})`,
          abstract: sql`coalesce(${row.abstract}, ${nberPapers.abstract})`,
          source: row.source,
          updatedAt: now(),
        },
      }),
  );
  await orm.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
  forgetCoverage(db);
}

export async function mirrorPaper(db: D1Database, id: string): Promise<MirrorPaper | undefined> {
  const row = await drizzle(db).select().from(nberPapers).where(eq(nberPapers.id, id)).get();
  return row ? toPaper(row) : undefined;
}

export async function mirrorHas(db: D1Database, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const placeholders = ids.map(() => "?").join(",");
  const { results } = await db
    .prepare(`SELECT id FROM nber_papers WHERE id IN (${placeholders})`)
    .bind(...ids)
    .all<{ id: string }>();
  return new Set(results.map((row) => row.id));
}

export interface MirrorCoverage {
  papers: number;
  newest: string | null;
}

// Coverage decides mirror-or-live on every search; it changes once a day, so an isolate keeps it a minute.
const COVERAGE_TTL_MS = 60_000;
const coverageMemo = new WeakMap<D1Database, { value: MirrorCoverage; at: number }>();

export async function mirrorCoverage(db: D1Database, at = Date.now()): Promise<MirrorCoverage> {
  const memo = coverageMemo.get(unmetered(db));
  if (memo && at - memo.at < COVERAGE_TTL_MS) return memo.value;
  const row = await db
    .prepare("SELECT count(*) AS papers, max(date) AS newest FROM nber_papers")
    .first<{ papers: number; newest: string | null }>();
  const value = { papers: row?.papers ?? 0, newest: row?.newest ?? null };
  coverageMemo.set(unmetered(db), { value, at });
  return value;
}

/** Forget the memo (after the mirror changed in this isolate, and in tests). */
export function forgetCoverage(db: D1Database): void {
  coverageMemo.delete(unmetered(db));
}

// Words nearly every title has: requiring them adds nothing but makes the ranking score thousands
// of hits ("the" matches half the mirror). Dropped unless the query has nothing else.
const STOPWORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "by",
  "for",
  "from",
  "in",
  "is",
  "of",
  "on",
  "or",
  "the",
  "to",
  "with",
]);

/** Words of the user's query as an FTS5 expression: every word must match (quoted, so no FTS5 syntax leaks through). */
export function ftsQuery(query: string): string | undefined {
  const words =
    query
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.slice(0, 32) ?? [];
  const meaningful = words.filter((word) => !STOPWORDS.has(word));
  const kept = meaningful.length > 0 ? meaningful : words;
  return kept.length === 0 ? undefined : kept.map((word) => `"${word}"`).join(" ");
}

export interface MirrorSearch {
  query: string;
  startDate?: string;
  endDate?: string;
  page: number;
  perPage: number;
}

/**
 * Full-text search over title, authors and abstract, best match first, with inclusive date bounds.
 * Month-precision dates (nberwp's) count as within a bound that falls inside their month.
 */
export async function searchMirror(
  db: D1Database,
  search: MirrorSearch,
): Promise<{ total: number; papers: MirrorPaper[] }> {
  const match = ftsQuery(search.query);
  if (!match) return { total: 0, papers: [] };
  const where = ["nber_papers_fts MATCH ?"];
  const binds: (string | number)[] = [match];
  if (search.startDate) {
    where.push("p.date >= substr(?, 1, length(p.date))");
    binds.push(search.startDate);
  }
  if (search.endDate) {
    where.push("p.date <= ?");
    binds.push(search.endDate);
  }
  const clause = where.join(" AND ");
  const from = "FROM nber_papers_fts JOIN nber_papers p ON p.rowid = nber_papers_fts.rowid";
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n ${from} WHERE ${clause}`).bind(...binds),
    db
      .prepare(
        `SELECT p.* ${from} WHERE ${clause} ORDER BY bm25(nber_papers_fts, 10.0, 5.0, 1.0), p.date DESC LIMIT ? OFFSET ?`,
      )
      .bind(...binds, search.perPage, (search.page - 1) * search.perPage),
  ]);
  const n = (total!.results[0] as { n: number } | undefined)?.n ?? 0;
  const papers = (
    rows!.results as { id: string; title: string; authors: string; date: string | null; abstract: string | null }[]
  ).map((row) => ({
    id: row.id,
    title: row.title,
    authors: row.authors === "" ? [] : row.authors.split("; "),
    date: row.date,
    abstract: row.abstract,
  }));
  return { total: n, papers };
}

/** The highest working-paper number the mirror holds (NBER numbers its papers in order). */
export async function newestNberNumber(db: D1Database): Promise<number> {
  const row = await db
    .prepare("SELECT max(CAST(substr(id, 2) AS INTEGER)) AS newest FROM nber_papers WHERE id LIKE 'w%'")
    .first<{ newest: number | null }>();
  return row?.newest ?? 0;
}

/** Working papers numbered above `after` that match the query's words, newest first. */
export async function nberPapersAfter(
  db: D1Database,
  query: string,
  after: number,
  limit: number,
): Promise<{ total: number; papers: MirrorPaper[] }> {
  const match = ftsQuery(query);
  if (!match) return { total: 0, papers: [] };
  const from =
    "FROM nber_papers_fts JOIN nber_papers p ON p.rowid = nber_papers_fts.rowid WHERE nber_papers_fts " +
    "MATCH ? AND p.id LIKE 'w%' AND CAST(substr(p.id, 2) AS INTEGER) > ?";
  const [count, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n ${from}`).bind(match, after),
    db.prepare(`SELECT p.* ${from} ORDER BY CAST(substr(p.id, 2) AS INTEGER) DESC LIMIT ?`).bind(match, after, limit),
  ]);
  const papers = (rows!.results as (typeof nberPapers.$inferSelect)[]).map(toPaper);
  return { total: (count!.results[0] as { n: number }).n, papers };
}
