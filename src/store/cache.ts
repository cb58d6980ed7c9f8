// A TTL cache of upstream answers in D1. Values are JSON; every hit says when it was fetched,
// so answers can show served_from: "cache" with an age.
import { and, gt, inArray, lte } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { apiCache } from "./schema";

export interface CacheHit<T> {
  value: T;
  fetchedAt: number;
}

export interface CacheEntry {
  key: string;
  value: unknown;
  ttlMs: number;
}

// D1 binds at most 100 parameters per statement.
const CHUNK = 90;

export async function cacheGetMany<T>(db: D1Database, keys: readonly string[], now = Date.now()): Promise<Map<string, CacheHit<T>>> {
  const hits = new Map<string, CacheHit<T>>();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const rows = await drizzle(db)
      .select()
      .from(apiCache)
      .where(and(inArray(apiCache.key, unique.slice(i, i + CHUNK)), gt(apiCache.expiresAt, now)))
      .all();
    for (const row of rows) hits.set(row.key, { value: JSON.parse(row.value) as T, fetchedAt: row.fetchedAt });
  }
  return hits;
}

export async function cacheGet<T>(db: D1Database, key: string, now = Date.now()): Promise<CacheHit<T> | undefined> {
  return (await cacheGetMany<T>(db, [key], now)).get(key);
}

export async function cachePut(db: D1Database, entries: readonly CacheEntry[], now = Date.now()): Promise<void> {
  if (entries.length === 0) return;
  const orm = drizzle(db);
  const statements = entries.map((entry) => {
    const row = { key: entry.key, value: JSON.stringify(entry.value), fetchedAt: now, expiresAt: now + entry.ttlMs };
    return orm.insert(apiCache).values(row).onConflictDoUpdate({ target: apiCache.key, set: row });
  });
  await orm.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
}

/** Drops expired entries; the cron trigger calls it so the table does not grow without bound. */
export async function cachePurgeExpired(db: D1Database, now = Date.now()): Promise<number> {
  const result = await drizzle(db).delete(apiCache).where(lte(apiCache.expiresAt, now)).run();
  return result.meta.changes ?? 0;
}
