// The arXiv export API: search and ID lookup, through the API gate, cached in D1, with identical
// in-flight requests coalesced (one upstream fetch however many callers ask at once).
import { PapersError } from "../../errors";
import { cacheGetMany, cacheWrite, type CacheHit } from "../../store/cache";
import { politeFetch, readTextCapped } from "../../upstream/fetch";
import { coalesce } from "../../upstream/coalesce";
import { ArxivApiError, parseAtomFeed, type AtomFeed } from "./atom";
import { formatId, type ArxivId } from "./ids";
import type { ArxivPaper } from "./paper";
import { fromCache, type ServedFrom } from "../served-from";
import type { AppContext } from "../../context";

const MAX_FEED_BYTES = 10_000_000;
const VERSIONED_TTL_MS = 30 * 86_400_000; // a given version never changes

export type { ServedFrom };

export function servedFrom(hit: CacheHit<unknown> | undefined, now = Date.now()): ServedFrom {
  return hit ? fromCache(hit.fetchedAt, now) : { served_from: "live" };
}

interface FetchFeedOptions {
  /** Statuses to hand back as { status } instead of failing (500 for superseded legacy versions). */
  passServerError?: boolean;
  deadline?: number;
}

type FeedOrStatus = { feed: AtomFeed } | { status: number };

/** GET <ARXIV_API_BASE_URL><path> -> parsed feed. Empty bodies get one more try. */
async function fetchFeed(ctx: AppContext, path: string, options: FetchFeedOptions = {}): Promise<FeedOrStatus> {
  for (let attempt = 1; ; attempt++) {
    const response = await politeFetch(ctx, "arxiv-api", path, {
      passStatuses: options.passServerError ? [400, 500] : [400],
      retries: options.passServerError ? 0 : 1,
      ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
    });
    if (response.status === 500) {
      await response.body?.cancel();
      return { status: 500 };
    }
    const body = await readTextCapped(response, MAX_FEED_BYTES, "arxiv-api");
    if (body.trim() === "") {
      if (attempt < 2) continue;
      throw new PapersError("upstream_unavailable", "arXiv's API answered with an empty body twice.", {
        retryable: true,
        recovery: "Retry in a minute.",
      });
    }
    try {
      return { feed: parseAtomFeed(body) };
    } catch (error) {
      // A 400 is arXiv rejecting the request, whether or not its body is a readable error entry.
      if (error instanceof ArxivApiError || response.status === 400) {
        const detail = error instanceof ArxivApiError ? error.message : `HTTP ${response.status}`;
        throw new PapersError("invalid_request", `arXiv rejected the request: ${detail}.`, {
          recovery: "Check the query syntax and IDs; this request will not succeed if repeated unchanged.",
        });
      }
      throw error;
    }
  }
}

export type SortBy = "relevance" | "submitted" | "updated";
const SORT_PARAM: Record<SortBy, string> = {
  relevance: "relevance",
  submitted: "submittedDate",
  updated: "lastUpdatedDate",
};

export interface SearchRequest {
  searchQuery: string;
  start: number;
  maxResults: number;
  sortBy: SortBy;
  sortOrder: "ascending" | "descending";
}

export async function searchArxiv(
  ctx: AppContext,
  request: SearchRequest,
): Promise<{ feed: AtomFeed; source: ServedFrom }> {
  const params = new URLSearchParams({
    search_query: request.searchQuery,
    start: String(request.start),
    max_results: String(request.maxResults),
    sortBy: SORT_PARAM[request.sortBy],
    sortOrder: request.sortOrder,
  });
  const path = `/query?${params}`;
  const key = `arxiv:search:${path}`;
  const hit = (await cacheGetMany<AtomFeed>(ctx.env.DB, [key])).get(key);
  if (hit) return { feed: hit.value, source: servedFrom(hit) };
  const feed = await coalesce(key, async () => {
    const result = await fetchFeed(ctx, path);
    if (!("feed" in result)) throw new Error("unreachable: search does not pass 500 through");
    const ttlMs = ctx.config.ARXIV_CACHE_TTL_SECONDS * 1000;
    await cacheWrite(ctx, [{ key, value: result.feed, ttlMs }]);
    return result.feed;
  });
  return { feed, source: { served_from: "live" } };
}

export type LookupOutcome =
  | { kind: "found"; paper: ArxivPaper; source: ServedFrom }
  | { kind: "not_in_arxiv" }
  | { kind: "version_not_served"; latest: ArxivPaper }
  | { kind: "live_lookup_failed"; error: PapersError };

const paperKey = (id: ArxivId) => `arxiv:paper:${formatId(id)}`;

function pick(papers: ArxivPaper[], id: ArxivId): ArxivPaper | undefined {
  return papers.find(
    (paper) => paper.base_id === id.base && (id.version === undefined || paper.version === id.version),
  );
}

/**
 * Looks up to 10 IDs (distinct, canonical). Cached answers first; the rest in one id_list request.
 * A pre-2007 versioned ID that arXiv answers with HTTP 500 (a superseded version it will not
 * serve) is looked up without its version, to name the latest one.
 */
export async function lookupArxivIds(
  ctx: AppContext,
  ids: readonly ArxivId[],
  deadline?: number,
): Promise<Map<string, LookupOutcome>> {
  const outcomes = new Map<string, LookupOutcome>();
  const cached = await cacheGetMany<ArxivPaper>(ctx.env.DB, ids.map(paperKey));
  const missing: ArxivId[] = [];
  for (const id of ids) {
    const hit = cached.get(paperKey(id));
    if (hit) outcomes.set(formatId(id), { kind: "found", paper: hit.value, source: servedFrom(hit) });
    else missing.push(id);
  }
  if (missing.length === 0) return outcomes;

  try {
    const legacyVersioned = missing.filter((id) => id.style === "legacy" && id.version !== undefined);
    let result = await fetchIdList(ctx, missing, legacyVersioned.length > 0, deadline);
    let unserved: ArxivId[] = [];
    if ("status" in result) {
      // Ask again with the legacy versions replaced by their base IDs.
      unserved = legacyVersioned;
      const retry = [
        ...missing.filter((id) => !legacyVersioned.includes(id)),
        ...legacyVersioned.map((id) => ({ ...id, version: undefined })),
      ];
      result = await fetchIdList(ctx, dedupe(retry), false, deadline);
      if ("status" in result) throw new Error("unreachable: second lookup does not pass 500 through");
    }
    const papers = result.feed.papers;
    const ttl = ctx.config.ARXIV_CACHE_TTL_SECONDS * 1000;
    const toCache: { key: string; value: unknown; ttlMs: number }[] = [];
    for (const id of missing) {
      if (unserved.includes(id)) {
        const latest = pick(papers, { ...id, version: undefined });
        const requested = id.version ?? 0;
        if (latest && requested < latest.version) outcomes.set(formatId(id), { kind: "version_not_served", latest });
        else if (latest && requested === latest.version) {
          const error = new PapersError("upstream_unavailable", "arXiv answered HTTP 500 for this version.", {
            retryable: true,
            recovery: "Retry later, or ask without the version.",
          });
          outcomes.set(formatId(id), { kind: "live_lookup_failed", error });
        } else outcomes.set(formatId(id), { kind: "not_in_arxiv" });
        continue;
      }
      const paper = pick(papers, id);
      if (!paper) {
        outcomes.set(formatId(id), { kind: "not_in_arxiv" });
        continue;
      }
      outcomes.set(formatId(id), { kind: "found", paper, source: { served_from: "live" } });
      toCache.push({ key: paperKey(id), value: paper, ttlMs: id.version === undefined ? ttl : VERSIONED_TTL_MS });
    }
    await cacheWrite(ctx, toCache);
  } catch (error) {
    if (!(error instanceof PapersError)) throw error;
    for (const id of missing) outcomes.set(formatId(id), { kind: "live_lookup_failed", error });
  }
  return outcomes;
}

function dedupe(ids: ArxivId[]): ArxivId[] {
  const seen = new Set<string>();
  return ids.filter((id) => {
    const key = formatId(id);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function fetchIdList(
  ctx: AppContext,
  ids: readonly ArxivId[],
  passServerError: boolean,
  deadline?: number,
): Promise<FeedOrStatus> {
  const idList = ids.map((id) => formatId(id)).join(",");
  const params = new URLSearchParams({ id_list: idList, max_results: String(ids.length) });
  const path = `/query?${params}`;
  return coalesce(`arxiv:idlist:${path}:${passServerError}`, () =>
    fetchFeed(ctx, path, { passServerError, ...(deadline === undefined ? {} : { deadline }) }),
  );
}
