-- Mirror search ranks every relevance search (issue 11): the FTS index keeps token positions
-- (detail=full). With detail=column, bm25 had to re-read and re-tokenize each hit's text (30-47 ms
-- to rank 1,784 hits, against 0.9-2.8 ms with positions), and a quoted phrase could only be
-- checked as "all its words in one field". Measured sizes and timings: docs/mirror.md.
--
-- The index is derived from arxiv_papers (external content), so it is rebuilt from the stored
-- papers; nothing held is lost. The triggers of 0004 name the table and keep working.
DROP TABLE arxiv_papers_fts;
CREATE VIRTUAL TABLE arxiv_papers_fts USING fts5(
  title, authors, abstract, comment, journal_ref,
  content = 'arxiv_papers', content_rowid = 'paper_key',
  tokenize = 'porter unicode61 remove_diacritics 2',
  detail = full
);
INSERT INTO arxiv_papers_fts (arxiv_papers_fts) VALUES ('rebuild');

-- Document frequencies of the index's terms, read by the ranker to order a query's terms from
-- rarest to commonest (fts5vocab counts them from the index itself; nothing is stored twice).
CREATE VIRTUAL TABLE arxiv_papers_fts_vocab USING fts5vocab(arxiv_papers_fts, 'row');

UPDATE mirror_schema SET version = 2 WHERE source = 'arxiv';

-- Per-column document frequencies, for the ranking tables below.
CREATE VIRTUAL TABLE arxiv_papers_fts_vocab_col USING fts5vocab(arxiv_papers_fts, 'col');

-- Ranking tables (src/store/arxiv-rank-tables.ts), rebuilt after each harvest run. For every
-- index term held by at least 1,000 papers, in any column (col = -1) or in one column (0 title,
-- 1 authors, 2 abstract, 3 comment, 4 journal_ref): how many papers hold it, and its champion list, the 100 papers with the
-- highest bm25 for that term alone (weight = that score without its idf, so it stays right as
-- document frequencies drift). The ranker (src/search/rank.ts) takes candidates for common terms
-- from these lists instead of scoring their hundreds of thousands of hits.
CREATE TABLE arxiv_rank_terms (
  term TEXT NOT NULL,
  col INTEGER NOT NULL,
  docs INTEGER NOT NULL,
  PRIMARY KEY (term, col)
) STRICT, WITHOUT ROWID;

CREATE TABLE arxiv_rank_champions (
  term TEXT NOT NULL,
  col INTEGER NOT NULL,
  weight REAL NOT NULL,
  paper_key INTEGER NOT NULL,
  PRIMARY KEY (term, col, weight, paper_key)
) STRICT, WITHOUT ROWID;
