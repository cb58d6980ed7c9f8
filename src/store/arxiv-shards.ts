// The arXiv mirror across several D1 databases (one database holds at most 10 GB; all of arXiv
// outgrows it within a few years). Papers live by their key (store/arxiv-key.ts: the ID's month
// first), so a shard holds a range of ID months: the first shard everything before the second's
// first month, the last everything from its month on. New papers enter the last shard, and a
// shard that fills is split by moving its newest months to a new database (docs/operations.md).
// Everything else the Worker keeps (harvest state, caches, logs) stays in the first shard, DB.
import { SHARD_MONTH, type ShardSpec, ShardMapError } from "../shard-spec";
import type { D1Reader } from "../search/rank-types";
import { monthStartKey } from "./arxiv-key";
import type { CallScope } from "../context";

/** A shard: its database (or a reader of it: a session, a metered one) and its key range. */
export interface MirrorShard<Db = D1Database> {
  binding: string;
  db: Db;
  /** The first key it holds. */
  firstKey: number;
  /** The first key past it (Infinity for the last shard). */
  endKey: number;
}

/** The first key of an ID month ("2015-01"). */
export function monthKey(month: string): number {
  const [, year, mm] = SHARD_MONTH.exec(month)!;
  return monthStartKey(new Date(Date.UTC(Number(year), Number(mm) - 1, 1)));
}

/** The shards of a spec over the Worker's bindings; a binding that is not a D1 database is an error. */
export function mirrorShards(env: object, specs: readonly ShardSpec[]): MirrorShard[] {
  return specs.map((spec, index) => {
    const db = (env as Record<string, unknown>)[spec.binding] as D1Database | undefined;
    if (typeof db?.prepare !== "function" || typeof db.batch !== "function")
      throw new ShardMapError(`ARXIV_MIRROR_SHARDS names ${spec.binding}, which is not a D1 binding of this Worker`);
    const next = specs[index + 1];
    return {
      binding: spec.binding,
      db,
      firstKey: spec.fromMonth === null ? 0 : monthKey(spec.fromMonth),
      endKey: next ? monthKey(next.fromMonth!) : Number.POSITIVE_INFINITY,
    };
  });
}

/** A mirror held in one database (the default, and what tests and benches search). */
export function oneDatabase<Db>(db: Db, binding = "DB"): MirrorShard<Db>[] {
  return [{ binding, db, firstKey: 0, endKey: Number.POSITIVE_INFINITY }];
}

/** The same shards read through something else (a session, a metered reader). */
export function readThrough<A, B>(
  shards: readonly MirrorShard<A>[],
  wrap: (db: A, binding: string) => B,
): MirrorShard<B>[] {
  return shards.map((shard) => ({ ...shard, db: wrap(shard.db, shard.binding) }));
}

/** The shard that holds a key. */
export function shardOf<Db>(shards: readonly MirrorShard<Db>[], key: number): MirrorShard<Db> {
  for (let i = shards.length - 1; i > 0; i--) if (key >= shards[i]!.firstKey) return shards[i]!;
  return shards[0]!;
}

/** Items grouped by the shard holding each one's key (shards without items left out). */
export function byShard<Db, T>(
  shards: readonly MirrorShard<Db>[],
  items: readonly T[],
  keyOf: (item: T) => number,
): { shard: MirrorShard<Db>; items: T[] }[] {
  const groups = new Map<MirrorShard<Db>, T[]>();
  for (const item of items) {
    const shard = shardOf(shards, keyOf(item));
    const group = groups.get(shard);
    if (group) group.push(item);
    else groups.set(shard, [item]);
  }
  return [...groups].map(([shard, grouped]) => ({ shard, items: grouped }));
}

/** The mirror's shards of this Worker, as ARXIV_MIRROR_SHARDS maps them. */
export function arxivShards(ctx: {
  env: object;
  config: { ARXIV_MIRROR_SHARDS: readonly ShardSpec[] };
}): MirrorShard[] {
  return mirrorShards(ctx.env, ctx.config.ARXIV_MIRROR_SHARDS);
}

type ReadersContext = {
  env: object;
  config: { ARXIV_MIRROR_SHARDS: readonly ShardSpec[]; D1_READ_REPLICATION: boolean };
  call?: CallScope | undefined;
};

/**
 * The shards as a search or a lookup reads them: with D1_READ_REPLICATION, through the call's D1
 * session of each (opened on first use, from the bookmark the call continues from, else
 * first-unconstrained: the nearest read replica may answer), so every read of one call sees one
 * state; else, or asked for "primary" (a read that must see the latest writes), the primaries.
 */
export function arxivReaders(ctx: ReadersContext, read: "session" | "primary" = "session"): MirrorShard<D1Reader>[] {
  const shards = arxivShards(ctx);
  if (read === "primary" || !ctx.config.D1_READ_REPLICATION) return shards;
  return readThrough(shards, (db, binding) => callSession(ctx, binding, db));
}

/** The call's session of a database (outside a call: a new session, first-unconstrained). */
export function callSession(ctx: ReadersContext, binding: string, db: D1Database): D1DatabaseSession {
  const call = ctx.call;
  if (!call) return db.withSession("first-unconstrained");
  let session = call.sessions.get(binding);
  if (!session) {
    session = db.withSession(call.since[binding] ?? "first-unconstrained");
    call.sessions.set(binding, session);
  }
  return session;
}

/** Where the call's reads left each database (null: no session was read, or none gave a bookmark). */
export function callBookmarks(ctx: { call?: CallScope | undefined }): Bookmarks | null {
  const sessions = ctx.call?.sessions;
  if (!sessions || sessions.size === 0) return null;
  const marks = Object.fromEntries(
    [...sessions].flatMap(([binding, session]) => {
      const bookmark = session.getBookmark() ?? ctx.call?.since[binding];
      return bookmark ? [[binding, bookmark]] : [];
    }),
  );
  return Object.keys(marks).length > 0 ? marks : null;
}

/** Where a client's reads left each database (D1 session bookmarks by binding). */
export type Bookmarks = Record<string, string>;

/**
 * The shards read through sessions that start where `since` left each database, so a client (a
 * research agent) never reads an older state than it has seen, and the bookmarks to keep after
 * the reads. Without D1_READ_REPLICATION: the primaries, and `since` as it was.
 */
export function bookmarkedReaders(
  ctx: ReadersContext,
  since: Readonly<Bookmarks>,
): { shards: MirrorShard<D1Reader>[]; bookmarks: () => Bookmarks } {
  const shards = arxivShards(ctx);
  if (!ctx.config.D1_READ_REPLICATION) return { shards, bookmarks: () => ({ ...since }) };
  const sessions = readThrough(shards, (db, binding) => db.withSession(since[binding] ?? "first-unconstrained"));
  return {
    shards: sessions,
    bookmarks: () =>
      Object.fromEntries(
        sessions.flatMap((shard) => {
          const bookmark = shard.db.getBookmark() ?? since[shard.binding];
          return bookmark ? [[shard.binding, bookmark]] : [];
        }),
      ),
  };
}

/**
 * With more than one shard: the statement that records, in DB's harvest_state, how many papers
 * the other shards hold (each keeps its own count by trigger; one read per shard), for the
 * harvest's checkpoint batch. Null with DB alone.
 */
export async function shardRecordsStatement(shards: readonly MirrorShard[]): Promise<D1PreparedStatement | null> {
  if (shards.length === 1) return null;
  const counts = await Promise.all(
    shards
      .slice(1)
      .map((shard) =>
        shard.db.prepare("SELECT records FROM harvest_state WHERE source = 'arxiv'").first<{ records: number }>(),
      ),
  );
  const total = counts.reduce((sum, row) => sum + (row?.records ?? 0), 0);
  return shards[0]!.db.prepare("UPDATE harvest_state SET shard_records = ? WHERE source = 'arxiv'").bind(total);
}
