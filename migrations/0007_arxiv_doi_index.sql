-- papers_resolve_reference finds an arXiv paper by its journal DOI. DOIs are case-insensitive, so
-- the index holds them lower-cased; only papers with a DOI (about 40%) are in it.
CREATE INDEX arxiv_papers_doi ON arxiv_papers (lower(doi)) WHERE doi IS NOT NULL;
