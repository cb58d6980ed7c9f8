// Server instructions: what an agent reads once, at initialize. Built from the registry, so every
// tool is named with its one line on when to use it, and a new tool cannot be left out.
import { PROMPTS } from "./prompts";
import { TOOLS } from "./registry";

export const SERVER_INSTRUCTIONS = [
  "papers-mcp answers questions about arXiv papers and NBER working papers. Tools, and when to use each:",
  ...TOOLS.map((tool) => `- ${tool.name}: ${tool.useWhen}`),
  "Before trusting a reference, check it with papers_resolve_reference; before paging a whole paper, ask papers_find_in_paper.",
  "A failed call returns isError with JSON text { error: { reason, message, retryable, retry_after_ms?, " +
    "recovery } }: follow recovery; on rate_limited or server_busy wait retry_after_ms.",
  "Results that can come from several places say where in served_from (live, cache, mirror).",
  `Prompts (prompts/get) lay out the common tasks: ${PROMPTS.map((prompt) => prompt.name).join(", ")}.`,
].join("\n");

/** /mcp/chatgpt's instructions: the two tools of OpenAI's search/fetch contract. */
export const CONNECTOR_INSTRUCTIONS = [
  "papers-mcp finds and reads arXiv papers and NBER working papers.",
  "- search: a question or words; results from both sources, mixed by relevance, each with an id and the paper's page (cite its url).",
  "- fetch: a result's id; the paper's metadata and text. A long text continues with metadata.next_id.",
].join("\n");
