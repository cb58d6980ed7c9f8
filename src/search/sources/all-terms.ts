// Source (c): papers holding the rarest phrases together (a pasted title's paper holds them all):
// one intersection of the shortest doclists, as few phrases as bring the expected hits
// (df x df x ... / N^(n-1)) down to a handful: the longer doclists of the rest would add cost,
// not candidates. Only when few papers are expected to hold them (scoring the hits of a common
// AND costs what an exhaustive ranking does), and not when the impact sums cover every word: the
// papers holding the rarest ones are among the best sums (measured on the bench's pasted titles:
// the same 239 of 240 first, at half the time: the intersection reads the words' whole doclists).
import type { CorpusStats } from "../bm25.ts";
import { type Phrase, phraseKey, toMatch } from "../expression.ts";
import type { KeyFilters } from "../filters.ts";
import { type CandidatePart, ftsPart } from "./candidate-part.ts";

export const ALL_TERMS_TUNING = {
  /** At most this many of the rarest phrases are intersected (the papers holding them all are candidates). */
  allTermsMax: 24,
  /** ... and no more of them than bring the intersection's expected hits under this, but at least
   * allTermsMin (words of one field co-occur: "chern" and "simons" together are as rare as either). */
  allTermsExpected: 5,
  allTermsMin: 4,
  allTermsCandidates: 20,
  /** The rarest phrases are intersected only when the papers expected to hold them all stay under this. */
  allTermsBudget: 6_000,
};

export function allTerms(input: {
  byRarity: Phrase[];
  summed: Set<string>;
  df: Map<string, number>;
  stats: CorpusStats;
  filters: KeyFilters;
  tuning: typeof ALL_TERMS_TUNING;
}): CandidatePart | null {
  const { byRarity, df, stats, tuning } = input;
  const together: Phrase[] = [];
  let togetherExpected = stats.rows;
  for (const p of byRarity.slice(0, tuning.allTermsMax)) {
    if (together.length >= tuning.allTermsMin && togetherExpected <= tuning.allTermsExpected) break;
    together.push(p);
    togetherExpected = (togetherExpected * df.get(phraseKey(p))!) / stats.rows;
  }
  const everySummed = byRarity.every((p) => input.summed.has(phraseKey(p)));
  if (together.length <= 1 || togetherExpected > tuning.allTermsBudget || everySummed) return null;
  return ftsPart(input.filters, toMatch({ kind: "and", children: together }), tuning.allTermsCandidates);
}
