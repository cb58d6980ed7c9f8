// A mirror file built before (bench:mirror:offline) served by a bench's wrangler dev: copied over
// the local D1 file, and marked complete as a finished harvest would leave it.
import { copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { buildSeed } from "../nber/build-seed.ts";
import { ROOT } from "./wrangler-env.ts";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../migrations");
/** wrangler's record of applied migrations (bench:mirror:offline writes it into the files it builds). */
export const MIGRATIONS_TABLE_SQL =
  "CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, " +
  "applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)";

/**
 * Copies a mirror file over the local D1 file (its WAL was checkpointed when it was built), then
 * brings it to the current schema: the migrations its d1_migrations table does not list are
 * applied. A file built before that table was written tries each migration in a savepoint: one
 * whose objects are already there fails and leaves nothing. wrangler's own record of the applied
 * migrations is written back, so wrangler dev applies none again.
 */
export function copyMirrorFile(source: string, d1File: string): void {
  const target = new DatabaseSync(d1File);
  const applied = target.prepare("SELECT * FROM d1_migrations ORDER BY id").all();
  target.close();
  copyFileSync(source, d1File);
  for (const suffix of ["-wal", "-shm"]) rmSync(`${d1File}${suffix}`, { force: true });
  const db = new DatabaseSync(d1File);
  try {
    const recorded = db.prepare("SELECT name FROM sqlite_master WHERE name = 'd1_migrations'").get()
      ? new Set(
          db
            .prepare("SELECT name FROM d1_migrations")
            .all()
            .map((row) => row.name as string),
        )
      : undefined;
    for (const file of readdirSync(MIGRATIONS).sort()) {
      if (recorded?.has(file)) continue;
      db.exec("SAVEPOINT migration");
      try {
        db.exec(readFileSync(path.join(MIGRATIONS, file), "utf8"));
        db.exec("RELEASE migration");
        console.error(`mirror file: applied ${file}, which it was built without`);
      } catch {
        db.exec("ROLLBACK TO migration");
        db.exec("RELEASE migration");
      }
    }
    db.exec(
      "CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)",
    );
    const insert = db.prepare("INSERT OR IGNORE INTO d1_migrations (id, name, applied_at) VALUES (?, ?, ?)");
    for (const row of applied) insert.run(row.id as number, row.name as string, row.applied_at as string);
  } finally {
    db.close();
  }
}

/**
 * The harvest state a completed cold run leaves, as of the run's own time (a fixed date made
 * every answer of a later run say the mirror was refreshed days ago): the mirror answers as a
 * whole, last refreshed now, its watermark yesterday.
 */
export function markMirrorComplete(db: DatabaseSync, now = new Date()): void {
  const at = now.toISOString();
  const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  db.prepare(
    "UPDATE harvest_state SET status = 'done', mode = 'bench', last_datestamp = ?, watermark = ?, finished_at = ?, complete_at = ?, complete_scope = 'the benchmark mirror', last_success_at = ? WHERE source = 'arxiv'",
  ).run(yesterday, yesterday, at, at, at);
}

/**
 * A new mirror file at the current schema (WAL, unsynced: a bench builds it in one go), every
 * migration recorded as wrangler records them, so that a bench serving it later applies only newer ones.
 */
export function createMirrorFile(file: string): DatabaseSync {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;");
  db.exec(MIGRATIONS_TABLE_SQL);
  for (const migration of readdirSync(MIGRATIONS).sort()) {
    db.exec(readFileSync(path.join(MIGRATIONS, migration), "utf8"));
    db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").run(migration);
  }
  return db;
}

/**
 * A bench's stack over a mirror file: the file copied over the local D1 file (copyMirrorFile), the
 * NBER seed loaded beside it, and the mirror marked complete.
 */
export function serveMirrorFileWithNber(source: string, d1File: string): void {
  copyMirrorFile(source, d1File);
  const db = new DatabaseSync(d1File);
  try {
    buildSeed();
    db.exec(readFileSync(path.join(ROOT, "seed/nber-mirror.sql"), "utf8"));
    markMirrorComplete(db);
  } finally {
    db.close();
  }
}
