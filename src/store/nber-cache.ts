// NBER's paper-info cache in D1: a paper's parsed page, with when it was stored.
import { eq, inArray, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { infoCache } from "./schema";

const now = () => new Date().toISOString();

export interface CachedInfo<T> {
  value: T;
  cachedAt: string;
}

export async function getCachedInfo<T>(
  db: D1Database,
  paperId: string,
  ttlDays: number,
  at = Date.now(),
): Promise<CachedInfo<T> | undefined> {
  const row = await drizzle(db).select().from(infoCache).where(eq(infoCache.paperId, paperId)).get();
  if (!row) return undefined;
  if (Date.parse(row.lastFetchedAt) < at - ttlDays * 86_400_000) return undefined;
  return { value: JSON.parse(row.value) as T, cachedAt: row.lastFetchedAt };
}

export async function putCachedInfo(db: D1Database, paperId: string, value: unknown): Promise<void> {
  const stamp = now();
  await drizzle(db)
    .insert(infoCache)
    .values({ paperId, value: JSON.stringify(value), firstCachedAt: stamp, lastFetchedAt: stamp, fetchCount: 1 })
    .onConflictDoUpdate({
      target: infoCache.paperId,
      set: { value: JSON.stringify(value), lastFetchedAt: stamp, fetchCount: sql`${infoCache.fetchCount} + 1` },
    });
}

/** The cached pages of these papers, however old (what a page says of a published version does not expire). */
export async function cachedInfos<T>(db: D1Database, paperIds: readonly string[]): Promise<Map<string, T>> {
  if (paperIds.length === 0) return new Map();
  const rows = await drizzle(db)
    .select({ paperId: infoCache.paperId, value: infoCache.value })
    .from(infoCache)
    .where(inArray(infoCache.paperId, [...paperIds]))
    .all();
  return new Map(rows.map((row) => [row.paperId, JSON.parse(row.value) as T]));
}
