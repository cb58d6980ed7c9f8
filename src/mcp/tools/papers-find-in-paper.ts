import { z } from "zod";
import { findInPaper, MAX_QUESTION_CHARS } from "../../sources/reading/find";
import { defineTool } from "../tool";

export const papersFindInPaper = defineTool({
  name: "papers_find_in_paper",
  title: "Find in a paper",
  description:
    "The passages of an arXiv or NBER paper that best answer a question (BM25), each with its section and start/end offsets into the read tool's text. Cheap after the first read.",
  input: z.object({
    paper_id: z.string().min(1).max(300),
    query: z.string().min(1).max(MAX_QUESTION_CHARS),
    max_passages: z.number().int().min(1).max(20).default(5),
  }),
  output: z.object({
    paper_id: z.string(),
    source: z.string(),
    served_from: z.enum(["live", "cache"]),
    query_terms: z.array(z.string()),
    passages: z
      .array(
        z.object({
          text: z.string(),
          section_id: z.string().nullable(),
          section_title: z.string().nullable(),
          start: z.number(),
          end: z.number(),
          score: z.number(),
        }),
      )
      .meta({ description: "{text, section_id, section_title, start, end, score}", "x-compact": true }),
    notices: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    "invalid_id",
    "invalid_query",
    "no_match",
    "content_unavailable",
    "pdf_extraction_failed",
    "rate_limited",
    "timeout",
    "server_busy",
  ],
  handler: ({ paper_id, query, max_passages }, { env, progress }) =>
    findInPaper(env, paper_id, query, max_passages, progress),
  render(result) {
    const passages = result.passages.map(
      (p, i) => `[${i + 1}] ${p.section_title ?? "(no section)"} @${p.start}-${p.end} score ${p.score}\n${p.text}`,
    );
    return [
      `${result.paper_id} (${result.source}, ${result.served_from}): ${result.passages.length} passages for ${result.query_terms.join(" ")}`,
      ...result.notices,
      ...passages,
    ].join("\n\n");
  },
});
