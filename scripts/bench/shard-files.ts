// A mirror file split into N shard files by ID month, as ARXIV_MIRROR_SHARDS would hold it: each
// file is a fresh database at the current schema holding the papers of its months (their FTS
// rows and category rows made by the migrations' triggers), with ranking tables of its own. The
// months are chosen so that the shards hold about equal numbers of papers. Files are kept beside
// the source and reused while the source is unchanged.
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { MIRROR_COLUMNS } from "../../src/store/arxiv-row.ts";
import { buildRankTables } from "../arxiv/rank-tables.ts";
import { copyMirrorFile, createMirrorFile, MIGRATIONS_TABLE_SQL } from "../lib/mirror-file.ts";

export interface ShardFile {
  /** The binding it is served under: DB, then ARXIV_SHARD_2, ... */
  binding: string;
  /** Its first ID month (null for the first shard). */
  fromMonth: string | null;
  file: string;
  papers: number;
}

const monthOfKey = (key: number) => {
  const index = Math.floor(key / 1_000_000);
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, "0")}`;
};
/** The first key of an ID month ("2012-02"), as the Worker's shard map computes it. */
export const firstKeyOf = (month: string) => {
  const [year, mm] = month.split("-").map(Number);
  return (year! * 12 + mm! - 1) * 1_000_000;
};

/** The ARXIV_MIRROR_SHARDS value for these files. */
export const shardSpec = (files: readonly ShardFile[]) =>
  files.map((f) => (f.fromMonth ? `${f.binding}@${f.fromMonth}` : f.binding)).join(", ");

export async function buildShardFiles(source: string, count: number): Promise<ShardFile[]> {
  const src = new DatabaseSync(source, { readOnly: true });
  const total = Number(src.prepare("SELECT count(*) AS n FROM arxiv_papers").get()!.n);
  // Boundaries at the month of each quantile's paper.
  const months: (string | null)[] = [null];
  for (let i = 1; i < count; i++) {
    const row = src
      .prepare("SELECT paper_key FROM arxiv_papers ORDER BY paper_key LIMIT 1 OFFSET ?")
      .get(Math.floor((total * i) / count));
    const month = monthOfKey(Number(row!.paper_key));
    if (month === months.at(-1)) throw new Error(`two shards would start at ${month}: too many shards for this mirror`);
    months.push(month);
  }
  src.close();
  const sourceTime = statSync(source).mtimeMs;
  const files: ShardFile[] = [];
  for (const [i, fromMonth] of months.entries()) {
    const file = `${source}.shard-${i + 1}-of-${count}.sqlite`;
    const binding = i === 0 ? "DB" : `ARXIV_SHARD_${i + 1}`;
    const lo = fromMonth ? firstKeyOf(fromMonth) : 0;
    const hi = months[i + 1] ? firstKeyOf(months[i + 1]!) : Number.MAX_SAFE_INTEGER;
    if (!existsSync(file) || statSync(file).mtimeMs < sourceTime) {
      const started = performance.now();
      const building = `${file}.building`;
      rmSync(building, { force: true });
      const db = createMirrorFile(building);
      db.exec(`ATTACH DATABASE '${source.replaceAll("'", "''")}' AS src`);
      const columns = MIRROR_COLUMNS.join(", ");
      db.exec("BEGIN");
      db.prepare(
        `INSERT INTO arxiv_papers (${columns}) SELECT ${columns} FROM src.arxiv_papers WHERE paper_key >= ? AND paper_key < ? ORDER BY paper_key`,
      ).run(lo, hi);
      db.exec("COMMIT");
      db.exec("DETACH DATABASE src");
      const copied = (performance.now() - started) / 1000;
      const rank = await buildRankTables(db);
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.close();
      renameSync(building, file);
      console.error(
        `shard ${i + 1}/${count} (${fromMonth ?? "start"}): papers copied in ${copied.toFixed(0)} s, ranking tables in ${rank.seconds} s`,
      );
    }
    const db = new DatabaseSync(file, { readOnly: true });
    const papers = Number(db.prepare("SELECT count(*) AS n FROM arxiv_papers").get()!.n);
    db.close();
    files.push({ binding, fromMonth, file, papers });
  }
  const held = files.reduce((sum, f) => sum + f.papers, 0);
  if (held !== total) throw new Error(`the shards hold ${held} papers, the source ${total}`);
  return files;
}

/** A copy of a mirror file at the current schema (the bench's offline checks read it), kept beside it while the source is unchanged. */
export function migratedCopy(source: string): string {
  const target = `${source}.migrated.sqlite`;
  if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) return target;
  rmSync(target, { force: true });
  const db = new DatabaseSync(target);
  db.exec(MIGRATIONS_TABLE_SQL);
  db.close();
  copyMirrorFile(source, target);
  return target;
}
