-- Impact lists (issue 11; src/search/impacts.ts, built with the other ranking tables by
-- src/store/arxiv-rank-tables.ts after each harvest run). For every index term held by at least
-- 1,000 papers in any column (col = -1), and by at least 20 titles (col = 0: a pasted title's
-- ti: words): the papers where the term alone weighs most, about 1% of the mirror deep, as text
-- (delta-coded paper keys, then a byte of weight each). The ranker sums them over a
-- query's words to find the papers that hold several of its words, where a research question's
-- best papers are. A rowid table: a list is tens of kilobytes, too large for WITHOUT ROWID rows.
CREATE TABLE arxiv_rank_impacts (
  term TEXT NOT NULL,
  col INTEGER NOT NULL,
  docs INTEGER NOT NULL,
  postings TEXT NOT NULL,
  PRIMARY KEY (term, col)
) STRICT;
