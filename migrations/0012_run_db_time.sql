-- What a harvest run costs the database (issue 34, item 4): the SQL time, rows read and written
-- of its listing steps, the rank rebuild's SQL time apart, and the longest single statement, from
-- D1's own result metadata (src/store/d1-meter.ts). Reset when a run starts; /status shows them.
ALTER TABLE harvest_state ADD COLUMN run_db_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE harvest_state ADD COLUMN run_rows_read INTEGER NOT NULL DEFAULT 0;
ALTER TABLE harvest_state ADD COLUMN run_rows_written INTEGER NOT NULL DEFAULT 0;
ALTER TABLE harvest_state ADD COLUMN rank_db_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE harvest_state ADD COLUMN run_slowest_ms REAL NOT NULL DEFAULT 0;
