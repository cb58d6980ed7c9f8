// Source (e): each common word not summed brings its champions, the papers where that word alone
// scores highest (arxiv_rank_champions keeps 100 a word and column): one or two common words must
// fill the page from their lists, and a filter, a NOT or an AND thins every list, so then all 100
// are taken.
import { type Phrase, phraseKey, type TextQuery } from "../expression.ts";
import type { KeyFilters } from "../filters.ts";
import type { CandidatePart } from "./candidate-part.ts";

export const CHAMPIONS_TUNING = {
  /** Best papers taken from each common term's champion list (more when few terms share the page, all 100 with a filter). */
  championCandidates: 8,
};

/** Papers in each champion list (ranking/tables.ts keeps this many). */
export const CHAMPIONS_KEPT = 100;

/** At most this many common terms bring champion lists (the commonest add least to any score). */
const MAX_CHAMPION_TERMS = 16;

/** Columns with champion lists (-1: any column, then title, authors, abstract, comment, journal reference). */
export const CHAMPION_COLUMNS = [-1, 0, 1, 2, 3, 4] as const;

export function champions(input: {
  query: TextQuery;
  byRarity: Phrase[];
  /** Every distinct phrase of the query, NOT's included. */
  unique: Phrase[];
  rare: Phrase[];
  summed: Set<string>;
  filters: KeyFilters;
  /** Where the page asked for ends. */
  pageEnd: number;
  tuning: typeof CHAMPIONS_TUNING;
}): CandidatePart | null {
  const { byRarity } = input;
  const common = byRarity
    .filter(
      (p) =>
        !input.rare.includes(p) &&
        !input.summed.has(phraseKey(p)) &&
        p.stems.length === 1 &&
        !p.prefix &&
        !p.stems[0]!.includes(" ") &&
        (p.column === null || p.column <= 4),
    )
    .slice(0, MAX_CHAMPION_TERMS);
  // All the lists in one subquery (D1 allows few terms in a compound SELECT): the best of each.
  const thinned =
    input.filters("champion.paper_key").clauses.length > 0 ||
    byRarity.length < input.unique.length ||
    requiresAnd(input.query);
  const perList = thinned
    ? CHAMPIONS_KEPT
    : Math.min(
        CHAMPIONS_KEPT,
        Math.max(input.tuning.championCandidates, Math.ceil((2 * input.pageEnd) / Math.max(1, common.length))),
      );
  if (common.length === 0) return null;
  // (The filters' own subqueries alias arxiv_paper_categories as c: this alias must differ.)
  const { clauses, binds } = input.filters("champion.paper_key");
  return {
    sql: `SELECT k FROM (SELECT champion.paper_key AS k, row_number() OVER (PARTITION BY champion.term,
      champion.col ORDER BY champion.weight DESC) AS n
         FROM json_each(?) t JOIN arxiv_rank_champions champion ON champion.term = t.value ->> 0 AND
           champion.col = t.value ->> 1${clauses.map((x) => ` AND ${x}`).join("")})
       WHERE n <= ${perList}`,
    binds: [JSON.stringify(common.map((p) => [p.stems[0], p.column ?? -1])), ...binds],
  };
}

/** Whether every hit must hold an AND of phrases (which thins each word's champions); a hyphenated word inside an OR does not. */
function requiresAnd(query: TextQuery): boolean {
  if (query.kind === "phrase") return false;
  if (query.kind === "and") return true;
  if (query.kind === "not") return requiresAnd(query.left);
  return query.children.every(requiresAnd);
}
