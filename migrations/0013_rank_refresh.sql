-- The ranking tables follow each harvest run's own changes instead of being rebuilt whole (issue
-- 34; src/store/arxiv-rank-refresh.ts, docs/mirror.md "Ranking tables").
--
-- The last full build and what has changed since: the bounds past which a run rebuilds whole.
CREATE TABLE arxiv_rank_build (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  built_at TEXT NOT NULL,
  -- Papers and tokens in the index at the full build (tokens NULL: built before this migration;
  -- the first refresh records them).
  rows INTEGER NOT NULL,
  tokens INTEGER,
  -- Changed papers merged in since the full build.
  changed_since INTEGER NOT NULL DEFAULT 0,
  refreshed_at TEXT,
  -- POST /admin/harvest?...&rank=full: the next run rebuilds whole.
  full_requested INTEGER NOT NULL DEFAULT 0
) STRICT;

-- Each paper whose text changes is logged with the text the tables were built from (NULL for a
-- paper new since), once: a second change keeps the first old text (NOT EXISTS rather than OR
-- IGNORE: a trigger's conflict clause gives way to the statement's, the harvest's upsert). Nothing is logged before the
-- first full build (arxiv_rank_build has no row): a cold harvest ends in a full rebuild anyway.
CREATE TABLE arxiv_rank_changes (
  paper_key INTEGER PRIMARY KEY,
  old_text TEXT
) STRICT;

CREATE TRIGGER arxiv_rank_change_ai AFTER INSERT ON arxiv_papers
WHEN EXISTS (SELECT 1 FROM arxiv_rank_build) BEGIN
  INSERT INTO arxiv_rank_changes (paper_key, old_text) SELECT new.paper_key, NULL
  WHERE NOT EXISTS (SELECT 1 FROM arxiv_rank_changes WHERE paper_key = new.paper_key);
END;
CREATE TRIGGER arxiv_rank_change_au AFTER UPDATE OF title, authors, abstract, comment, journal_ref ON arxiv_papers
WHEN EXISTS (SELECT 1 FROM arxiv_rank_build) AND (old.title IS NOT new.title OR old.authors IS NOT new.authors
  OR old.abstract IS NOT new.abstract OR old.comment IS NOT new.comment OR old.journal_ref IS NOT new.journal_ref) BEGIN
  INSERT INTO arxiv_rank_changes (paper_key, old_text)
  SELECT old.paper_key, json_array(old.title, old.authors, old.abstract, old.comment, old.journal_ref)
  WHERE NOT EXISTS (SELECT 1 FROM arxiv_rank_changes WHERE paper_key = old.paper_key);
END;
CREATE TRIGGER arxiv_rank_change_ad AFTER DELETE ON arxiv_papers
WHEN EXISTS (SELECT 1 FROM arxiv_rank_build) BEGIN
  INSERT INTO arxiv_rank_changes (paper_key, old_text)
  SELECT old.paper_key, json_array(old.title, old.authors, old.abstract, old.comment, old.journal_ref)
  WHERE NOT EXISTS (SELECT 1 FROM arxiv_rank_changes WHERE paper_key = old.paper_key);
END;

-- The changed papers' entries for the lists that exist: a term, its column scope (-1: any), the
-- paper and its weight now (bm25 for the term alone, without the idf), or NULL where the paper no
-- longer holds the term there. Merged into the lists a slice of terms at a time, then deleted.
CREATE TABLE arxiv_rank_staged (
  term TEXT NOT NULL,
  col INTEGER NOT NULL,
  paper_key INTEGER NOT NULL,
  weight REAL,
  PRIMARY KEY (term, col, paper_key)
) STRICT, WITHOUT ROWID;

-- Every term a changed paper holds or held: its document frequencies are read again, and a term
-- that became common gets its lists.
CREATE TABLE arxiv_rank_touched (term TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;

-- A held impact list is reused while its count, length and stamp (when it was written) match.
ALTER TABLE arxiv_rank_impacts ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;

-- Each list's floor: the weight a paper needs to enter it (its last paper's; 0 while it holds
-- every paper of its term). A changed paper is staged for a list only above it. The champion
-- lists' floors are set here; the impact lists' (text) by the first merge's "floors" phase.
ALTER TABLE arxiv_rank_terms ADD COLUMN floor REAL;
ALTER TABLE arxiv_rank_impacts ADD COLUMN floor REAL;
UPDATE arxiv_rank_terms SET floor = CASE
  WHEN (SELECT count(*) FROM arxiv_rank_champions c WHERE c.term = arxiv_rank_terms.term AND c.col = arxiv_rank_terms.col) < 100 THEN 0
  ELSE (SELECT min(weight) FROM arxiv_rank_champions c WHERE c.term = arxiv_rank_terms.term AND c.col = arxiv_rank_terms.col) END;

-- A mirror whose tables were built before: they count as a full build of today's papers.
INSERT INTO arxiv_rank_build (id, built_at, rows, tokens)
SELECT 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT count(*) FROM arxiv_papers), NULL
WHERE EXISTS (SELECT 1 FROM arxiv_rank_impacts) OR EXISTS (SELECT 1 FROM arxiv_rank_terms);
