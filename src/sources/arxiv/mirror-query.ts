// arXiv query AST -> what the mirror runs: one FTS5 MATCH expression plus SQL filters
// (categories through the junction table, submitted-date windows as ranges). Anything the
// mirror cannot apply the way arXiv would comes back as { live: reason } instead.
import { type QueryNode, type ResolvedSearch, resolveSearch, type SearchFilters } from "./query";
import type { MirrorSearchPlan } from "../../store/arxiv-mirror-search";
import { phrase, type ColumnIndex, type TextQuery } from "../../search/expression";
import { STOPWORDS } from "../../search/stopwords";

const COLUMNS: Record<string, ColumnIndex | null> = {
  ti: 0,
  au: 1,
  abs: 2,
  co: 3,
  jr: 4,
  all: null,
};

/** Prefixes shorter than this match too many index terms to merge (e* is tens of thousands of terms). */
export const MIN_PREFIX_LENGTH = 3;

/** What the mirror executes: the text part (FTS5 MATCH and the ranker) and the category and date filters. */
export type MirrorPlan = MirrorSearchPlan;

export type PlanResult = { plan: MirrorPlan } | { live: string };

type Conjunct = { node: QueryNode; negated: boolean };

function conjuncts(node: QueryNode, negated = false, out: Conjunct[] = []): Conjunct[] {
  if (node.kind === "op" && node.op === "AND" && !negated) {
    conjuncts(node.left, false, out);
    conjuncts(node.right, false, out);
  } else if (node.kind === "op" && node.op === "ANDNOT" && !negated) {
    conjuncts(node.left, false, out);
    out.push({ node: node.right, negated: true });
  } else {
    out.push({ node, negated });
  }
  return out;
}

function leaves(node: QueryNode): Extract<QueryNode, { kind: "term" }>[] {
  return node.kind === "term" ? [node] : [...leaves(node.left), ...leaves(node.right)];
}

function onlyOr(node: QueryNode): boolean {
  return node.kind === "term" || (node.op === "OR" && onlyOr(node.left) && onlyOr(node.right));
}

function dateRange(value: string): { from: number; to: number } {
  const match = /^\[(\d{4})(\d{2})(\d{2})(\d{2})(\d{2}) TO (\d{4})(\d{2})(\d{2})(\d{2})(\d{2})\]$/.exec(value)!;
  const at = (y: string, mo: string, d: string, h: string, mi: string) =>
    Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi)) / 1000;
  return {
    from: at(match[1]!, match[2]!, match[3]!, match[4]!, match[5]!),
    to: at(match[6]!, match[7]!, match[8]!, match[9]!, match[10]!) + 59,
  };
}

/** Token characters as FTS5's unicode61 tokenizer sees them (letters, digits, private use). */
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

class LiveOnly extends Error {}

/**
 * One term -> phrases, or null when arXiv would ignore it (a lone stopword, or no word characters
 * at all). A quoted value is one phrase (its words adjacent and in order: the index keeps
 * positions); the tokens of an unquoted value (x-ray, a/b) must all occur in the field.
 */
function ftsTerm(field: string | null, value: string): TextQuery | null {
  const quoted = value.startsWith('"') && value.endsWith('"') && value.length >= 2;
  const raw = quoted ? value.slice(1, -1) : value;
  const prefix = !quoted && raw.endsWith("*");
  let tokens = (raw.match(TOKEN) ?? []).map((token) => token.toLowerCase());
  if (!quoted) tokens = tokens.filter((token) => !STOPWORDS.has(token));
  if (tokens.length === 0) return null;
  if (prefix && tokens[tokens.length - 1]!.length < MIN_PREFIX_LENGTH) {
    throw new LiveOnly(
      `a prefix of fewer than ${MIN_PREFIX_LENGTH} letters (${value}) matches too many of the mirror's index terms to merge`,
    );
  }
  const column = field === null ? null : (COLUMNS[field] ?? null);
  if (quoted) return phrase(tokens, column);
  const parts = tokens.map((token, index) => phrase([token], column, prefix && index === tokens.length - 1));
  return parts.length === 1 ? parts[0]! : { kind: "and", children: parts };
}

/** A text-only subtree -> a text query, keeping arXiv's grouping; dropped terms drop out of their operator. */
function ftsExpression(node: QueryNode): TextQuery | null {
  if (node.kind === "term") return ftsTerm(node.field, node.value);
  const left = ftsExpression(node.left);
  const right = ftsExpression(node.right);
  if (left === null) return node.op === "ANDNOT" ? null : right;
  if (right === null) return left;
  if (node.op === "ANDNOT") return { kind: "not", left, right };
  const kind = node.op === "AND" ? "and" : "or";
  // a OR (b OR c) is one flat OR: the ranker reads its terms as one list.
  const flat = (q: TextQuery): TextQuery[] => (q.kind === kind ? q.children : [q]);
  return { kind, children: [...flat(left), ...flat(right)] };
}

const FILTER_FIELDS = new Set(["cat", "submittedDate"]);
const LIVE_ONLY_FIELDS: Record<string, string> = {
  rn: "rn: (report number) is not in the mirror's index",
  id: "id: searches are answered by arXiv's API",
  lastUpdatedDate: "lastUpdatedDate: is not in the mirror's index",
};

/** Plans a search for the mirror from its words alone (a watch, a test, the bench). Invalid input throws. */
export function planMirrorSearch(query: string, filters: SearchFilters, today = new Date()): PlanResult {
  return mirrorPlan(resolveSearch(query, filters, today));
}

/** Plans a resolved search for the mirror, or says why arXiv's API must answer it. */
export function mirrorPlan(search: ResolvedSearch): PlanResult {
  try {
    return planned(search.parsed.tree, search.filters);
  } catch (error) {
    if (error instanceof LiveOnly) return { live: error.message };
    throw error;
  }
}

function planned(tree: QueryNode, filters: ResolvedSearch["filters"]): PlanResult {
  const plan: MirrorPlan = { match: null, categoryGroups: [], excludedCategories: [], submitted: null };
  const narrow = (range: { from: number; to: number }) => {
    plan.submitted =
      plan.submitted === null
        ? range
        : { from: Math.max(plan.submitted.from, range.from), to: Math.min(plan.submitted.to, range.to) };
  };
  if (filters.category !== undefined) plan.categoryGroups.push(filters.category.covers);
  if (filters.submitted !== undefined) narrow(dateRange(filters.submitted));
  const positives: TextQuery[] = [];
  const negatives: TextQuery[] = [];
  for (const { node, negated } of conjuncts(tree)) {
    const fields = leaves(node).map((leaf) => leaf.field);
    const liveOnly = fields.find((field) => field !== null && field in LIVE_ONLY_FIELDS);
    if (liveOnly) return { live: LIVE_ONLY_FIELDS[liveOnly]! };
    const filterFields = fields.filter((field): field is string => field !== null && FILTER_FIELDS.has(field));
    if (filterFields.length === 0) {
      const expression = ftsExpression(node);
      if (expression !== null) (negated ? negatives : positives).push(expression);
      continue;
    }
    if (filterFields.length !== fields.length)
      return {
        live: "a cat: or submittedDate: term is joined to words by OR; the mirror applies them only as filters",
      };
    if (fields.every((field) => field === "cat") && onlyOr(node)) {
      const values = leaves(node).flatMap((leaf) => leaf.covers ?? []);
      if (negated) plan.excludedCategories.push(...values);
      else plan.categoryGroups.push(values);
      continue;
    }
    if (node.kind === "term" && node.field === "submittedDate" && !negated) {
      narrow(dateRange(node.value));
      continue;
    }
    return { live: "a cat: or submittedDate: combination the mirror cannot apply as a filter" };
  }
  if (positives.length === 0 && negatives.length > 0)
    return { live: "only ANDNOT terms are left once the filters are taken out" };
  if (positives.length === 0 && plan.categoryGroups.length === 0 && plan.submitted === null) {
    return {
      live: "no searchable word is left (arXiv ignores common words such as of and the outside quoted phrases)",
    };
  }
  if (positives.length > 0) {
    let match: TextQuery =
      positives.length === 1
        ? positives[0]!
        : { kind: "and", children: positives.flatMap((p) => (p.kind === "and" ? p.children : [p])) };
    for (const negative of negatives) match = { kind: "not", left: match, right: negative };
    plan.match = match;
  }
  plan.categoryGroups = plan.categoryGroups.map((group) => [...new Set(group)]);
  plan.excludedCategories = [...new Set(plan.excludedCategories)];
  if (plan.submitted !== null && plan.submitted.from > plan.submitted.to)
    plan.submitted = { from: plan.submitted.from, to: plan.submitted.from - 1 };
  return { plan };
}
