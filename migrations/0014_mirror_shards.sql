-- The arXiv mirror across several D1 databases (ARXIV_MIRROR_SHARDS, src/store/arxiv-shards.ts).
-- Every shard is migrated with every migration, and each keeps its own harvest_state.records by
-- the triggers of 0004 (its own papers). DB, the first shard, also keeps the others' total as of
-- the last page the harvest wrote, so that /status and the mirror's state read one row.
ALTER TABLE harvest_state ADD COLUMN shard_records INTEGER NOT NULL DEFAULT 0;
