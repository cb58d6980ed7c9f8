// A TTL cache of upstream answers in D1 (shared by all isolates) with a small per-isolate memory
// layer in front. Values are JSON; every hit says when it was fetched, so answers can show
// served_from: "cache" with an age.
import { and, gt, inArray, lte } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { apiCache } from "./schema";

export interface CacheHit<T> {
  value: T;
  fetchedAt: number;
}

/** The cache's own database: every entry is written there (store/held-works.ts reads it beside rows). */
export const CACHE_BINDING = "DB";

/** A row of api_cache as a statement read it. */
export interface StoredEntry {
  key: string;
  /** JSON text. */
  value: string;
  fetchedAt: number;
  expiresAt: number;
}

export interface CacheEntry {
  key: string;
  value: unknown;
  ttlMs: number;
}

// D1 binds at most 100 parameters per statement.
const CHUNK = 90;

/**
 * A small per-isolate layer in front of D1: repeated questions in one isolate skip the D1 round
 * trip. Bounded by the JSON size of its values (an isolate has 128 MB), least recently used out.
 */
const MEMORY_BUDGET_CHARS = 4_000_000;
/** How long a key a statement found absent is taken as absent without asking D1 (another isolate may write it). */
const ABSENT_MS = 5_000;
interface MemoryEntry {
  /** False: D1 held no entry for the key when it was read. */
  present: boolean;
  value: unknown;
  fetchedAt: number;
  expiresAt: number;
  size: number;
}
const memory = new Map<string, MemoryEntry>();
let memoryChars = 0;

function remember(key: string, entry: MemoryEntry): void {
  forget(key);
  if (entry.size > MEMORY_BUDGET_CHARS / 4) return;
  memory.set(key, entry);
  memoryChars += entry.size;
  for (const [oldest, old] of memory) {
    if (memoryChars <= MEMORY_BUDGET_CHARS) break;
    memory.delete(oldest);
    memoryChars -= old.size;
  }
}

function forget(key: string): void {
  const entry = memory.get(key);
  if (entry) {
    memory.delete(key);
    memoryChars -= entry.size;
  }
}

/** Empties the per-isolate layer (tests; D1 stays the source of truth). */
export function clearMemoryCache(): void {
  memory.clear();
  memoryChars = 0;
}

export async function cacheGetMany<T>(
  db: D1Database,
  keys: readonly string[],
  now = Date.now(),
): Promise<Map<string, CacheHit<T>>> {
  const hits = new Map<string, CacheHit<T>>();
  const unique = [...new Set(keys)];
  const fromD1: string[] = [];
  for (const key of unique) {
    const entry = memory.get(key);
    if (entry && entry.expiresAt > now) {
      // Re-insert: Map order is the LRU order.
      memory.delete(key);
      memory.set(key, entry);
      if (entry.present) hits.set(key, { value: entry.value as T, fetchedAt: entry.fetchedAt });
    } else {
      if (entry) forget(key);
      fromD1.push(key);
    }
  }
  for (let i = 0; i < fromD1.length; i += CHUNK) {
    const rows = await drizzle(db)
      .select()
      .from(apiCache)
      .where(and(inArray(apiCache.key, fromD1.slice(i, i + CHUNK)), gt(apiCache.expiresAt, now)))
      .all();
    for (const row of rows) {
      const value = JSON.parse(row.value) as T;
      hits.set(row.key, { value, fetchedAt: row.fetchedAt });
      remember(row.key, {
        present: true,
        value,
        fetchedAt: row.fetchedAt,
        expiresAt: row.expiresAt,
        size: row.value.length,
      });
    }
  }
  return hits;
}

/**
 * What a statement read of the cache beside its own rows (store/held-works.ts): its entries, and
 * each of `keys` it did not find, remembered as absent for a few seconds.
 */
export function rememberRead(keys: readonly string[], entries: readonly StoredEntry[], now = Date.now()): void {
  for (const entry of entries)
    if (entry.expiresAt > now)
      remember(entry.key, {
        present: true,
        value: JSON.parse(entry.value),
        fetchedAt: entry.fetchedAt,
        expiresAt: entry.expiresAt,
        size: entry.value.length,
      });
  const found = new Set(entries.filter((entry) => entry.expiresAt > now).map((entry) => entry.key));
  for (const key of keys) {
    const known = memory.get(key);
    // An entry this isolate wrote (or read) is newer than a replica that lacks it.
    if (found.has(key) || (known?.present && known.expiresAt > now)) continue;
    remember(key, { present: false, value: null, fetchedAt: now, expiresAt: now + ABSENT_MS, size: key.length });
  }
}

export async function cacheGet<T>(db: D1Database, key: string, now = Date.now()): Promise<CacheHit<T> | undefined> {
  return (await cacheGetMany<T>(db, [key], now)).get(key);
}

export async function cachePut(db: D1Database, entries: readonly CacheEntry[], now = Date.now()): Promise<void> {
  if (entries.length === 0) return;
  const orm = drizzle(db);
  const statements = entries.map((entry) => {
    const row = { key: entry.key, value: JSON.stringify(entry.value), fetchedAt: now, expiresAt: now + entry.ttlMs };
    remember(entry.key, {
      present: true,
      value: entry.value,
      fetchedAt: now,
      expiresAt: row.expiresAt,
      size: row.value.length,
    });
    return orm.insert(apiCache).values(row).onConflictDoUpdate({ target: apiCache.key, set: row });
  });
  await orm.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
}

/** Drops expired entries; the cron trigger calls it so the table does not grow without bound. */
export async function cachePurgeExpired(db: D1Database, now = Date.now()): Promise<number> {
  for (const [key, entry] of memory) if (entry.expiresAt <= now) forget(key);
  const result = await drizzle(db).delete(apiCache).where(lte(apiCache.expiresAt, now)).run();
  return result.meta.changes ?? 0;
}
