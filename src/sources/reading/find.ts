// papers_find_in_paper behind the tool: an arXiv or NBER paper's text through its read pipeline
// (the R2 cache after the first read), and the passages that best answer a question.
import { PapersError } from "../../errors";
import { noProgress, type ReportProgress } from "../../progress";
import { loadArxivDocument } from "../arxiv/read/reader";
import { parseArxivId } from "../arxiv/ids";
import { parseNberId } from "../nber/ids";
import { loadNberDocument } from "../nber/read";
import { findPassages, passageKey, queryTerms, type FoundPassage } from "../text/passages";
import type { AppContext } from "../../context";

export const MAX_QUESTION_CHARS = 1_000;

export interface FindResult {
  paper_id: string;
  source: string;
  served_from: "live" | "cache";
  query_terms: string[];
  passages: FoundPassage[];
  notices: string[];
}

export async function findInPaper(
  ctx: AppContext,
  paperId: string,
  question: string,
  maxPassages: number,
  progress: ReportProgress = noProgress,
): Promise<FindResult> {
  if (queryTerms(question).length === 0) {
    throw new PapersError("invalid_query", "The question has no words to look for.", {
      recovery: 'Ask in words, e.g. "what dataset is used for evaluation".',
    });
  }
  let loaded: {
    id: string;
    source: string;
    servedFrom: "live" | "cache";
    document: Awaited<ReturnType<typeof loadArxivDocument>>["document"];
  };
  if (parseArxivId(paperId).ok) {
    const arxiv = await loadArxivDocument(ctx, paperId, progress);
    loaded = { id: arxiv.resolvedId, source: arxiv.source, servedFrom: arxiv.servedFrom, document: arxiv.document };
  } else if (parseNberId(paperId).ok) {
    const nber = await loadNberDocument(ctx, paperId, progress);
    loaded = { id: nber.id, source: "pdf_text", servedFrom: nber.servedFrom, document: nber.document };
  } else {
    throw new PapersError(
      "invalid_id",
      `${JSON.stringify(paperId.slice(0, 80))} is neither an arXiv ID nor an NBER one.`,
      {
        recovery: "Use an arXiv ID (2401.12345, hep-th/9901001, an arxiv.org link) or an NBER ID (w25000).",
      },
    );
  }
  const passages = findPassages(passageKey(loaded.id, loaded.source), loaded.document, question, maxPassages);
  const notices: string[] = [];
  if (passages.length === 0) {
    const sections = loaded.document.outline
      .filter((entry) => entry.level > 1)
      .slice(0, 20)
      .map((entry) => entry.title);
    notices.push(
      `No passage contains any of the question's words ` +
        `(${queryTerms(question).join(", ")}).${sections.length > 0 ? ` The paper's sections: ${sections.join("; ")}.` : ""} ` +
        `Try other words, or read a section.`,
    );
  }
  if (loaded.document.extraction_truncated)
    notices.push("The paper's text was cut at the read budget; passages past it are not searched.");
  return {
    paper_id: loaded.id,
    source: loaded.source,
    served_from: loaded.servedFrom,
    query_terms: queryTerms(question),
    passages,
    notices,
  };
}
