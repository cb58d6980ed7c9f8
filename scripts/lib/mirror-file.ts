// A mirror file built before (bench:mirror:offline) served by a bench's wrangler dev: copied over
// the local D1 file, and marked complete as a finished harvest would leave it.
import { copyFileSync, rmSync } from "node:fs";
import type { DatabaseSync } from "node:sqlite";

/** Copies a mirror file over the local D1 file (its WAL was checkpointed when it was built). */
export function copyMirrorFile(source: string, d1File: string): void {
  copyFileSync(source, d1File);
  for (const suffix of ["-wal", "-shm"]) rmSync(`${d1File}${suffix}`, { force: true });
}

/** The harvest state a completed cold run leaves: the mirror answers as a whole. */
export function markMirrorComplete(db: DatabaseSync): void {
  db.exec(
    "UPDATE harvest_state SET status = 'done', mode = 'bench', last_datestamp = '2026-11-29', watermark = '2026-11-29', finished_at = '2026-11-30T00:00:00Z', complete_at = '2026-11-30T00:00:00Z', complete_scope = 'the benchmark mirror', last_success_at = '2026-11-30T00:00:00Z' WHERE source = 'arxiv'",
  );
}
