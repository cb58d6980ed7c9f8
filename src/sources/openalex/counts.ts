// Citation counts beside a paper's metadata: from the cache always (for the mirror's papers the
// cache entries came with their rows, store/held-works.ts, so this read waits for nothing; else one
// D1 read for a whole page, never a request per search result), and for a lookup of a few papers from OpenAlex too, where a
// single-work lookup is free, within a short time budget. A count is an extra: when OpenAlex is
// not configured, slow or down, the paper is answered without one, never with an error.
import { z } from "zod";
import type { CacheHit } from "../../store/cache";
import { type CachedLookup, cachedWorks, lookupDoi } from "./lookup";
import type { AppContext } from "../../context";

export const citationCountFields = {
  cited_by_count: z.number().optional().describe("OpenAlex's count, as of cited_by_count_as_of"),
  cited_by_count_as_of: z.string().optional(),
};

export interface CitationCount {
  cited_by_count: number;
  /** The day OpenAlex was asked (YYYY-MM-DD). */
  cited_by_count_as_of: string;
}

/** One paper: its key in the answer and the DOIs OpenAlex may know it by, in order of preference. */
export interface CountRequest {
  key: string;
  dois: readonly (string | null | undefined)[];
}

/** How long live lookups may add to a metadata answer. */
const LIVE_BUDGET_MS = 2_000;

const asOf = (fetchedAt: number) => new Date(fetchedAt).toISOString().slice(0, 10);

/** Counts for the papers the cache knows, and for the first `live` others from OpenAlex. */
export async function citationCounts(
  ctx: AppContext,
  requests: readonly CountRequest[],
  { live }: { live: number },
): Promise<Map<string, CitationCount>> {
  const out = new Map<string, CitationCount>();
  if (!ctx.config.OPENALEX_API_KEY || requests.length === 0) return out;
  const wanted = requests.map((request) => ({
    key: request.key,
    dois: [...new Set(request.dois.filter((doi): doi is string => Boolean(doi)).map((doi) => doi.toLowerCase()))],
  }));
  const cached: Map<string, CacheHit<CachedLookup>> = await cachedWorks(
    ctx.env.DB,
    wanted.flatMap((request) => request.dois),
  ).catch(() => new Map());
  const unknown: typeof wanted = [];
  // What the cache said of each DOI, so that a live lookup does not read it again.
  for (const request of wanted) {
    const hits = request.dois.map((doi) => cached.get(doi));
    const found = hits.find((hit) => hit?.value.work);
    if (found?.value.work)
      out.set(request.key, {
        cited_by_count: found.value.work.cited_by_count,
        cited_by_count_as_of: asOf(found.fetchedAt),
      });
    // A DOI OpenAlex said it lacks, recently, is not asked again.
    else if (!hits.some((hit) => hit && hit.value.fresh_until > Date.now())) unknown.push(request);
  }
  const deadline = Date.now() + LIVE_BUDGET_MS;
  const asked = unknown.slice(0, live);
  // OpenAlex is asked for these: their absence, perhaps a replica's, is read again from the database.
  const again =
    asked.length > 0
      ? await cachedWorks(
          ctx.env.DB,
          asked.flatMap((request) => request.dois),
          { primary: true },
        ).catch(() => new Map<string, CacheHit<CachedLookup>>())
      : new Map<string, CacheHit<CachedLookup>>();
  await Promise.all(
    asked.map(async (request) => {
      for (const doi of request.dois) {
        const known = again.get(doi) ?? cached.get(doi);
        const found = await lookupDoi(ctx, doi, deadline, { cached: known }).catch(() => null);
        if (found) {
          out.set(request.key, {
            cited_by_count: found.work.cited_by_count,
            cited_by_count_as_of: asOf(found.fetchedAt),
          });
          return;
        }
      }
    }),
  );
  return out;
}

/** The records with their counts added where one is known (see citationCounts). */
export async function withCitationCounts<T extends object>(
  ctx: AppContext,
  records: readonly T[],
  doisOf: (record: T) => readonly (string | null | undefined)[],
  { live }: { live: number },
): Promise<(T & Partial<CitationCount>)[]> {
  const counts = await citationCounts(
    ctx,
    records.map((record, index) => ({ key: String(index), dois: doisOf(record) })),
    { live },
  );
  return records.map((record, index) => ({ ...record, ...counts.get(String(index)) }));
}
