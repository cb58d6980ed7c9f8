-- A harvest that never loses a record (issue 17); docs/mirror.md "Harvest" explains the design.
--
-- arXiv's OAI-PMH lists records in identifier order, and datestamps come in no order, so "the
-- highest datestamp seen" says nothing about what is left to read. A run is therefore cut into
-- datestamp windows (from/until, whole days), each listed on its own; a restart re-lists the
-- window it was in, and the refresh watermark moves only when a whole run completes.

-- The windows of a run: one row per window started; status 'done' once its list ran out.
CREATE TABLE arxiv_harvest_windows (
  run_id TEXT NOT NULL,
  idx INTEGER NOT NULL,                 -- 0, 1, ... in listing order
  from_date TEXT,                       -- inclusive YYYY-MM-DD; NULL: from the repository's start
  until_date TEXT,                      -- inclusive YYYY-MM-DD; NULL: up to now (the run's last window)
  status TEXT NOT NULL DEFAULT 'listing', -- listing | done
  pages INTEGER NOT NULL DEFAULT 0,
  records INTEGER NOT NULL DEFAULT 0,   -- records and deletions read (a restarted window counts again)
  restarts INTEGER NOT NULL DEFAULT 0,  -- times the window was listed again from its start
  started_at TEXT NOT NULL,
  finished_at TEXT,
  PRIMARY KEY (run_id, idx)
) STRICT;

-- Records a page carried that could not be read. Kept (never just counted), retried one by one
-- with GetRecord at the end of each run.
CREATE TABLE arxiv_harvest_skipped (
  identifier TEXT PRIMARY KEY NOT NULL, -- the OAI header's identifier, as sent (at most 200 chars)
  paper_id TEXT,                        -- the arXiv base ID when the identifier is one; NULL: cannot be asked for again
  run_id TEXT NOT NULL,                 -- the run that last saw it
  page INTEGER NOT NULL,
  reason TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_tried_run TEXT,                  -- the run whose end-of-run GetRecord last tried it
  tries INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'open'   -- open | recovered | deleted | unreadable (no ID to ask for)
) STRICT;
CREATE INDEX arxiv_harvest_skipped_status ON arxiv_harvest_skipped (status, paper_id);

-- The checkpoint: what the run does next (step counts every message of the run, so a replay or a
-- resumed copy of a message is recognised), and the watermark the next refresh lists from.
ALTER TABLE harvest_state ADD COLUMN step INTEGER NOT NULL DEFAULT 0;          -- last step applied
ALTER TABLE harvest_state ADD COLUMN enqueued_step INTEGER NOT NULL DEFAULT 0; -- highest step sent to the queue
ALTER TABLE harvest_state ADD COLUMN next_cursor TEXT;      -- JSON cursor of the next step; NULL: nothing left to do
ALTER TABLE harvest_state ADD COLUMN next_attempt_at TEXT;  -- a retry is queued for then (the watchdog waits for it)
ALTER TABLE harvest_state ADD COLUMN watermark TEXT;        -- YYYY-MM-DD: the start day of the last completed run
ALTER TABLE harvest_state ADD COLUMN complete_at TEXT;      -- when the mirror first held everything (a cold run completed, or a seed)
ALTER TABLE harvest_state ADD COLUMN complete_scope TEXT;   -- what "everything" is: all of arXiv, one OAI set, the bundled sample
ALTER TABLE harvest_state ADD COLUMN last_success_at TEXT;  -- when the last run completed
ALTER TABLE harvest_state ADD COLUMN run_retries INTEGER NOT NULL DEFAULT 0;   -- failed attempts retried in this run
ALTER TABLE harvest_state ADD COLUMN run_resumes INTEGER NOT NULL DEFAULT 0;   -- times the watchdog or cron resumed this run
ALTER TABLE harvest_state ADD COLUMN run_restarts INTEGER NOT NULL DEFAULT 0;  -- windows listed again from their start
ALTER TABLE harvest_state DROP COLUMN enqueued_page;

-- A mirror that finished a harvest before this migration was trusted whole; it stays so, and
-- its refresh continues from the day it reached.
UPDATE harvest_state SET
  complete_at = finished_at,
  complete_scope = CASE WHEN mode = 'seed' THEN 'the bundled sample' ELSE 'all of arXiv' END,
  watermark = last_datestamp,
  last_success_at = finished_at
WHERE source = 'arxiv' AND status = 'done' AND records > 0 AND last_datestamp IS NOT NULL;
