-- The impact lists' floors, read without their lists (issue 43: the refresh at 3.2 million papers).
-- A refresh's stage step reads the floor of every list its changed papers' terms have
-- (src/store/ranking/refresh.ts, TRACKED_SQL). `floor` was added after `postings` (0013), so
-- reading it from the table walks each list's overflow pages: at 3,202,567 papers (lists about
-- 16 KB) 87 ms for the lists of 100 papers' terms with the pages cached and 1.4 s without. This
-- index holds the floor beside the key: 18 ms and 39 ms. Built in 0.8 s at that size.
CREATE INDEX arxiv_rank_impacts_floor ON arxiv_rank_impacts (term, col, floor);
