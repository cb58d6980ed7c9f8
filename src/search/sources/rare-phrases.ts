// Source (b): the rarest phrases not summed, as many as fit a budget of hits, ranked by FTS5 on
// their own part of the score (a phrase of several words, a word too new for the ranking tables).
import { type Phrase, phraseKey, toMatch } from "../expression.ts";
import type { KeyFilters } from "../filters.ts";
import { type CandidatePart, ftsPart } from "./candidate-part.ts";

export const RARE_PHRASES_TUNING = {
  /** The rarest phrases whose hits together stay under this many are candidate sources ranked by FTS5 (about 4 ms at most). */
  rareBudget: 4_000,
  /** Best hits of the rare phrases taken as candidates. */
  rareCandidates: 60,
};

export function rarePhrases(input: {
  byRarity: Phrase[];
  summed: Set<string>;
  /** What FTS5 reads to find each phrase's hits. */
  walk: Map<string, number>;
  filters: KeyFilters;
  tuning: typeof RARE_PHRASES_TUNING;
}): { part?: CandidatePart; rare: Phrase[] } {
  const { tuning } = input;
  const rare: Phrase[] = [];
  let budget = 0;
  for (const p of input.byRarity.filter((q) => !input.summed.has(phraseKey(q)))) {
    const n = input.walk.get(phraseKey(p))!;
    if (budget + n > tuning.rareBudget) continue;
    budget += n;
    rare.push(p);
  }
  if (rare.length === 0) return { rare };
  const match = toMatch(rare.length === 1 ? rare[0]! : { kind: "or", children: rare });
  return { part: ftsPart(input.filters, match, tuning.rareCandidates), rare };
}
