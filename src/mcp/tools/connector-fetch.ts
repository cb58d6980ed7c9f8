import { z } from "zod";
import { connectorFetch } from "../../sources/connector/fetch";
import { defineTool } from "../tool";

// The fetch half of OpenAI's search/fetch contract (see connector-search.ts).
export const connectorFetchTool = defineTool({
  name: "fetch",
  title: "Fetch a paper",
  useWhen: "read a paper search found: its metadata and text.",
  description:
    "A paper by a search result's id: title, metadata and its text (about 12,000 tokens a piece); metadata.next_id continues a long text.",
  input: z.object({
    id: z.string().min(1).max(300).describe("arxiv:<id> or nber:w<n>, from search (or metadata.next_id)"),
  }),
  output: z.object({
    id: z.string(),
    title: z.string(),
    text: z.string(),
    url: z.string(),
    metadata: z.record(z.string(), z.unknown()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  errors: [
    { reason: "invalid_id", when: "the id is not one search gives" },
    { reason: "no_match", when: "no such paper exists" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "upstream_unavailable", when: "the upstream is down and no mirror or cache holds the paper" },
    { reason: "upstream_malformed", when: "the upstream answered something unreadable" },
    { reason: "timeout", when: "the call ran out of its time budget" },
    { reason: "server_busy", when: "the server's PDF memory is taken by other reads" },
    { reason: "version_unavailable", when: "the version asked for does not exist" },
    { reason: "version_not_served", when: "the version asked for is one arXiv no longer serves" },
    { reason: "invalid_request", when: "arXiv's API rejected the lookup as malformed" },
  ],
  handler: ({ id }, context) => connectorFetch(context, id),
  // The text goes once: in the JSON text item, not again in structuredContent.
  jsonAnswer: { structured: false },
  render: (result) => JSON.stringify(result),
});
