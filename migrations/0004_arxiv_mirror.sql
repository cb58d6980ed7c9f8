-- arXiv metadata mirror (issue 5): the latest version of every paper, harvested over OAI-PMH.
-- Sizing and the choice of FTS5 options are measured in docs/mirror.md.
--
-- paper_key is computed from the arXiv ID (src/store/arxiv-key.ts): it grows with the month the
-- ID was issued and, within a month, with the number, so key order is submission order. That
-- makes "newest first" an index walk that stops after one page, lets a submitted-date window
-- become a key range, and makes lookups by ID a primary-key seek (no separate index on id).
CREATE TABLE arxiv_papers (
  paper_key INTEGER PRIMARY KEY,
  id TEXT NOT NULL,                     -- base ID: 2401.12345 or hep-th/9901001
  version INTEGER NOT NULL,             -- latest version held
  title TEXT NOT NULL,
  authors TEXT NOT NULL,                -- arXiv's author line as submitted ("A. One, B. Two and C. Three")
  abstract TEXT NOT NULL,
  categories TEXT NOT NULL,             -- JSON array, primary category first
  published INTEGER NOT NULL,           -- v1 date, Unix seconds
  versions TEXT NOT NULL,               -- JSON array of every version's date, Unix seconds (last = updated)
  comment TEXT,
  journal_ref TEXT,
  doi TEXT,
  license TEXT                          -- licence URL, its common prefix shortened (src/store/arxiv-row.ts)
) STRICT;

-- One row per (category, paper) plus one per (archive.*, paper), so that cat:cs.LG, category=cs
-- and cat:astro-ph.* are each one equality on the leading column, walked in key (= date) order.
CREATE TABLE arxiv_paper_categories (
  category TEXT NOT NULL,
  paper_key INTEGER NOT NULL,
  PRIMARY KEY (category, paper_key)
) STRICT, WITHOUT ROWID;

-- External-content FTS5 over the text columns; arxiv_papers holds the only copy of the text.
CREATE VIRTUAL TABLE arxiv_papers_fts USING fts5(
  title, authors, abstract, comment, journal_ref,
  content = 'arxiv_papers', content_rowid = 'paper_key',
  tokenize = 'porter unicode61 remove_diacritics 2',
  detail = column
);

-- The category rows a paper contributes: its codes and each code's archive wildcard.
-- (Triggers cannot use WITH, so the expression is spelled out in each trigger.)
CREATE TRIGGER arxiv_papers_ai AFTER INSERT ON arxiv_papers BEGIN
  INSERT INTO arxiv_papers_fts (rowid, title, authors, abstract, comment, journal_ref)
    VALUES (new.paper_key, new.title, new.authors, new.abstract, coalesce(new.comment, ''), coalesce(new.journal_ref, ''));
  INSERT OR IGNORE INTO arxiv_paper_categories (category, paper_key)
    SELECT value, new.paper_key FROM json_each(new.categories)
    UNION SELECT CASE WHEN instr(value, '.') > 0 THEN substr(value, 1, instr(value, '.') - 1) ELSE value END || '.*', new.paper_key
      FROM json_each(new.categories);
END;

CREATE TRIGGER arxiv_papers_ad AFTER DELETE ON arxiv_papers BEGIN
  INSERT INTO arxiv_papers_fts (arxiv_papers_fts, rowid, title, authors, abstract, comment, journal_ref)
    VALUES ('delete', old.paper_key, old.title, old.authors, old.abstract, coalesce(old.comment, ''), coalesce(old.journal_ref, ''));
  DELETE FROM arxiv_paper_categories WHERE paper_key = old.paper_key AND category IN (
    SELECT value FROM json_each(old.categories)
    UNION SELECT CASE WHEN instr(value, '.') > 0 THEN substr(value, 1, instr(value, '.') - 1) ELSE value END || '.*' FROM json_each(old.categories));
END;

-- Only a change to the indexed text touches the FTS index; only a change of categories touches
-- the junction (by primary key: no scan for the paper's rows).
CREATE TRIGGER arxiv_papers_au_text AFTER UPDATE OF title, authors, abstract, comment, journal_ref ON arxiv_papers
WHEN old.title IS NOT new.title OR old.authors IS NOT new.authors OR old.abstract IS NOT new.abstract
  OR old.comment IS NOT new.comment OR old.journal_ref IS NOT new.journal_ref BEGIN
  INSERT INTO arxiv_papers_fts (arxiv_papers_fts, rowid, title, authors, abstract, comment, journal_ref)
    VALUES ('delete', old.paper_key, old.title, old.authors, old.abstract, coalesce(old.comment, ''), coalesce(old.journal_ref, ''));
  INSERT INTO arxiv_papers_fts (rowid, title, authors, abstract, comment, journal_ref)
    VALUES (new.paper_key, new.title, new.authors, new.abstract, coalesce(new.comment, ''), coalesce(new.journal_ref, ''));
END;

CREATE TRIGGER arxiv_papers_au_categories AFTER UPDATE OF categories ON arxiv_papers WHEN old.categories IS NOT new.categories BEGIN
  DELETE FROM arxiv_paper_categories WHERE paper_key = old.paper_key AND category IN (
    SELECT value FROM json_each(old.categories)
    UNION SELECT CASE WHEN instr(value, '.') > 0 THEN substr(value, 1, instr(value, '.') - 1) ELSE value END || '.*' FROM json_each(old.categories));
  INSERT OR IGNORE INTO arxiv_paper_categories (category, paper_key)
    SELECT value, new.paper_key FROM json_each(new.categories)
    UNION SELECT CASE WHEN instr(value, '.') > 0 THEN substr(value, 1, instr(value, '.') - 1) ELSE value END || '.*', new.paper_key
      FROM json_each(new.categories);
END;

-- Papers whose v1 date lies more than 31 days from their ID's month (arXiv has a few: IDs of
-- one month given to papers dated in another). Date filters take keys as months with that
-- margin; these rows let them stay exact (src/store/arxiv-mirror.ts).
CREATE TABLE arxiv_date_outliers (
  paper_key INTEGER PRIMARY KEY,
  published INTEGER NOT NULL
) STRICT;
CREATE INDEX arxiv_date_outliers_published ON arxiv_date_outliers (published);

CREATE TRIGGER arxiv_papers_outlier_ai AFTER INSERT ON arxiv_papers
WHEN new.published < unixepoch(printf('%04d-%02d-01', new.paper_key / 1000000 / 12, new.paper_key / 1000000 % 12 + 1)) - 2678400
  OR new.published >= unixepoch(printf('%04d-%02d-01', new.paper_key / 1000000 / 12, new.paper_key / 1000000 % 12 + 1), '+1 month') + 2678400 BEGIN
  INSERT OR REPLACE INTO arxiv_date_outliers (paper_key, published) VALUES (new.paper_key, new.published);
END;
CREATE TRIGGER arxiv_papers_outlier_au AFTER UPDATE OF published ON arxiv_papers BEGIN
  DELETE FROM arxiv_date_outliers WHERE paper_key = old.paper_key;
  INSERT INTO arxiv_date_outliers (paper_key, published) SELECT new.paper_key, new.published
  WHERE new.published < unixepoch(printf('%04d-%02d-01', new.paper_key / 1000000 / 12, new.paper_key / 1000000 % 12 + 1)) - 2678400
    OR new.published >= unixepoch(printf('%04d-%02d-01', new.paper_key / 1000000 / 12, new.paper_key / 1000000 % 12 + 1), '+1 month') + 2678400;
END;
CREATE TRIGGER arxiv_papers_outlier_ad AFTER DELETE ON arxiv_papers BEGIN
  DELETE FROM arxiv_date_outliers WHERE paper_key = old.paper_key;
END;

-- The mirror's schema version: bumped by any migration that changes how rows are written, so
-- a Worker never answers from a mirror whose layout it does not know.
CREATE TABLE mirror_schema (
  source TEXT PRIMARY KEY NOT NULL,
  version INTEGER NOT NULL
) STRICT;
INSERT INTO mirror_schema (source, version) VALUES ('arxiv', 1);

-- Harvest progress shown on /status: per-run counters and timings beside the checkpoint.
ALTER TABLE harvest_state ADD COLUMN run_id TEXT;
ALTER TABLE harvest_state ADD COLUMN mode TEXT;                -- cold | refresh
ALTER TABLE harvest_state ADD COLUMN run_records INTEGER NOT NULL DEFAULT 0;
ALTER TABLE harvest_state ADD COLUMN run_deleted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE harvest_state ADD COLUMN complete_list_size INTEGER;
ALTER TABLE harvest_state ADD COLUMN from_datestamp TEXT;      -- where the run started (refresh re-reads that day)
ALTER TABLE harvest_state ADD COLUMN last_page_ms INTEGER;     -- parse + write time of the last page
ALTER TABLE harvest_state ADD COLUMN verified TEXT;            -- JSON: the last verify result
ALTER TABLE harvest_state ADD COLUMN enqueued_page INTEGER NOT NULL DEFAULT 0; -- highest page number sent to the queue

-- harvest_state.records counts the papers, kept by triggers: count(*) over millions of rows
-- is a full scan, and the status page reads this on every request.
INSERT OR IGNORE INTO harvest_state (source) VALUES ('arxiv');
CREATE TRIGGER arxiv_papers_count_ai AFTER INSERT ON arxiv_papers BEGIN
  UPDATE harvest_state SET records = records + 1 WHERE source = 'arxiv';
END;
CREATE TRIGGER arxiv_papers_count_ad AFTER DELETE ON arxiv_papers BEGIN
  UPDATE harvest_state SET records = records - 1 WHERE source = 'arxiv';
END;
