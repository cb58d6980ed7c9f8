// A mirror file built before (bench:mirror:offline) served by a bench's wrangler dev: copied over
// the local D1 file, and marked complete as a finished harvest would leave it.
import { copyFileSync, rmSync } from "node:fs";
import type { DatabaseSync } from "node:sqlite";

/** Copies a mirror file over the local D1 file (its WAL was checkpointed when it was built). */
export function copyMirrorFile(source: string, d1File: string): void {
  copyFileSync(source, d1File);
  for (const suffix of ["-wal", "-shm"]) rmSync(`${d1File}${suffix}`, { force: true });
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
