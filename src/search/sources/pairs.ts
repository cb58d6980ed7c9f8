// Source (d): papers holding two of the rarer phrases not summed (where a many-word query's best
// papers are: they hold several of its words), the pairs expected to be smallest first, up to a
// budget. Written as a AND (b OR c ...) per rarer phrase: the same papers as the pairs' OR, with
// each doclist read once per group it is in rather than once per pair (FTS5 does not share them).
import type { CorpusStats } from "../bm25.ts";
import { type Phrase, phraseKey, toMatch } from "../expression.ts";
import type { KeyFilters } from "../filters.ts";
import { type CandidatePart, ftsPart } from "./candidate-part.ts";

export const PAIRS_TUNING = {
  /** The rarest phrases whose pairs are candidate sources. */
  pairTerms: 7,
  /** Only phrases whose doclists hold at most this many papers are paired (reading them costs). */
  pairWalk: 50_000,
  /** Pairs are taken while their expected hits (df x df / N, summed) stay under this. */
  pairBudget: 6_000,
  /** Best hits of the pairs taken as candidates. */
  pairCandidates: 120,
};

export function pairs(input: {
  byRarity: Phrase[];
  summed: Set<string>;
  df: Map<string, number>;
  walk: Map<string, number>;
  stats: CorpusStats;
  filters: KeyFilters;
  tuning: typeof PAIRS_TUNING;
}): CandidatePart | null {
  const { df, stats, tuning } = input;
  const head = input.byRarity
    .filter((p) => !input.summed.has(phraseKey(p)) && input.walk.get(phraseKey(p))! <= tuning.pairWalk)
    .slice(0, tuning.pairTerms);
  const expected: { a: Phrase; b: Phrase; size: number }[] = [];
  for (let i = 0; i < head.length; i++)
    for (let j = i + 1; j < head.length; j++) {
      expected.push({
        a: head[i]!,
        b: head[j]!,
        size: (df.get(phraseKey(head[i]!))! * df.get(phraseKey(head[j]!))!) / stats.rows,
      });
    }
  expected.sort((x, y) => x.size - y.size);
  const taken: { a: Phrase; b: Phrase }[] = [];
  let budget = 0;
  for (const pair of expected) {
    if (budget + pair.size > tuning.pairBudget) break;
    budget += pair.size;
    taken.push(pair);
  }
  if (taken.length === 0) return null;
  const partners = new Map<Phrase, Phrase[]>();
  for (const { a, b } of taken) partners.set(a, [...(partners.get(a) ?? []), b]);
  const groups = [...partners].map(
    ([a, bs]) => `(${toMatch(a)} AND ${toMatch(bs.length === 1 ? bs[0]! : { kind: "or", children: bs })})`,
  );
  return ftsPart(input.filters, groups.join(" OR "), tuning.pairCandidates);
}
