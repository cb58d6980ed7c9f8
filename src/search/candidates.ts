// The ranker's candidate stage: each source in src/search/sources/ proposes the papers it is
// built to find (a bounded number of hits scored by FTS5, or index seeks), and the ranker ORs
// their subqueries into one fetch. Candidates come from the phrases a hit must or may hold, never
// from a NOT's (its papers are the ones left out). Sources run in this order; a word the impact
// sums covered is left out of the others.
import type { CorpusStats } from "./bm25.ts";
import { type Phrase, phraseKey } from "./expression.ts";
import type { DecodedImpacts } from "./impacts.ts";
import type { RANK_TUNING } from "./rank-tuning.ts";
import type { D1Reader, RankRequest, StageMark } from "./rank-types.ts";
import { allTerms } from "./sources/all-terms.ts";
import type { CandidatePart } from "./sources/candidate-part.ts";
import { champions } from "./sources/champions.ts";
import { impactSums } from "./sources/impact-sums.ts";
import { pairs } from "./sources/pairs.ts";
import { rarePhrases } from "./sources/rare-phrases.ts";

export interface CandidateInput {
  request: RankRequest;
  tuning: typeof RANK_TUNING;
  phrases: Phrase[];
  unique: Phrase[];
  /** The phrases a hit must or may hold (not a NOT's), by key. */
  positiveKeys: Set<string>;
  impactPhrases: Map<string, Phrase>;
  impactLists: Map<string, DecodedImpacts>;
  rareHitsOf: Map<number, { k: number; s: number }[]>;
  df: Map<string, number>;
  walk: Map<string, number>;
  stats: CorpusStats;
  filtered: boolean;
  pageEnd: number;
  mark: StageMark;
}

/** Each source's subquery, named, in order (a source with nothing to propose gives none). */
export function proposeCandidates(input: CandidateInput): (CandidatePart & { source: string })[] {
  const { request, tuning, df, walk, stats, pageEnd } = input;
  const filters = request.filters;
  const byRarity = input.unique
    .filter((p) => input.positiveKeys.has(phraseKey(p)))
    .sort((a, b) => df.get(phraseKey(a))! - df.get(phraseKey(b))!);
  const started = performance.now();
  const sums = impactSums({ ...input, filters, tuning });
  if (input.impactLists.size > 0) input.mark("impacts", started);
  const { summed } = sums;
  const rare = rarePhrases({ byRarity, summed, walk, filters, tuning });
  const proposed = {
    impact_sums: sums.part,
    rare_phrases: rare.part,
    all_terms: allTerms({ byRarity, summed, df, stats, filters, tuning }),
    pairs: pairs({ byRarity, summed, df, walk, stats, filters, tuning }),
    champions: champions({
      query: request.query,
      byRarity,
      unique: input.unique,
      rare: rare.rare,
      summed,
      filters,
      pageEnd,
      tuning,
    }),
  };
  return Object.entries(proposed).flatMap(([source, part]) => (part ? [{ ...part, source }] : []));
}

/**
 * For the trace (the bench's, never an answer's): how many candidates each source that ran gave,
 * as source_<name>. One more round trip, only when a trace is asked for.
 */
export async function traceSources(
  db: D1Reader,
  parts: (CandidatePart & { source: string })[],
  trace: Record<string, number>,
): Promise<void> {
  if (parts.length === 0) return;
  const counts = await db.batch<{ n: number }>(
    parts.map((part) => db.prepare(`SELECT count(*) AS n FROM (${part.sql})`).bind(...part.binds)),
  );
  for (const [i, part] of parts.entries()) trace[`source_${part.source}`] = Number(counts[i]!.results[0]?.n ?? 0);
}
