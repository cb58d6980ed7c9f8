import { z } from "zod";
import { connectorSearch } from "../../sources/connector/search";
import { defineTool } from "../tool";

// ChatGPT connectors and deep research take a server with exactly this search and fetch
// (OpenAI's MCP guide): offered at /mcp/chatgpt, so that other clients' tools/list does not grow.
export const connectorSearchTool = defineTool({
  name: "search",
  title: "Search arXiv and NBER",
  useWhen: "find papers on a question in arXiv and NBER working papers at once.",
  description:
    "Searches arXiv and NBER working papers at once, mixed by relevance: up to 20 results, each an id " +
    "for fetch, a title and the paper's page.",
  input: z.object({
    query: z.string().min(1).max(1_000).describe("a question, words, a title or an author"),
  }),
  output: z.object({
    results: z.array(z.object({ id: z.string(), title: z.string(), url: z.string() })),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  errors: [
    { reason: "invalid_query", when: "the query has no words" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "upstream_unavailable", when: "arXiv and NBER are both down and no mirror holds the answer" },
    { reason: "upstream_malformed", when: "the upstream answered something unreadable" },
    { reason: "invalid_request", when: "an upstream rejected the query as malformed" },
    { reason: "timeout", when: "the call ran out of its time budget" },
  ],
  handler: ({ query }, context) => connectorSearch(context, query),
  jsonAnswer: { structured: true },
  render: (result) => JSON.stringify(result),
});
