// A paper's OpenAlex work, found by DOI with a single-work lookup (free with a key) and cached in
// D1: its ID, citation count and counts by year. A DOI OpenAlex does not know is cached too, for
// less time (new papers appear within days). An arXiv paper OpenAlex lacks under its arXiv DOI is
// tried under the journal DOI the mirror holds for it.
import { arxivReaders } from "../../store/arxiv-shards";
import { PapersError } from "../../errors";
import { mirrorLookup } from "../../store/arxiv-mirror-lookup";
import { cacheGetMany, cacheWrite, type CacheHit } from "../../store/cache";
import { workCacheKey } from "../../store/held-works";

export { workCacheKey };
import { openAlexGet } from "./client";
import type { CitationTarget } from "./target";
import { bareDoi, openAlexWorkSchema, summarizeWork, WORK_LOOKUP_FIELDS } from "./work";
import type { AppContext } from "../../context";

export interface WorkRecord {
  openalex_id: string;
  title: string | null;
  doi: string | null;
  cited_by_count: number;
  referenced_works_count: number | null;
  /** The last five years with citations, newest first. */
  counts_by_year: { year: number; cited_by_count: number }[];
}

/** What the cache holds for a DOI: the work, or that OpenAlex had none; fresh until fresh_until. */
export interface CachedLookup {
  work: WorkRecord | null;
  fresh_until: number;
}

export interface FoundWork {
  work: WorkRecord;
  /** When OpenAlex was asked (epoch ms), and whether this answer came from the cache. */
  fetchedAt: number;
  fromCache: boolean;
  /** The DOI it was found under (the journal DOI when the arXiv DOI was unknown). */
  doi: string;
}

/** Cached rows are kept this long past freshness: a stale answer still serves when OpenAlex cannot be asked. */
export const CACHE_KEEP_MS = 30 * 86_400_000;
/** A DOI OpenAlex does not know is asked again after this long at most. */
const NOT_FOUND_FRESH_MS = 6 * 3_600_000;

/** Cached lookups for many DOIs in one read (search pages: never a request per result). */
export async function cachedWorks(
  db: D1Database,
  dois: readonly string[],
  options: { primary?: boolean } = {},
): Promise<Map<string, CacheHit<CachedLookup>>> {
  const hits = await cacheGetMany<CachedLookup>(db, dois.map(workCacheKey), Date.now(), options);
  return new Map(
    dois.flatMap((doi) => {
      const hit = hits.get(workCacheKey(doi));
      return hit ? [[doi.toLowerCase(), hit] as const] : [];
    }),
  );
}

/**
 * The work for a DOI: the fresh cache, else OpenAlex (stale cache when OpenAlex fails); null: none.
 * A caller that has read the cache for the DOI already passes what it found (undefined: nothing).
 */
export async function lookupDoi(
  ctx: AppContext,
  doi: string,
  deadline?: number,
  known?: { cached: CacheHit<CachedLookup> | undefined },
): Promise<FoundWork | null> {
  // Whether OpenAlex is asked turns on this read: an absence a replica may have reported is read again.
  const cached = known ? known.cached : (await cachedWorks(ctx.env.DB, [doi], { primary: true })).get(doi);
  const now = Date.now();
  if (cached && cached.value.fresh_until > now) return found(cached.value.work, cached.fetchedAt, true, doi);
  let body: unknown;
  try {
    body = await openAlexGet(
      ctx,
      `/works/https://doi.org/${encodeURIComponent(doi)}?select=${WORK_LOOKUP_FIELDS.join(",")}`,
      "lookup",
      deadline,
    );
  } catch (error) {
    if (cached && error instanceof PapersError && error.retryable)
      return found(cached.value.work, cached.fetchedAt, true, doi);
    throw error;
  }
  const work = body === null ? null : readWorkRecord(body);
  const freshMs = work
    ? ctx.config.OPENALEX_COUNTS_TTL_SECONDS * 1000
    : Math.min(NOT_FOUND_FRESH_MS, ctx.config.OPENALEX_COUNTS_TTL_SECONDS * 1000);
  const value: CachedLookup = { work, fresh_until: now + freshMs };
  await cacheWrite(ctx, [{ key: workCacheKey(doi), value, ttlMs: CACHE_KEEP_MS }], now);
  return found(work, now, false, doi);
}

function found(work: WorkRecord | null, fetchedAt: number, fromCache: boolean, doi: string): FoundWork | null {
  return work ? { work, fetchedAt, fromCache, doi } : null;
}

function readWorkRecord(body: unknown): WorkRecord {
  const parsed = openAlexWorkSchema.safeParse(body);
  if (!parsed.success)
    throw new PapersError("upstream_malformed", "OpenAlex answered a work without an OpenAlex ID.", {
      retryable: true,
      recovery: "Retry later.",
    });
  const work = parsed.data;
  const { openalex_id, title, doi, cited_by_count } = summarizeWork(work);
  return {
    openalex_id,
    title,
    doi,
    cited_by_count,
    referenced_works_count: work.referenced_works_count ?? null,
    counts_by_year: (work.counts_by_year ?? [])
      .filter((entry) => entry.cited_by_count > 0)
      .sort((a, b) => b.year - a.year)
      .slice(0, 5)
      .map((entry) => ({ year: entry.year, cited_by_count: entry.cited_by_count })),
  };
}

/**
 * The paper's OpenAlex work. An arXiv paper is looked for under its arXiv DOI, then under the
 * journal DOI the mirror holds for it. Fails not_in_openalex when neither is known.
 */
export async function findWork(ctx: AppContext, target: CitationTarget, deadline?: number): Promise<FoundWork> {
  const direct = await lookupDoi(ctx, target.doi, deadline);
  if (direct) return direct;
  if (target.source === "arxiv") {
    const row = (await mirrorLookup(arxivReaders(ctx, "primary"), [target.id])).get(target.id);
    const journal = row?.doi ? bareDoi(row.doi) : null;
    if (journal && journal !== target.doi) {
      const published = await lookupDoi(ctx, journal, deadline);
      if (published) return published;
    }
  }
  throw new PapersError("not_in_openalex", `OpenAlex has no work for ${target.id} (DOI ${target.doi}) yet.`, {
    retryable: true,
    recovery:
      "OpenAlex adds new papers within days: try again later. The paper's metadata and text are available meanwhile.",
  });
}
