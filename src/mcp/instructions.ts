// Server instructions: what an agent reads once, at initialize. Keep it to a few lines.
export const SERVER_INSTRUCTIONS = [
  "papers-mcp answers questions about arXiv papers and NBER working papers.",
  "Start with arxiv_list_categories to find category codes (cs.CL, astro-ph.GA) for filtering.",
  "A failed call returns isError with JSON text { error: { reason, message, retryable, retry_after_ms?, recovery } }: follow recovery; on rate_limited wait retry_after_ms.",
  "Results that can come from several places say where in served_from (live, cache, mirror).",
].join("\n");
