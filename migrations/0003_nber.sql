-- NBER: the working-paper mirror (seeded from nberwp, refreshed from NBER's search API), its FTS5
-- index, the paper-info cache and the logs every surface writes.
CREATE TABLE nber_papers (
  id TEXT PRIMARY KEY NOT NULL,        -- w0001, w25000, h0001, t0001
  title TEXT NOT NULL,
  authors TEXT NOT NULL DEFAULT '',    -- plain names joined by '; '
  date TEXT,                           -- YYYY-MM-DD or YYYY-MM (nberwp has months only)
  abstract TEXT,
  programs TEXT,                       -- program codes joined by ' '
  source TEXT NOT NULL,                -- nberwp | api | page
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX nber_papers_date ON nber_papers (date);

CREATE VIRTUAL TABLE nber_papers_fts USING fts5(
  title, authors, abstract,
  content = 'nber_papers', content_rowid = 'rowid',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER nber_papers_ai AFTER INSERT ON nber_papers BEGIN
  INSERT INTO nber_papers_fts (rowid, title, authors, abstract) VALUES (new.rowid, new.title, new.authors, coalesce(new.abstract, ''));
END;
CREATE TRIGGER nber_papers_ad AFTER DELETE ON nber_papers BEGIN
  INSERT INTO nber_papers_fts (nber_papers_fts, rowid, title, authors, abstract) VALUES ('delete', old.rowid, old.title, old.authors, coalesce(old.abstract, ''));
END;
CREATE TRIGGER nber_papers_au AFTER UPDATE ON nber_papers BEGIN
  INSERT INTO nber_papers_fts (nber_papers_fts, rowid, title, authors, abstract) VALUES ('delete', old.rowid, old.title, old.authors, coalesce(old.abstract, ''));
  INSERT INTO nber_papers_fts (rowid, title, authors, abstract) VALUES (new.rowid, new.title, new.authors, coalesce(new.abstract, ''));
END;

CREATE TABLE info_cache (
  paper_id TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL,                 -- JSON of the parsed paper page
  first_cached_at TEXT NOT NULL,
  last_fetched_at TEXT NOT NULL,
  fetch_count INTEGER NOT NULL DEFAULT 1
) STRICT;

CREATE TABLE info_log (
  id INTEGER PRIMARY KEY,
  created_at TEXT NOT NULL,
  paper_id TEXT NOT NULL,
  served_from TEXT,                    -- cache | live | mirror; NULL when the lookup failed
  error TEXT
) STRICT;

CREATE TABLE query_log (
  id INTEGER PRIMARY KEY,
  created_at TEXT NOT NULL,
  surface TEXT NOT NULL,               -- mcp tool or resource that ran the search
  keyword TEXT NOT NULL,
  conditions TEXT NOT NULL,            -- JSON: dates, page, per_page
  result_count INTEGER,
  served_from TEXT,
  error TEXT
) STRICT;

CREATE TABLE download_log (
  id INTEGER PRIMARY KEY,
  created_at TEXT NOT NULL,
  paper_id TEXT NOT NULL,
  status TEXT NOT NULL,                -- stored | cached | not_downloadable_now | failed
  size INTEGER,
  sha256 TEXT,
  error TEXT
) STRICT;
