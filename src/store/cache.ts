// A TTL cache of upstream answers in D1 (shared by all isolates) with a small per-isolate memory
// layer in front. Values are JSON; every hit says when it was fetched, so answers can show
// served_from: "cache" with an age.
import { and, gt, inArray, lte } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { apiCache } from "./schema";
import type { CallScope } from "../context";
import { unmetered } from "./d1-meter";

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
  /**
   * Absent as a statement over the mirror's rows read it (store/held-works.ts), perhaps on a read
   * replica that lacks the newest writes: a read that decides whether to ask an upstream
   * (`primary`) asks the database again.
   */
  presumed?: boolean;
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

/**
 * The entries for `keys`: from this isolate's memory, else from D1 in one statement per 90 keys.
 * `primary`: the answer decides whether an upstream is asked, so an absence a replica may have
 * reported is read again (from the database itself, never a session).
 */
export async function cacheGetMany<T>(
  db: D1Database,
  keys: readonly string[],
  now = Date.now(),
  { primary = false }: { primary?: boolean } = {},
): Promise<Map<string, CacheHit<T>>> {
  const hits = new Map<string, CacheHit<T>>();
  const unique = [...new Set(keys)];
  const fromD1: string[] = [];
  for (const key of unique) {
    const entry = memory.get(key);
    if (entry && entry.expiresAt > now && !(primary && entry.presumed)) {
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
    remember(key, {
      present: false,
      presumed: true,
      value: null,
      fetchedAt: now,
      expiresAt: now + ABSENT_MS,
      size: key.length,
    });
  }
}

/**
 * One key's entry. Keys asked of the same database object at the same moment are read in one
 * statement: a call's database is its own (metered) object, so the entries of a bibliography
 * being checked side by side share their cache reads.
 */
export async function cacheGet<T>(db: D1Database, key: string, now = Date.now()): Promise<CacheHit<T> | undefined> {
  const memoryHit = memory.get(key);
  if (memoryHit && memoryHit.expiresAt > now) return (await cacheGetMany<T>(db, [key], now)).get(key);
  let pending = pendingReads.get(db);
  if (!pending) {
    const keys = new Set<string>();
    const read = new Promise<Map<string, CacheHit<unknown>>>((resolve, reject) =>
      setTimeout(() => {
        pendingReads.delete(db);
        cacheGetMany(db, [...keys], now).then(resolve, reject);
      }, 0),
    );
    pending = { keys, read };
    pendingReads.set(db, pending);
  }
  pending.keys.add(key);
  return (await pending.read).get(key) as CacheHit<T> | undefined;
}

const pendingReads = new WeakMap<D1Database, { keys: Set<string>; read: Promise<Map<string, CacheHit<unknown>>> }>();

interface Row {
  key: string;
  value: string;
  fetchedAt: number;
  expiresAt: number;
}

function rowOf(entry: CacheEntry, now: number): Row {
  const row = { key: entry.key, value: JSON.stringify(entry.value), fetchedAt: now, expiresAt: now + entry.ttlMs };
  remember(entry.key, {
    present: true,
    value: entry.value,
    fetchedAt: now,
    expiresAt: row.expiresAt,
    size: row.value.length,
  });
  return row;
}

/** D1 takes a batch as one call; this many upserts of a few kB each stay far below its limits. */
const WRITE_BATCH = 100;

async function writeRows(db: D1Database, rows: readonly Row[]): Promise<void> {
  const orm = drizzle(db);
  for (let i = 0; i < rows.length; i += WRITE_BATCH) {
    const statements = rows
      .slice(i, i + WRITE_BATCH)
      .map((row) => orm.insert(apiCache).values(row).onConflictDoUpdate({ target: apiCache.key, set: row }));
    await orm.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
  }
}

export async function cachePut(db: D1Database, entries: readonly CacheEntry[], now = Date.now()): Promise<void> {
  if (entries.length === 0) return;
  await writeRows(
    db,
    entries.map((entry) => rowOf(entry, now)),
  );
}

const pendingWrites = new WeakMap<CallScope, { db: D1Database; rows: Row[] }>();

/**
 * Writes entries: within a call, with the call's other writes in one batch when it ends (this
 * isolate's memory has them at once); outside a call, now.
 */
export async function cacheWrite(
  ctx: { env: { DB: D1Database }; call?: CallScope | undefined },
  entries: readonly CacheEntry[],
  now = Date.now(),
): Promise<void> {
  if (!ctx.call || ctx.call.ended) return cachePut(ctx.env.DB, entries, now);
  let pending = pendingWrites.get(ctx.call);
  if (!pending) {
    // The closing batch is written whatever the budget has left (the limits keep headroom for it):
    // a refused write would leave this isolate's memory saying "cached" over an empty D1.
    const call = ctx.call;
    const created = { db: unmetered(ctx.env.DB), rows: [] as Row[] };
    pendingWrites.set(call, created);
    call.atEnd.push(async () => {
      const rows = created.rows.splice(0);
      call.budget.spendD1Anyway(Math.ceil(rows.length / WRITE_BATCH));
      await writeRows(created.db, rows);
    });
    pending = created;
  }
  pending.rows.push(...entries.map((entry) => rowOf(entry, now)));
}

/** Drops expired entries; the cron trigger calls it so the table does not grow without bound. */
export async function cachePurgeExpired(db: D1Database, now = Date.now()): Promise<number> {
  for (const [key, entry] of memory) if (entry.expiresAt <= now) forget(key);
  const result = await drizzle(db).delete(apiCache).where(lte(apiCache.expiresAt, now)).run();
  return result.meta.changes ?? 0;
}
