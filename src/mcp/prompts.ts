// MCP prompts: the common research tasks, each a few lines that name the tools in the order an
// agent should call them. Listed by prompts/list (apart from tools/list and its budget).
import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export interface DefinedPrompt {
  name: string;
  title: string;
  description: string;
  /** Prompt arguments are strings (the MCP spec); each says what it is. */
  args: z.ZodObject<Record<string, z.ZodString | z.ZodOptional<z.ZodString>>>;
  text(args: Record<string, string | undefined>): string;
}

const lines = (...parts: (string | false | undefined)[]) => parts.filter(Boolean).join("\n");

export const PROMPTS: readonly DefinedPrompt[] = [
  {
    name: "literature_search",
    title: "Literature search on a question",
    description: "Find, rank and cite the papers that answer a research question.",
    args: z.object({
      question: z.string().min(1).max(1_000).describe("the research question"),
      since: z.string().max(10).optional().describe("only papers from this year on, e.g. 2020"),
    }),
    text: ({ question, since }) =>
      lines(
        `Find the papers that answer this research question: ${question}`,
        "1. arxiv_search_papers with two or three phrasings (ti: and abs: for the key terms, a cat: where the field is clear)" +
          (since ? `, submitted_from ${since}-01-01.` : "."),
        "2. nber_search_papers if the question touches economics or policy.",
        "3. arxiv_get_metadata for the 5-10 most relevant, to read their abstracts whole.",
        "4. papers_citations (cited_by, most_cited) on the 2-3 central papers, for what followed them.",
        "5. papers_export_citations (bibtex) for the papers you cite.",
        "Answer with a short synthesis; cite every claim by arXiv or NBER ID, and say where the evidence is thin.",
      ),
  },
  {
    name: "read_paper",
    title: "Read and summarise a paper",
    description: "Read one paper section by section and summarise it with its figures and tables.",
    args: z.object({
      paper_id: z.string().min(1).max(300).describe("arXiv ID or link, or NBER w-number"),
      focus: z.string().max(500).optional().describe("what to look for, e.g. the method's limits"),
    }),
    text: ({ paper_id, focus }) =>
      lines(
        `Read and summarise the paper ${paper_id}.`,
        "1. arxiv_get_metadata (or nber_get_paper_info for a w-number) for the title, authors, abstract and versions.",
        "2. arxiv_read_paper (or nber_read_paper) page 1: it lists the outline and the figures and tables.",
        "3. Read the sections that carry the contribution (method, results, limitations) with section=<outline id>.",
        focus && `4. papers_find_in_paper with query "${focus}" for the passages on it.`,
        "Summarise: the question, the method, the main results (naming the figures and tables that show them), " +
          "the limits the authors state, and what the paper cites as its closest work.",
      ),
  },
  {
    name: "check_bibliography",
    title: "Check a bibliography and fix it",
    description: "Verify every entry of a bibliography against the real records and return it corrected.",
    args: z.object({
      bibliography: z.string().min(1).max(250_000).describe(".bib, RIS, CSL-JSON or one reference per line"),
    }),
    text: ({ bibliography }) =>
      lines(
        "Check this bibliography and fix it.",
        "1. papers_check_bibliography with the whole text; page with start=next_start until next_start is null.",
        "2. verified and differs: use the record's BibTeX from the answer (differs lists the fields that were wrong).",
        "3. not_found: papers_resolve_reference on the entry's text once more; if it is still not found, say so " +
          "plainly (the reference may be invented) rather than guessing.",
        "4. unchecked: a source could not be asked; retry after retry_after_ms.",
        "Return the corrected .bib, then a short list of what changed and what could not be verified.",
        "",
        bibliography,
      ),
  },
  {
    name: "who_cites",
    title: "Who cites this paper, and what followed",
    description: "The works citing a paper, the most influential first, and the lines of work that followed it.",
    args: z.object({
      paper_id: z.string().min(1).max(300).describe("arXiv ID, NBER w-number or DOI"),
    }),
    text: ({ paper_id }) =>
      lines(
        `Who cites ${paper_id}, and what followed from it?`,
        "1. arxiv_get_metadata (or nber_get_paper_info) for what the paper claims.",
        "2. papers_citations direction=cited_by sort=most_cited, then sort=newest, for the influential and the recent.",
        "3. arxiv_get_metadata on the citing papers with arXiv IDs, to read their abstracts.",
        "Group the citing works by what they did with the paper (extended, applied, disputed, surveyed), with IDs, " +
          "and note the citation count's date (cited_by_count_as_of).",
      ),
  },
  {
    name: "set_watch",
    title: "Set a watch",
    description: "Save a search or a paper to follow; later checks bring only what is new.",
    args: z.object({
      topic: z.string().max(500).optional().describe("what to follow, in words or arXiv grammar"),
      cites: z.string().max(300).optional().describe("or: a paper whose new citing works to follow"),
    }),
    text: ({ topic, cites }) =>
      lines(
        `Set a watch${topic ? ` on: ${topic}` : ""}${cites ? `${topic ? " and" : ""} on new works citing ${cites}` : ""}.`,
        "1. arxiv_search_papers with the query you would save, to check it finds the right papers; refine it until it does.",
        "2. papers_watch action=create with a short name and arxiv_query (and categories)" +
          (cites ? `, or cites="${cites}" for citing works.` : "."),
        "3. papers_watch action=check now and later: it answers only the papers new since the last check.",
        "Tell the user the watch's name and what the first check found.",
      ),
  },
];

export function registerPrompts(server: McpServer): void {
  for (const prompt of PROMPTS) {
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: prompt.args },
      (args: Record<string, string | undefined>) => ({
        description: prompt.description,
        messages: [{ role: "user" as const, content: { type: "text" as const, text: prompt.text(args) } }],
      }),
    );
  }
}
