// What the research agent's feature modules share: the Durable Object's own SQLite (its tables
// made here), the app's context, and mirror reads that start where this client's last one left.
// Each feature (watches.ts, library.ts, versions.ts) is plain functions over an AgentStore; the
// Durable Object class (research-agent.ts) only dispatches to them.
import type { AppContext } from "../context";
import type { ErrorReason } from "../errors";
import type { D1Reader } from "../search/rank";
import { bookmarkedReaders, type MirrorShard } from "../store/arxiv-shards";

export type AgentError = { reason: ErrorReason; message: string; recovery: string };
export type AgentResult<T> = ({ ok: true } & T) | { ok: false; error: AgentError };

type SqlValue = string | number | boolean | null;
/** The agents SDK's tagged-template SQL over the object's own SQLite (synchronous). */
export type AgentSql = <T = Record<string, SqlValue>>(strings: TemplateStringsArray, ...values: SqlValue[]) => T[];

export interface AgentStore {
  sql: AgentSql;
  /** The app's context for this object's work (the Durable Object's own waitUntil). */
  readonly app: AppContext;
  /** A read of the arXiv mirror's shards that starts from this client's bookmarks (see mirrorReads). */
  mirrorReads<T>(read: (shards: MirrorShard<D1Reader>[]) => Promise<T>): Promise<T>;
}

export const fail = (reason: ErrorReason, message: string, recovery: string): { ok: false; error: AgentError } => ({
  ok: false,
  error: { reason, message, recovery },
});

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The object's tables: idempotent, run at every start. */
export function createTables(sql: AgentSql): void {
  sql`CREATE TABLE IF NOT EXISTS watches (id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL,
      query TEXT NOT NULL, mark INTEGER NOT NULL, created_at INTEGER NOT NULL, last_checked_at INTEGER,
      pending TEXT, pending_at INTEGER)`;
  // A citation watch's works already reported (by our ID, DOI or OpenAlex ID).
  sql`CREATE TABLE IF NOT EXISTS watch_seen (watch_id TEXT NOT NULL, work TEXT NOT NULL,
      PRIMARY KEY (watch_id, work))`;
  sql`CREATE TABLE IF NOT EXISTS library (id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT, tags
      TEXT NOT NULL, note TEXT, added_at INTEGER NOT NULL, version INTEGER, reported_version INTEGER)`;
  // Where this client's mirror reads left each D1 database (D1_READ_REPLICATION; see mirrorReads).
  sql`CREATE TABLE IF NOT EXISTS d1_bookmarks (binding TEXT PRIMARY KEY, bookmark TEXT NOT NULL)`;
}

/**
 * The mirror's shards for this client's reads. With read replicas, each read starts at the
 * bookmark the last one left: a check never sees an older mirror than the watch's mark or the
 * previous check did (a replica that lags waits until it has caught up).
 */
export async function mirrorReads<T>(
  sql: AgentSql,
  app: AppContext,
  read: (shards: MirrorShard<D1Reader>[]) => Promise<T>,
): Promise<T> {
  const since = Object.fromEntries(
    sql<{ binding: string; bookmark: string }>`SELECT binding, bookmark FROM d1_bookmarks`.map((row) => [
      row.binding,
      row.bookmark,
    ]),
  );
  const readers = bookmarkedReaders(app, since);
  const result = await read(readers.shards);
  for (const [binding, bookmark] of Object.entries(readers.bookmarks()))
    if (bookmark !== since[binding])
      sql`INSERT INTO d1_bookmarks (binding, bookmark) VALUES (${binding}, ${bookmark})
        ON CONFLICT (binding) DO UPDATE SET bookmark = excluded.bookmark`;
  return result;
}
