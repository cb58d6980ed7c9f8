import { z } from "zod";
import { findInPaper, MAX_QUESTION_CHARS } from "../../sources/reading/find";
import { defineTool } from "../tool";

export const papersFindInPaper = defineTool({
  name: "papers_find_in_paper",
  title: "Find in a paper",
  useWhen: "the passages of a paper that answer a question, before paging the whole paper.",
  description:
    "Passages of an arXiv or NBER paper that best answer a question (BM25), with section and offsets " +
    "into the read tool's text. Cheap after a read.",
  input: z.object({
    paper_id: z.string().min(1).max(300).describe("arXiv or NBER ID"),
    query: z.string().min(1).max(MAX_QUESTION_CHARS).describe("a question or words"),
    max_passages: z.number().int().min(1).max(20).default(5).describe("best first"),
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
      .describe("{text, section_id, section_title, start, end, score}"),
    notices: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "invalid_id", when: "paper_id is neither an arXiv ID nor an NBER number" },
    { reason: "invalid_query", when: "the question has no words to search for" },
    { reason: "no_match", when: "no such paper exists" },
    { reason: "content_unavailable", when: "no HTML, ar5iv or PDF text exists for the paper" },
    { reason: "pdf_extraction_failed", when: "the PDF has no text layer or does not parse" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "timeout", when: "the call ran out of its time budget" },
    { reason: "server_busy", when: "the server's PDF memory is taken by other reads" },
  ],
  handler: ({ paper_id, query, max_passages }, context) =>
    findInPaper(context, paper_id, query, max_passages, context.progress),
  render(result) {
    const passages = result.passages.map(
      (p, i) => `[${i + 1}] ${p.section_title ?? "(no section)"} @${p.start}-${p.end} score ${p.score}\n${p.text}`,
    );
    return [
      `${result.paper_id} (${result.source}, ${result.served_from}): ${result.passages.length} passages ` +
        `for ${result.query_terms.join(" ")}`,
      ...result.notices,
      ...passages,
    ].join("\n\n");
  },
});
