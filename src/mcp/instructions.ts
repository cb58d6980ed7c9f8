// Server instructions: what an agent reads once, at initialize. Keep it to a few lines.
export const SERVER_INSTRUCTIONS = [
  "papers-mcp answers questions about arXiv papers and NBER working papers.",
  "arxiv_search_papers finds papers with arXiv's query grammar (ti: au: abs: cat:, upper-case AND/OR/ANDNOT; spaces mean OR); page with next_start. arxiv_get_metadata looks papers up by any ID spelling or arxiv.org link. arxiv_list_categories gives category codes.",
  "To cite, use papers_export_citations (BibTeX, RIS, CSL-JSON from the real records) and check a reference with papers_resolve_reference before trusting it; arxiv_get_references lists a paper's bibliography with IDs.",
  "To read, ask papers_find_in_paper for the passages that answer a question before paging a whole paper; read tools page by max_tokens and take a section or figure id.",
  "A failed call returns isError with JSON text { error: { reason, message, retryable, retry_after_ms?, recovery } }: follow recovery; on rate_limited wait retry_after_ms.",
  "Results that can come from several places say where in served_from (live, cache, mirror).",
].join("\n");
