// Source (a): the best partial sums over the query's words' impact lists (src/search/impacts.ts),
// with the words too rare for a list read whole: papers holding several of the query's words,
// where a many-word query's best are. The words summed need no other source: their lists hold
// their champions, and their pairs' papers are among the best sums. (With every word summed, the
// bench's pasted titles kept the same 239 of 240 first at half the time: see all-terms.ts.)
import { type CorpusStats, idf } from "../bm25.ts";
import { type Phrase, phraseKey } from "../expression.ts";
import type { KeyFilters } from "../filters.ts";
import { bestSums, type DecodedImpacts, type KeyedScores, scaledImpacts } from "../impacts.ts";
import type { CandidatePart } from "./candidate-part.ts";

export const IMPACT_SUMS_TUNING = {
  /** Papers with the best partial sums over the query's impact lists taken as candidates. */
  impactCandidates: 300,
  /** At most this many impact lists are read, the rarest words' (a 1,000-character OR names a hundred words). */
  impactLists: 32,
  /** Hits of a word too rare for an impact list, read with their weights into the partial sums. */
  rareWordHits: 2_000,
};

export interface ImpactSumsInput {
  /** The query's phrases as written (a repeated word counts as often as it is written). */
  phrases: Phrase[];
  /** The words summed, by key, in the order the statistics batch asked for them. */
  impactPhrases: Map<string, Phrase>;
  impactLists: Map<string, DecodedImpacts>;
  /** Each rare word's hits, by its place in impactPhrases. */
  rareHitsOf: Map<number, { k: number; s: number }[]>;
  df: Map<string, number>;
  stats: CorpusStats;
  filters: KeyFilters;
  filtered: boolean;
  tuning: typeof IMPACT_SUMS_TUNING;
}

/** The source's subquery (none without lists) and the words it summed, which the other sources skip. */
export function impactSums(input: ImpactSumsInput): { part?: CandidatePart; summed: Set<string> } {
  const { impactLists, impactPhrases, rareHitsOf, df, stats, tuning } = input;
  const summed = new Set<string>();
  if (impactLists.size === 0) return { summed };
  // Words without a list read whole (too rare for one); a word whose list was not read (past
  // the rarest lists), or that has grown past the hits read since the lists were built, is
  // left to the sources below.
  const place = new Map([...impactPhrases.keys()].map((key, i) => [key, i]));
  const rareWords = [...impactPhrases.values()]
    .filter((p) => {
      const n = df.get(phraseKey(p)) ?? 0;
      const read = rareHitsOf.get(place.get(phraseKey(p))!)?.length ?? 0;
      return !impactLists.has(phraseKey(p)) && n > 0 && n <= tuning.rareWordHits && read === n;
    })
    .sort((a, b) => df.get(phraseKey(a))! - df.get(phraseKey(b))!)
    .slice(0, tuning.impactLists);
  for (const key of impactLists.keys()) summed.add(key);
  for (const p of rareWords) summed.add(phraseKey(p));
  const rareHits = rareWords.map((p) => rareHitsOf.get(place.get(phraseKey(p))!)!);
  // A word the query repeats counts as often as it is written (bm25 scores each phrase).
  const times = (p: Phrase) => input.phrases.filter((q) => phraseKey(q) === phraseKey(p)).length;
  const lists: KeyedScores[] = [...impactLists].map(([key, list]) => {
    const p = impactPhrases.get(key)!;
    return scaledImpacts(list, idf(stats, df.get(phraseKey(p))!) * times(p));
  });
  rareHits.forEach((hits, i) => {
    const repeat = times(rareWords[i]!);
    lists.push({
      keys: Float64Array.from(hits, (hit) => hit.k),
      scores: Float64Array.from(hits, (hit) => hit.s * repeat),
    });
  });
  // A category or date filter keeps a share of them: more are proposed.
  const best = bestSums(lists, tuning.impactCandidates * (input.filtered ? 4 : 1));
  const { clauses, binds } = input.filters("impact.value");
  return {
    part: {
      sql: `SELECT impact.value FROM json_each(?) impact${clauses.length > 0 ? ` WHERE ${clauses.join(" AND ")}` : ""}`,
      binds: [JSON.stringify(best), ...binds],
    },
    summed,
  };
}
