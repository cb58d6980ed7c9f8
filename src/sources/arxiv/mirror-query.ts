// arXiv query AST -> what the mirror runs: one FTS5 MATCH expression plus SQL filters
// (categories through the junction table, submitted-date windows as ranges). Anything the
// mirror cannot apply the way arXiv would comes back as { live: reason } instead.
import { resolveCategoryFilter } from "./categories";
import { invalidCategory, parseQuery, submittedRange, type QueryNode, type SearchFilters } from "./query";

/** Words arXiv's index drops outside quoted phrases (so a search for them alone finds nothing). */
const STOPWORDS = new Set([
  "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on",
  "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
]);

const COLUMNS: Record<string, string | null> = {
  ti: "title",
  au: "authors",
  abs: "abstract",
  co: "comment",
  jr: "journal_ref",
  all: null,
};

export interface MirrorPlan {
  /** FTS5 MATCH expression; null when only filters remain. */
  match: string | null;
  /** Each inner list is one OR-group of junction values (cs.LG, cs.*); all groups must hold. */
  categoryGroups: string[][];
  /** Junction values a paper must not have. */
  excludedCategories: string[];
  /** Inclusive submitted-date window, Unix seconds (intersection of every date filter). */
  submitted: { from: number; to: number } | null;
}

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

/** cat: values as checkFieldValue leaves them -> junction values. */
function junctionValues(value: string): string[] {
  if (value.endsWith(".*")) return [value];
  if (value.endsWith("*")) {
    const code = value.slice(0, -1);
    return [code, `${code}.*`];
  }
  return [value];
}

/** The category parameter: a code, or an archive (all of its categories). */
function categoryParameter(category: string): string[] {
  const filter = resolveCategoryFilter(category);
  if (!filter) throw invalidCategory(category);
  return filter.kind === "category" ? [filter.code] : [`${filter.archive}.*`];
}

function dateRange(value: string): { from: number; to: number } {
  const match = /^\[(\d{4})(\d{2})(\d{2})(\d{2})(\d{2}) TO (\d{4})(\d{2})(\d{2})(\d{2})(\d{2})\]$/.exec(value)!;
  const at = (y: string, mo: string, d: string, h: string, mi: string) => Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi)) / 1000;
  return { from: at(match[1]!, match[2]!, match[3]!, match[4]!, match[5]!), to: at(match[6]!, match[7]!, match[8]!, match[9]!, match[10]!) + 59 };
}

/** Token characters as FTS5's unicode61 tokenizer sees them (letters, digits, private use). */
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/**
 * One term -> an FTS5 expression, or null when arXiv would ignore it (a lone stopword, or no word
 * characters at all). Every token is emitted as a quoted string, so no user text can be read as
 * FTS5 syntax. The index keeps no positions (detail=column), so a phrase becomes all of its
 * words in the same field: docs/mirror.md says what that gives up.
 */
function ftsTerm(field: string | null, value: string): string | null {
  const quoted = value.startsWith('"') && value.endsWith('"') && value.length >= 2;
  const raw = quoted ? value.slice(1, -1) : value;
  const prefix = !quoted && raw.endsWith("*");
  let tokens = (raw.match(TOKEN) ?? []).map((token) => token.toLowerCase());
  if (!quoted) tokens = tokens.filter((token) => !STOPWORDS.has(token));
  if (tokens.length === 0) return null;
  const column = field === null ? null : COLUMNS[field] ?? null;
  const strings = tokens.map((token, index) => `"${token}"${prefix && index === tokens.length - 1 ? " *" : ""}`);
  const body = strings.length === 1 ? strings[0]! : `(${strings.join(" AND ")})`;
  return column === null ? body : `${column} : ${body}`;
}

/** A text-only subtree -> FTS5, keeping arXiv's grouping; dropped terms drop out of their operator. */
function ftsExpression(node: QueryNode): string | null {
  if (node.kind === "term") return ftsTerm(node.field, node.value);
  const left = ftsExpression(node.left);
  const right = ftsExpression(node.right);
  if (left === null) return node.op === "ANDNOT" ? null : right;
  if (right === null) return left;
  const op = node.op === "ANDNOT" ? "NOT" : node.op;
  return `(${left} ${op} ${right})`;
}

const FILTER_FIELDS = new Set(["cat", "submittedDate"]);
const LIVE_ONLY_FIELDS: Record<string, string> = {
  rn: "rn: (report number) is not in the mirror's index",
  id: "id: searches are answered by arXiv's API",
  lastUpdatedDate: "lastUpdatedDate: is not in the mirror's index",
};

/** Plans a search for the mirror, or says why arXiv's API must answer it. Invalid input throws. */
export function planMirrorSearch(query: string, filters: SearchFilters, today = new Date()): PlanResult {
  const tree = parseQuery(query);
  const plan: MirrorPlan = { match: null, categoryGroups: [], excludedCategories: [], submitted: null };
  const narrow = (range: { from: number; to: number }) => {
    plan.submitted = plan.submitted === null ? range : { from: Math.max(plan.submitted.from, range.from), to: Math.min(plan.submitted.to, range.to) };
  };
  if (filters.category !== undefined) plan.categoryGroups.push(categoryParameter(filters.category));
  const range = submittedRange(filters, today);
  if (range !== undefined) narrow(dateRange(range));

  const positives: string[] = [];
  const negatives: string[] = [];
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
    if (filterFields.length !== fields.length) return { live: "a cat: or submittedDate: term is joined to words by OR; the mirror applies them only as filters" };
    if (fields.every((field) => field === "cat") && onlyOr(node)) {
      const values = leaves(node).flatMap((leaf) => junctionValues(leaf.value));
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
  if (positives.length === 0 && negatives.length > 0) return { live: "only ANDNOT terms are left once the filters are taken out" };
  if (positives.length === 0 && plan.categoryGroups.length === 0 && plan.submitted === null) {
    return { live: "no searchable word is left (arXiv ignores common words such as of and the outside quoted phrases)" };
  }
  if (positives.length > 0) {
    let match = positives.length === 1 ? positives[0]! : `(${positives.join(" AND ")})`;
    for (const negative of negatives) match = `(${match} NOT ${negative})`;
    plan.match = match;
  }
  if (plan.submitted !== null && plan.submitted.from > plan.submitted.to) plan.submitted = { from: plan.submitted.from, to: plan.submitted.from - 1 };
  return { plan };
}
