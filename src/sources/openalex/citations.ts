// papers_citations behind the tool: the works citing a paper, or those it cites, a page at a time.
// OpenAlex lists them with cursor paging (filter=cites:W… or cited_by:W…, 200 a call, one of the
// day's list calls each). Every call's works are resolved to our IDs and cached in D1 as a chunk;
// a page is cut from the chunks, so paging on through a list costs one call per 200 works and a
// page already read costs none. Chunks after the first carry the first one's fetch time: when the
// first is fetched again, the rest are too, so a page never mixes two listings.
//
// The walk ends on whichever comes first: an empty page, a short page, next_cursor null, a cursor
// repeated, or MAX_LISTED works. Past the day's allowance, stale chunks answer
// (with a notice), and nothing cached means rate_limited until midnight UTC.
import { PapersError } from "../../errors";
import { cacheGetMany, cachePut } from "../../store/cache";
import { fromCache, type ServedFrom } from "../served-from";
import { AllowanceSpent, openAlexGet } from "./client";
import { CACHE_KEEP_MS, findWork, type WorkRecord } from "./lookup";
import { resolveByDoi, resolveByTitle } from "./resolve-works";
import type { CitationTarget } from "./target";
import { type GraphWork, openAlexListSchema, readWorks, WORK_FIELDS } from "./work";
import type { AppContext } from "../../context";

export type CitationDirection = "cited_by" | "references";
export type CitationSort = "most_cited" | "newest" | "oldest";

const SORT_PARAMETER: Record<CitationSort, string> = {
  most_cited: "cited_by_count:desc",
  newest: "publication_date:desc",
  oldest: "publication_date:asc",
};
/** Works per OpenAlex call (its largest page). */
export const CHUNK_SIZE = 200;
/** Works listed at most per paper, direction and order: 50 calls. */
export const MAX_LISTED = 10_000;
/** One call's time budget for the whole walk; chunks fetched before it ran out stay cached. */
const WALK_BUDGET_MS = 25_000;

interface Chunk {
  works: GraphWork[];
  count: number;
  next_cursor: string | null;
  /** The first chunk's fetch time: a later chunk belongs to that listing. */
  anchor: number;
  fresh_until: number;
  unreadable: number;
  /** The leading works already looked for in the mirrors by title (done for a page's works when it is read). */
  titles_resolved: number;
}

export interface CitationPageRequest {
  target: CitationTarget;
  direction: CitationDirection;
  sort: CitationSort;
  start: number;
  limit: number;
}

export type CitationPage = {
  paper: {
    id: string;
    source: CitationTarget["source"];
    doi: string;
    openalex_id: string;
    title: string | null;
    cited_by_count: number;
    referenced_works_count: number | null;
    counts_by_year: WorkRecord["counts_by_year"];
  };
  direction: CitationDirection;
  sort: CitationSort;
  total: number;
  start: number;
  next_start: number | null;
  works: GraphWork[];
  notices: string[];
} & Exclude<ServedFrom, { served_from: "mirror" }>;

const chunkKey = (workId: string, direction: CitationDirection, sort: CitationSort, index: number) =>
  `openalex:list:${workId}:${direction}:${sort}:${index}`;

export async function citationPage(ctx: AppContext, request: CitationPageRequest): Promise<CitationPage> {
  if (request.start >= MAX_LISTED) {
    throw new PapersError(
      "start_beyond_result_limit",
      `start ${request.start} is past the ${MAX_LISTED.toLocaleString("en-US")} works listed.`,
      {
        recovery: "Use sort=newest or sort=oldest to reach the other end of the list instead of paging further.",
      },
    );
  }
  const deadline = Date.now() + WALK_BUDGET_MS;
  const found = await findWork(ctx, request.target, deadline);
  const work = found.work;
  const walk = await walkChunks(ctx, work.openalex_id, request, deadline);
  await resolvePageTitles(ctx, walk, request.start, request.start + request.limit);
  const listed = walk.chunks.flatMap((chunk) => chunk.works);
  const works = listed.slice(request.start, request.start + request.limit);
  const total = walk.chunks[0]?.count ?? 0;
  const end = request.start + works.length;
  // The walk reads one work past the page (lastIndex below), so a longer listing shows here.
  const more = end < MAX_LISTED && (listed.length > end || !walk.ended);
  const notices = [...walk.notices];
  const unreadable = walk.chunks.reduce((sum, chunk) => sum + chunk.unreadable, 0);
  if (unreadable > 0) notices.push(`${unreadable} works OpenAlex listed could not be read and are left out.`);
  if (total > MAX_LISTED && end >= MAX_LISTED - request.limit)
    notices.push(
      `OpenAlex counts ${total.toLocaleString("en-US")}; the first ${MAX_LISTED.toLocaleString("en-US")} in this order are listed.`,
    );
  return {
    paper: {
      id: request.target.id,
      source: request.target.source,
      doi: found.doi,
      openalex_id: work.openalex_id,
      title: work.title,
      cited_by_count: work.cited_by_count,
      referenced_works_count: work.referenced_works_count,
      counts_by_year: work.counts_by_year,
    },
    direction: request.direction,
    sort: request.sort,
    total,
    start: request.start,
    next_start: more ? end : null,
    works,
    notices,
    ...(walk.fetchedAt === undefined ? { served_from: "live" as const } : fromCache(walk.fetchedAt)),
  };
}

interface Walk {
  chunks: Chunk[];
  /** Each chunk's cache key and when it was fetched (its row is rewritten with that time). */
  stored: { key: string; fetchedAt: number }[];
  /** The listing ended before the page did (or exactly at it). */
  ended: boolean;
  /** Set when every chunk came from the cache: the oldest one's fetch time. */
  fetchedAt: number | undefined;
  notices: string[];
}

async function walkChunks(
  ctx: AppContext,
  workId: string,
  request: CitationPageRequest,
  deadline: number,
): Promise<Walk> {
  const lastIndex = Math.floor(Math.min(request.start + request.limit, MAX_LISTED) / CHUNK_SIZE);
  const keys = Array.from({ length: lastIndex + 1 }, (_, index) =>
    chunkKey(workId, request.direction, request.sort, index),
  );
  const cached = await cacheGetMany<Chunk>(ctx.env.DB, keys);
  const chunks: Chunk[] = [];
  const stored: Walk["stored"] = [];
  const notices: string[] = [];
  let allCached = true;
  let oldest = Number.POSITIVE_INFINITY;
  let cursor: string | null = "*";
  let listed = 0;
  let spent = false;
  for (let index = 0; index <= lastIndex; index++) {
    const hit = cached.get(keys[index]!);
    const usable = hit && (index === 0 || hit.value.anchor === chunks[0]!.anchor) ? hit : undefined;
    let chunk: Chunk;
    let fetchedAt = usable?.fetchedAt ?? Date.now();
    if (usable && (usable.value.fresh_until > Date.now() || spent)) {
      chunk = usable.value;
      oldest = Math.min(oldest, usable.fetchedAt);
    } else {
      try {
        chunk = await fetchChunk(ctx, workId, request, cursor!, index === 0 ? Date.now() : chunks[0]!.anchor, deadline);
        fetchedAt = Date.now();
        await cachePut(ctx.env.DB, [{ key: keys[index]!, value: chunk, ttlMs: CACHE_KEEP_MS }], fetchedAt);
        allCached = false;
      } catch (error) {
        if (!usable || !(error instanceof PapersError) || !error.retryable) throw error;
        spent ||= error instanceof AllowanceSpent;
        chunk = usable.value;
        oldest = Math.min(oldest, usable.fetchedAt);
        if (notices.length === 0)
          notices.push(
            error instanceof AllowanceSpent
              ? "This server's OpenAlex allowance for today is spent: this page is from the cache (its age is given)."
              : `OpenAlex could not be asked (${error.reason}): this page is from the cache (its age is given).`,
          );
      }
    }
    chunks.push(chunk);
    stored.push({ key: keys[index]!, fetchedAt });
    listed += chunk.works.length;
    const repeated = chunk.next_cursor !== null && chunk.next_cursor === cursor;
    cursor = chunk.next_cursor;
    // A short page is the last one (cursor pages are full until the end); meta.count is not trusted
    // to end a listing: OpenAlex's counts and its listings drift apart.
    const short = chunk.works.length + chunk.unreadable < CHUNK_SIZE;
    if (chunk.works.length === 0 || cursor === null || repeated || short || listed >= MAX_LISTED)
      return { chunks, stored, ended: true, fetchedAt: allCached ? oldest : undefined, notices };
  }
  return { chunks, stored, ended: false, fetchedAt: allCached ? oldest : undefined, notices };
}

async function fetchChunk(
  ctx: AppContext,
  workId: string,
  request: CitationPageRequest,
  cursor: string,
  anchor: number,
  deadline: number,
): Promise<Chunk> {
  if (Date.now() >= deadline)
    throw new PapersError("timeout", "Listing this far into the works took longer than one call may.", {
      retryable: true,
      recovery: "Retry: the pages listed so far are cached, so the next try goes further.",
    });
  const filter = `${request.direction === "cited_by" ? "cites" : "cited_by"}:${workId}`;
  const path =
    `/works?filter=${filter}&sort=${SORT_PARAMETER[request.sort]}&per_page=${CHUNK_SIZE}` +
    `&cursor=${encodeURIComponent(cursor)}&select=${WORK_FIELDS.join(",")}`;
  const body = await openAlexGet(ctx, path, "list", deadline);
  const parsed = openAlexListSchema.safeParse(body);
  if (!parsed.success)
    throw new PapersError("upstream_malformed", "OpenAlex answered a list without meta.count and results.", {
      retryable: true,
      recovery: "Retry later.",
    });
  const { works, unreadable } = readWorks(parsed.data.results.slice(0, CHUNK_SIZE));
  return {
    works: await resolveByDoi(ctx, works),
    count: parsed.data.meta.count,
    next_cursor: parsed.data.meta.next_cursor ?? null,
    anchor,
    fresh_until: Date.now() + ctx.config.OPENALEX_LIST_TTL_SECONDS * 1000,
    unreadable,
    titles_resolved: 0,
  };
}

/**
 * The page's works not yet looked for by title are (a page's worth of resolver calls, not a whole
 * chunk's), and their chunks are stored again with their fetch time kept.
 */
async function resolvePageTitles(ctx: AppContext, walk: Walk, start: number, end: number): Promise<void> {
  for (const [index, chunk] of walk.chunks.entries()) {
    const first = index * CHUNK_SIZE;
    const needed = Math.min(chunk.works.length, Math.max(0, end - first));
    if (start >= first + chunk.works.length || needed <= chunk.titles_resolved) continue;
    const resolved = await resolveByTitle(ctx, chunk.works.slice(chunk.titles_resolved, needed));
    chunk.works.splice(chunk.titles_resolved, resolved.length, ...resolved);
    chunk.titles_resolved = needed;
    const { key, fetchedAt } = walk.stored[index]!;
    await cachePut(ctx.env.DB, [{ key, value: chunk, ttlMs: CACHE_KEEP_MS }], fetchedAt);
  }
}
