// The arXiv mirror's page writes: one page's records and deletions, each in the shard holding its
// key (store/arxiv-shards.ts). The harvest writes them before the step's checkpoint batch
// (store/harvest-state.ts); upserts and deletes are idempotent, so a step replayed after a crash
// between the two rewrites nothing twice.
import { paperKey } from "./arxiv-key";
import { MIRROR_COLUMNS, toMirrorRow, UPSERT_SQL, type MirrorRecord } from "./arxiv-row";
import { byShard, type MirrorShard } from "./arxiv-shards";

/** Statements that write records and deletions to one database. */
export function pageWriteStatements(
  db: D1Database,
  records: readonly MirrorRecord[],
  deletedIds: readonly string[],
): D1PreparedStatement[] {
  const upsert = db.prepare(UPSERT_SQL);
  const remove = db.prepare("DELETE FROM arxiv_papers WHERE paper_key = ? AND id = ?");
  return [
    ...records.map((record) => {
      const row = toMirrorRow(record, paperKey(record.id));
      return upsert.bind(...MIRROR_COLUMNS.map((column) => row[column]));
    }),
    ...deletedIds.map((id) => remove.bind(paperKey(id), id)),
  ];
}

/**
 * Writes records and deletions to the shards holding them (the shards in parallel), each shard's
 * in calls of at most `perCall` statements: a search on that database waits for one call at most.
 */
export async function writePapers(
  shards: readonly MirrorShard[],
  records: readonly MirrorRecord[],
  deletedIds: readonly string[],
  perCall = 100,
): Promise<void> {
  type Write = { key: number; record?: MirrorRecord; deleted?: string };
  const writes: Write[] = [
    ...records.map((record) => ({ key: paperKey(record.id), record })),
    ...deletedIds.map((id) => ({ key: paperKey(id), deleted: id })),
  ];
  await Promise.all(
    byShard(shards, writes, (write) => write.key).map(async ({ shard, items }) => {
      const statements = pageWriteStatements(
        shard.db,
        items.flatMap((write) => (write.record ? [write.record] : [])),
        items.flatMap((write) => (write.deleted ? [write.deleted] : [])),
      );
      for (let i = 0; i < statements.length; i += perCall) await shard.db.batch(statements.slice(i, i + perCall));
    }),
  );
}
