-- Indexes for resolving references in any style (issue 31; src/store/reference-candidates.ts).
--
-- Titles alone, for the candidate walk. arxiv_papers_fts cannot rank titles: FTS5's bm25
-- normalises by the whole row's length, so a collaboration paper whose author list runs to 2,831
-- names scores near nothing for its own title's words (1411.4413: -0.41 for "lhcb", against -28
-- here). detail=none keeps only which papers hold each word: the walk needs no positions.
CREATE VIRTUAL TABLE arxiv_titles_fts USING fts5(
  title,
  content = 'arxiv_papers', content_rowid = 'paper_key',
  tokenize = 'porter unicode61 remove_diacritics 2',
  detail = none
);
INSERT INTO arxiv_titles_fts (arxiv_titles_fts) VALUES ('rebuild');

CREATE TRIGGER arxiv_titles_ai AFTER INSERT ON arxiv_papers BEGIN
  INSERT INTO arxiv_titles_fts (rowid, title) VALUES (new.paper_key, new.title);
END;
CREATE TRIGGER arxiv_titles_ad AFTER DELETE ON arxiv_papers BEGIN
  INSERT INTO arxiv_titles_fts (arxiv_titles_fts, rowid, title) VALUES ('delete', old.paper_key, old.title);
END;
CREATE TRIGGER arxiv_titles_au AFTER UPDATE OF title ON arxiv_papers WHEN old.title IS NOT new.title BEGIN
  INSERT INTO arxiv_titles_fts (arxiv_titles_fts, rowid, title) VALUES ('delete', old.paper_key, old.title);
  INSERT INTO arxiv_titles_fts (rowid, title) VALUES (new.paper_key, new.title);
END;

-- How many titles hold each word, from the title index itself: the second walk pairs a
-- reference's rarest title words (src/store/reference-candidates.ts).
CREATE VIRTUAL TABLE arxiv_titles_fts_vocab USING fts5vocab(arxiv_titles_fts, 'row');

-- Document frequencies of the NBER index's words: the walk leaves the words most papers hold out.
-- fts5vocab counts them from the index itself; nothing is stored twice.
CREATE VIRTUAL TABLE nber_papers_fts_vocab USING fts5vocab(nber_papers_fts, 'row');
