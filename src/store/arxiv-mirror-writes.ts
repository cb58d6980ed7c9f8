// The arXiv mirror's page writes: one page's records as statements the harvest runs in one batch
// with its checkpoint (store/harvest-state.ts).
import { paperKey } from "./arxiv-key";
import { MIRROR_COLUMNS, toMirrorRow, UPSERT_SQL, type MirrorRecord } from "./arxiv-row";

/** Statements that write one page's records; the caller adds its checkpoint and runs one batch. */
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
