// Moving papers to the shard the map gives them (a shard added when one fills: its months move
// out of the shard that held them, with no re-harvest). A step reads a batch of papers of one
// shard that lie outside its key range, writes each to its shard, then deletes them where they
// were. A crash between the two leaves a paper in both: the step replayed writes it again
// (an upsert) and deletes it; a search meanwhile drops the copy (store/arxiv-mirror-search.ts).
import { MIRROR_COLUMNS, type MirrorRow, UPSERT_SQL } from "./arxiv-row";
import { byShard, type MirrorShard } from "./arxiv-shards";

/** Papers moved per step (each shard's writes and the delete are a few calls of about 100 statements). */
export const MOVE_BATCH = 500;
const PER_CALL = 100;

/** Papers of `shards[index]` that its key range does not hold, after a key: moved to their shards. */
export async function movePapers(
  shards: readonly MirrorShard[],
  index: number,
  after: number,
  batch = MOVE_BATCH,
): Promise<{ moved: number; last: number | null }> {
  const source = shards[index]!;
  const end = Number.isFinite(source.endKey) ? source.endKey : Number.MAX_SAFE_INTEGER;
  const { results: rows } = await source.db
    .prepare(
      `SELECT ${MIRROR_COLUMNS.join(", ")} FROM arxiv_papers WHERE paper_key > ?1 AND (paper_key < ?2 OR paper_key >= ?3)
       ORDER BY paper_key LIMIT ?4`,
    )
    .bind(after, source.firstKey, end, batch)
    .all<MirrorRow>();
  if (rows.length === 0) return { moved: 0, last: null };
  for (const { shard, items } of byShard(shards, rows, (row) => row.paper_key)) {
    const upsert = shard.db.prepare(UPSERT_SQL);
    const statements = items.map((row) => upsert.bind(...MIRROR_COLUMNS.map((column) => row[column])));
    for (let i = 0; i < statements.length; i += PER_CALL) await shard.db.batch(statements.slice(i, i + PER_CALL));
  }
  const keys = rows.map((row) => row.paper_key);
  for (let i = 0; i < keys.length; i += PER_CALL)
    await source.db
      .prepare("DELETE FROM arxiv_papers WHERE paper_key IN (SELECT value FROM json_each(?))")
      .bind(JSON.stringify(keys.slice(i, i + PER_CALL)))
      .run();
  return { moved: rows.length, last: rows.length < batch ? null : keys.at(-1)! };
}
