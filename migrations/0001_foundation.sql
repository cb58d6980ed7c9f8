-- Foundation: harvest checkpoints, one row per mirrored source (arxiv, nber).
-- The mirror issues add their paper tables; /health and the landing page read this table.
CREATE TABLE harvest_state (
  source TEXT PRIMARY KEY NOT NULL,          -- 'arxiv' | 'nber'
  status TEXT NOT NULL DEFAULT 'idle',       -- idle | running | done | error
  records INTEGER NOT NULL DEFAULT 0,        -- papers currently in the mirror
  pages INTEGER NOT NULL DEFAULT 0,          -- pages processed by the current or last run
  last_datestamp TEXT,                       -- OAI-PMH datestamp (YYYY-MM-DD) reached
  resumption_token TEXT,
  started_at TEXT,
  finished_at TEXT,
  updated_at TEXT,
  last_error TEXT
) STRICT;
