// arxiv_get_references behind the tool: the paper is read through the read pipeline (its R2
// cache after the first read), its bibliography cut into entries, and each entry on the page
// resolved like papers_resolve_reference (mirror first; no upstream request when it holds them).
import { noProgress, throttled, type ReportProgress } from "../../progress";
import { loadArxivDocument } from "../arxiv/read/reader";
import { bibliographyOf, type BibliographyEntry } from "./bibliography";
import type { ServedPaper } from "../arxiv/paper";
import { lookupArxiv, resolveReference, type Candidate } from "./resolve";
import { mapLimited } from "./map-limited";
import { isCallBudgetSpent } from "../../call-budget";

/** What one entry's resolution against the mirrors may spend at most (its walks and lookups). */
const ENTRY_RESERVE = { d1Queries: 8 };
import type { AppContext } from "../../context";

export const REFERENCES_PAGE = 25;
export const REFERENCES_MAX_PAGE = 100;
const RESOLVE_CONCURRENCY = 8;

export interface ResolvedEntry extends BibliographyEntry {
  resolved:
    | { status: "match"; source: Candidate["source"]; id: string; confidence: number }
    | { status: "no_match" }
    | { status: "not_tried"; why: string };
}

export interface ReferencesResult {
  paper_id: string;
  text_source: string;
  total: number;
  start: number;
  next_start: number | null;
  references: ResolvedEntry[];
  notices: string[];
}

export async function getReferences(
  ctx: AppContext,
  paperId: string,
  start: number,
  limit: number,
  reportProgress: ReportProgress = noProgress,
): Promise<ReferencesResult> {
  const loaded = await loadArxivDocument(ctx, paperId, reportProgress);
  const entries = bibliographyOf(loaded.document);
  const page = entries.slice(start, start + limit);
  // Every arXiv ID on the page in one lookup (one API request at most), not one per entry.
  const arxivIds = [...new Set(page.flatMap((entry) => (entry.arxiv_id ? [entry.arxiv_id.replace(/v\d+$/, "")] : [])))];
  const arxivLookups = await lookupArxiv(ctx, arxivIds);
  const progress = throttled(reportProgress);
  let resolved = 0;
  const resolveOne = resolveEntry(ctx, arxivLookups);
  const references = await mapLimited(page, RESOLVE_CONCURRENCY, async (entry) => {
    const done = await resolveOne(entry);
    resolved++;
    progress(`${resolved} of ${page.length} references resolved`, resolved, page.length);
    return done;
  });
  const notices = [...loaded.notices];
  if (entries.length === 0) notices.push(`No bibliography was found in the paper's text (${loaded.source}).`);
  if (loaded.document.extraction_truncated)
    notices.push("The paper's text was cut at the read budget; entries past it are missing.");
  if (loaded.source === "pdf_text")
    notices.push("Entries were cut from the PDF's text: titles and authors are read heuristically.");
  return {
    paper_id: loaded.resolvedId,
    text_source: loaded.source,
    total: entries.length,
    start,
    next_start: start + limit < entries.length ? start + limit : null,
    references,
    notices,
  };
}

function resolveEntry(ctx: AppContext, arxivLookups: Map<string, ServedPaper | string>) {
  return async (entry: BibliographyEntry): Promise<ResolvedEntry> => {
    const { number: _n, text: _t, ...fields } = entry;
    if (!fields.title && !fields.doi && !fields.arxiv_id && !fields.nber_id) {
      return {
        ...entry,
        resolved: { status: "not_tried", why: "no title or identifier could be read from the entry" },
      };
    }
    // The call's budget (D1 queries: a free plan's 50 hold a few entries) leaves the rest not tried,
    // never failing the page; an entry during which a step was refused is not tried either.
    const budget = ctx.call?.budget;
    const refusedBefore = budget?.refused ?? 0;
    const notTried = {
      ...entry,
      resolved: {
        status: "not_tried" as const,
        why: "this call's budget of D1 queries ran short: ask for this entry again (start, or a smaller max_results)",
      },
    };
    if (budget && !budget.has(ENTRY_RESERVE)) return notTried;
    let resolution: Awaited<ReturnType<typeof resolveReference>>;
    try {
      resolution = await resolveReference(
        ctx,
        { text: entry.text, fields },
        {
          maxMatches: 1,
          arxivLookups,
          // A paper's reference list against the mirrors only: its hundreds of entries at Crossref's spacing take minutes.
          external: false,
        },
      );
    } catch (error) {
      if (isCallBudgetSpent(error)) return notTried;
      throw error;
    }
    const best = resolution.matches[0];
    if (!best && budget && budget.refused > refusedBefore) return notTried;
    return {
      ...entry,
      resolved: best
        ? { status: "match", source: best.source, id: best.id, confidence: best.confidence }
        : { status: "no_match" },
    };
  };
}
