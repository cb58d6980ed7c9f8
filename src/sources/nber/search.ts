// nber_search_papers: from the mirror when it can answer, else NBER's API (whose results then
// join the mirror); the mirror again when the API cannot be asked. Every search is logged.
import { PapersError } from "../../errors";
import { logQuery } from "../../store/nber-logs";
import { mirrorCoverage, mirrorPaper, searchMirror, upsertMirror, type MirrorPaper } from "../../store/nber-mirror";
import { parseDay } from "../dates";
import { searchNberApi } from "./api";
import { parseNberId } from "./ids";
import { paperUrl, type NberPaper } from "./paper";
import { fromCache } from "../served-from";
import type { AppContext } from "../../context";

export interface NberSearchInput {
  query: string;
  start_date?: string;
  end_date?: string;
  page: number;
  per_page: 20 | 50 | 100;
}

export interface NberSearchResult {
  query: string;
  total: number;
  page: number;
  per_page: number;
  start_date: string | null;
  end_date: string | null;
  served_from: "mirror" | "live" | "cache";
  /** A cached NBER answer: when NBER gave it, and how old it is. */
  cached_at?: string;
  cache_age_seconds?: number;
  papers: NberPaper[];
  notices: string[];
}

// The mirror is trusted for a window that ends before its newest paper: after that it may lack papers.
const toPaper = (paper: MirrorPaper): NberPaper => ({ ...paper, url: paperUrl(paper.id) });

/** One search as its stages see it: the checked query, the answer's common fields, the notices so far. */
interface NberSearchCall {
  ctx: AppContext;
  input: NberSearchInput;
  query: string;
  base: Pick<NberSearchResult, "query" | "page" | "per_page" | "start_date" | "end_date">;
  /** The query read as a paper number ("w25000", "25000"): a lookup, best answered by the mirror. */
  asId: ReturnType<typeof parseNberId>;
  coverage: Awaited<ReturnType<typeof mirrorCoverage>>;
  notices: string[];
}

export async function searchNber(ctx: AppContext, input: NberSearchInput, surface: string): Promise<NberSearchResult> {
  const query = checkedQuery(input);
  const conditions = {
    start_date: input.start_date ?? null,
    end_date: input.end_date ?? null,
    page: input.page,
    per_page: input.per_page,
  };
  const asId = parseNberId(query);
  const coverage = await mirrorCoverage(ctx.env.DB);
  const call: NberSearchCall = {
    ctx,
    input,
    query,
    base: {
      query,
      page: input.page,
      per_page: input.per_page,
      start_date: conditions.start_date,
      end_date: conditions.end_date,
    },
    asId,
    coverage,
    notices: [],
  };
  const newest = coverage.newest;
  const mirrorCanAnswer =
    coverage.papers > 0 &&
    newest !== null &&
    (asId.ok || (input.end_date !== undefined && input.end_date.slice(0, 7) < newest.slice(0, 7)));
  let result: NberSearchResult;
  try {
    if (mirrorCanAnswer) {
      result = await fromMirror(call);
      if (asId.ok && result.total === 0) result = await live(call);
    } else {
      result = await live(call);
    }
  } catch (error) {
    await logQuery(ctx.env.DB, {
      surface,
      keyword: query,
      conditions,
      resultCount: null,
      servedFrom: null,
      error: error instanceof PapersError ? error.reason : "internal_error",
    });
    throw error;
  }
  if (result.papers.length === 0) {
    call.notices.push(
      result.total > 0
        ? `page ${input.page} is past the last result (total ${result.total}).`
        : "No paper matches. Try fewer or different words, an author's last name, or drop the dates.",
    );
  }
  // Logged after the answer is sent: the log write is not on the caller's clock.
  ctx.waitUntil(
    logQuery(ctx.env.DB, {
      surface,
      keyword: query,
      conditions,
      resultCount: result.total,
      servedFrom: result.served_from,
    }),
  );
  return result;
}

/** The query with its whitespace collapsed, refused when empty; the dates checked (NBER's series start in 1973). */
function checkedQuery(input: NberSearchInput): string {
  const query = input.query.replace(/\s+/g, " ").trim();
  if (query === "" || /[\u0000-\u001f\u007f]/.test(query)) {
    throw new PapersError("invalid_query", "The query is empty or contains control characters.", {
      recovery: "Give a title, author, number or keywords.",
    });
  }
  if (input.start_date) parseDay(input.start_date, "start_date", { minYear: 1970 });
  if (input.end_date) parseDay(input.end_date, "end_date", { minYear: 1970 });
  if (input.start_date && input.end_date && input.start_date > input.end_date) {
    throw new PapersError("invalid_date", `start_date ${input.start_date} is after end_date ${input.end_date}.`, {
      recovery: "Swap the dates; both are inclusive.",
    });
  }
  return query;
}

async function fromMirror({ ctx, input, query, base, asId, notices }: NberSearchCall): Promise<NberSearchResult> {
  if (asId.ok) {
    const paper = await mirrorPaper(ctx.env.DB, asId.id.id);
    const papers = paper && input.page === 1 ? [toPaper(paper)] : [];
    return { ...base, total: paper ? 1 : 0, served_from: "mirror", papers, notices };
  }
  const found = await searchMirror(ctx.env.DB, {
    query,
    page: input.page,
    perPage: input.per_page,
    ...(input.start_date ? { startDate: input.start_date } : {}),
    ...(input.end_date ? { endDate: input.end_date } : {}),
  });
  return { ...base, total: found.total, served_from: "mirror", papers: found.papers.map(toPaper), notices };
}

/** NBER's search API (through its cache); when it cannot be asked, the mirror, saying so. */
async function live(call: NberSearchCall): Promise<NberSearchResult> {
  const { ctx, input, query, base, asId, coverage, notices } = call;
  try {
    const found = await searchNberApi(ctx, {
      query: asId.ok ? asId.id.id : query,
      page: input.page,
      perPage: input.per_page,
      ...(input.start_date ? { startDate: input.start_date } : {}),
      ...(input.end_date ? { endDate: input.end_date } : {}),
    });
    if (found.cachedAt !== undefined) {
      return { ...base, total: found.total, ...fromCache(found.cachedAt), papers: found.papers, notices };
    }
    // What NBER told us joins the mirror (after the answer is sent).
    ctx.waitUntil(
      upsertMirror(
        ctx.env.DB,
        found.papers.map((paper) => ({ ...paper, source: "api" as const })),
      ).catch((error) => console.error("mirror upsert failed", error)),
    );
    return { ...base, total: found.total, served_from: "live", papers: found.papers, notices };
  } catch (error) {
    if (!(error instanceof PapersError) || coverage.papers === 0) throw error;
    notices.push(
      `NBER's search API could not be asked (${error.reason}); these results come from the mirror, ` +
        `which has papers up to ${coverage.newest ?? "?"}.`,
    );
    return fromMirror(call);
  }
}
