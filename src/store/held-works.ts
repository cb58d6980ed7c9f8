// Citation counts without a round trip of their own. The statements that read a search page's or
// a lookup's rows also read the OpenAlex works cached for each paper (under its arXiv DOI and its
// journal DOI: api_cache's primary key, one seek each), and hand what they found, and what they
// did not, to the cache's memory layer. The count read that follows in the same request
// (sources/openalex/counts.ts) then finds every key there and does not wait for D1 again.
import { CACHE_BINDING, rememberRead, type StoredEntry } from "./cache";

/** The prefix of an OpenAlex work's cache key. */
const WORK_CACHE_PREFIX = "openalex:work:";
/** arXiv's DataCite DOIs: 10.48550/arXiv.<base ID>, lower case in the cache's keys. */
export const ARXIV_DOI_PREFIX = "10.48550/arxiv.";
/** The cache key of a DOI's OpenAlex work (sources/openalex/lookup.ts writes under it). */
export const workCacheKey = (doi: string) => `${WORK_CACHE_PREFIX}${doi.toLowerCase()}`;

/** A column for a statement over arxiv_papers p: the cached works of the row's paper, as a JSON array of entries. */
export const HELD_WORKS_COLUMN =
  "(SELECT json_group_array(json_array(c.key, c.value, c.fetched_at, c.expires_at)) FROM api_cache c " +
  `WHERE c.key IN ('${WORK_CACHE_PREFIX}${ARXIV_DOI_PREFIX}' || lower(p.id), '${WORK_CACHE_PREFIX}' || lower(p.doi))) AS held_works`;

export interface HeldWorks {
  id: string;
  doi: string | null;
  /** HELD_WORKS_COLUMN's value; absent when the statement did not read it. */
  held_works?: string | null;
}

/**
 * Remembers the works the rows' statement read. Only rows read from the cache's own database
 * (shard DB, where every cache entry is written) say anything about the cache: another shard's
 * api_cache is empty, so its rows are passed over.
 */
export function keepHeldWorks(rows: readonly HeldWorks[], binding: string): void {
  if (binding !== CACHE_BINDING) return;
  for (const row of rows) {
    if (typeof row.held_works !== "string") continue;
    const keys = [workCacheKey(`${ARXIV_DOI_PREFIX}${row.id}`)];
    if (row.doi) keys.push(workCacheKey(row.doi));
    const entries = (JSON.parse(row.held_works) as [string, string, number, number][]).map(
      ([key, value, fetchedAt, expiresAt]): StoredEntry => ({ key, value, fetchedAt, expiresAt }),
    );
    rememberRead(keys, entries);
  }
}
