// arXiv search grammar: validate a user's query and build the search_query we send.
// arXiv's rules: space-separated terms are OR-ed; AND, OR, ANDNOT are upper case only, share one
// precedence and group to the right; field prefixes ti: au: abs: co: jr: cat: rn: id: all:,
// plus submittedDate:/lastUpdatedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]. We do not rewrite the
// user's logic; we reject what arXiv would misread and say how to fix it.
import { PapersError } from "../../errors";
import { parseDay } from "../dates";
import { nearestCategoryCodes, resolveCategoryFilter } from "./categories";

export const MAX_QUERY_LENGTH = 1000;
const FIELDS = new Set(["ti", "au", "abs", "co", "jr", "cat", "rn", "id", "all", "submitteddate", "lastupdateddate"]);
const CANONICAL_FIELD: Record<string, string> = { submitteddate: "submittedDate", lastupdateddate: "lastUpdatedDate" };
const OPERATORS = new Set(["AND", "OR", "ANDNOT"]);
const DATE_RANGE = /^\[(\d{12}) TO (\d{12})\]$/;

type Token =
  | { kind: "open" }
  | { kind: "close" }
  | { kind: "op"; op: Operator }
  | { kind: "term"; text: string; field: string | null; value: string; covers?: string[] };

export type Operator = "AND" | "OR" | "ANDNOT";

/**
 * A parsed query. Terms keep their field (null: no prefix) and value as written (phrases quoted);
 * a cat: term also says which categories it covers (a code, or archive.* for all of an archive's).
 */
export type QueryNode =
  | { kind: "term"; field: string | null; value: string; covers?: string[] }
  | { kind: "op"; op: Operator; left: QueryNode; right: QueryNode };

function invalidQuery(message: string, recovery: string): PapersError {
  return new PapersError("invalid_query", message, { recovery });
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = query.length;
  const readQuoted = (from: number): [string, number] => {
    const end = query.indexOf('"', from + 1);
    if (end < 0)
      throw invalidQuery(
        "The query has an unclosed double quote.",
        'Close every quoted phrase, e.g. "graph neural networks".',
      );
    const phrase = query
      .slice(from + 1, end)
      .trim()
      .replace(/\s+/g, " ");
    if (phrase === "")
      throw invalidQuery('The query has an empty quoted phrase ("").', "Put words inside the quotes or remove them.");
    return [`"${phrase}"`, end + 1];
  };
  while (i < n) {
    const ch = query[i]!;
    if (ch === " ") {
      i++;
    } else if (ch === "(") {
      tokens.push({ kind: "open" });
      i++;
    } else if (ch === ")") {
      tokens.push({ kind: "close" });
      i++;
    } else if (ch === '"') {
      const [phrase, next] = readQuoted(i);
      tokens.push({ kind: "term", text: phrase, field: null, value: phrase });
      i = next;
    } else {
      let j = i;
      while (j < n && !' ()"'.includes(query[j]!)) j++;
      const word = query.slice(i, j);
      const colon = word.indexOf(":");
      const field = colon > 0 ? word.slice(0, colon).toLowerCase() : "";
      if (OPERATORS.has(word)) {
        tokens.push({ kind: "op", op: word as Operator });
        i = j;
      } else if (FIELDS.has(field)) {
        const name = CANONICAL_FIELD[field] ?? field;
        let value = word.slice(colon + 1);
        i = j;
        if (value === "" && query[i] === '"') {
          [value, i] = readQuoted(i);
        } else if (value.startsWith("[")) {
          const close = query.indexOf("]", i - (word.length - colon - 1));
          if (close < 0)
            throw invalidQuery(`${name}: has an unclosed [ range.`, `Write ${name}:[202401010000 TO 202401312359].`);
          value = query.slice(i - (word.length - colon - 1), close + 1).replace(/\s+/g, " ");
          i = close + 1;
        }
        if (value === "") {
          throw invalidQuery(
            `The field prefix ${name}: has no value.`,
            `Write the value right after the colon, e.g. ${name}:"quantum error correction" or ${name}:transformer.`,
          );
        }
        const checked = checkFieldValue(name, value);
        tokens.push({ kind: "term", text: `${name}:${checked.value}`, field: name, ...checked });
      } else {
        tokens.push({ kind: "term", text: word, field: null, value: word });
        i = j;
      }
    }
  }
  return tokens;
}

/** A field's value as arXiv reads it, and for cat: the categories it covers. */
function checkFieldValue(field: string, value: string): { value: string; covers?: string[] } {
  if (field === "cat") {
    // cs.AI, cs.* (wildcard), astro-ph* ; an archive without the wildcard means all of it.
    const wildcard = /^(.+?)\.?\*$/.exec(value);
    const filter = resolveCategoryFilter(wildcard ? wildcard[1]! : value);
    if (!filter) throw invalidCategory(value);
    if (filter.kind === "category")
      return wildcard
        ? { value: `${filter.code}*`, covers: [filter.code, `${filter.code}.*`] }
        : { value: filter.code, covers: [filter.code] };
    // The junction's archive rows (astro-ph.*) include a flat archive code's papers (migration 0004).
    const covers = [`${filter.archive}.*`];
    return { value: wildcard || !filter.isAlsoCategory ? `${filter.archive}.*` : filter.archive, covers };
  }
  if (field === "submittedDate" || field === "lastUpdatedDate") {
    if (!DATE_RANGE.test(value)) {
      throw invalidQuery(
        `${field}: takes a range [YYYYMMDDHHMM TO YYYYMMDDHHMM].`,
        `Write ${field}:[202401010000 TO 202401312359], or use submitted_from / submitted_to.`,
      );
    }
  }
  return { value };
}

export function invalidCategory(value: string): PapersError {
  const nearest = nearestCategoryCodes(value);
  return new PapersError(
    "invalid_category",
    `${JSON.stringify(value.slice(0, 60))} is not an arXiv category or archive.`,
    {
      recovery: `Did you mean ${nearest.join(", ")}? arxiv_list_categories lists every code.`,
    },
  );
}

function checkStructure(tokens: Token[]): void {
  let depth = 0;
  let expectOperand = true; // at the start, after "(" and after an operator
  for (const [index, token] of tokens.entries()) {
    switch (token.kind) {
      case "open":
        depth++;
        if (tokens[index + 1]?.kind === "close")
          throw invalidQuery("The query has empty parentheses ().", "Put terms inside the parentheses or remove them.");
        expectOperand = true;
        break;
      case "close":
        if (depth === 0)
          throw invalidQuery("The query closes a parenthesis it never opened.", "Balance the parentheses.");
        if (expectOperand)
          throw invalidQuery(
            "An operator is followed by a closing parenthesis.",
            "Every AND, OR and ANDNOT needs a term on both sides.",
          );
        depth--;
        break;
      case "op":
        if (expectOperand) {
          throw invalidQuery(
            `${token.op} has no term before it.`,
            "Every AND, OR and ANDNOT needs a term on both sides; operators are upper case only.",
          );
        }
        expectOperand = true;
        break;
      case "term":
        expectOperand = false;
        break;
    }
  }
  if (depth > 0) throw invalidQuery("The query has an unclosed parenthesis.", "Balance the parentheses.");
  if (expectOperand)
    throw invalidQuery("The query ends with an operator.", "Every AND, OR and ANDNOT needs a term on both sides.");
}

function validTokens(query: string): Token[] {
  if (query.length > MAX_QUERY_LENGTH) {
    throw invalidQuery(
      `The query is ${query.length} characters; arXiv takes at most ${MAX_QUERY_LENGTH}.`,
      "Shorten it: keep the distinctive terms and use field prefixes.",
    );
  }
  // Tabs and newlines are spaces; any other control character is an error.
  const spaced = query.replace(/[\t\n\r]/g, " ");
  if (/[\u0000-\u001f\u007f]/.test(spaced))
    throw invalidQuery("The query contains control characters.", "Remove non-printing characters from the query.");
  const tokens = tokenize(spaced);
  if (tokens.length === 0)
    throw invalidQuery("The query is empty.", "Give at least one term, e.g. ti:transformer AND cat:cs.CL.");
  checkStructure(tokens);
  return tokens;
}

/** Validates a user query (the same parse the mirror uses) and returns it normalised (one space between tokens). */
export function normalizeQuery(query: string): string {
  return parseSearch(query).normalized;
}

/** A query parsed once: its tree (for the mirror's planner) and its normalized text (for arXiv's API). */
export interface ParsedQuery {
  tree: QueryNode;
  normalized: string;
}

/** Validates and parses a query once; both planners take the result. */
export function parseSearch(query: string): ParsedQuery {
  const tokens = validTokens(query);
  return { tree: treeOf(tokens), normalized: joinTokens(tokens) };
}

function joinTokens(tokens: Token[]): string {
  let out = "";
  let previous: Token | undefined;
  for (const token of tokens) {
    const piece =
      token.kind === "open" ? "(" : token.kind === "close" ? ")" : token.kind === "op" ? token.op : token.text;
    const tight = previous?.kind === "open" || token.kind === "close" || previous === undefined;
    out += (tight ? "" : " ") + piece;
    previous = token;
  }
  return out;
}

/**
 * The query as arXiv reads it: AND, OR and ANDNOT share one precedence and group to the right,
 * and two terms side by side are joined by OR (a b AND c is a OR (b AND c)).
 */
export function parseQuery(query: string): QueryNode {
  return treeOf(validTokens(query));
}

function treeOf(tokens: Token[]): QueryNode {
  let position = 0;
  const expression = (): QueryNode => {
    const left = operand();
    const next = tokens[position];
    if (next === undefined || next.kind === "close") return left;
    if (next.kind === "op") {
      position++;
      return { kind: "op", op: next.op, left, right: expression() };
    }
    return { kind: "op", op: "OR", left, right: expression() };
  };
  const operand = (): QueryNode => {
    const token = tokens[position++]!;
    if (token.kind === "open") {
      const inner = expression();
      position++; // the matching ")": checkStructure has balanced them
      return inner;
    }
    if (token.kind !== "term") throw new Error(`unreachable: checkStructure let ${token.kind} start an operand`);
    return {
      kind: "term",
      field: token.field,
      value: token.value,
      ...(token.covers === undefined ? {} : { covers: token.covers }),
    };
  };
  return expression();
}

export interface SearchFilters {
  category?: string;
  submittedFrom?: string;
  submittedTo?: string;
}

/** The category and date filters, validated and resolved once: arXiv's spelling and what the mirror applies. */
export interface ResolvedFilters {
  /** clause: the search_query clause; covers: the categories it stands for (a code, or archive.*). */
  category?: { clause: string; covers: string[] };
  /** submittedDate's range value, "[YYYYMMDDHHMM TO YYYYMMDDHHMM]" (inclusive UTC days). */
  submitted?: string;
}

/** A search's query and filters, validated and resolved once: what arXiv's API and the mirror's planner read. */
export interface ResolvedSearch {
  parsed: ParsedQuery;
  filters: ResolvedFilters;
  /** The search_query sent to arXiv. */
  arxivQuery: string;
}

/** Parses the query, then resolves the category and the dates; the first bad one throws its typed error. */
export function resolveSearch(query: string, filters: SearchFilters, today = new Date()): ResolvedSearch {
  const parsed = parseSearch(query);
  const resolved = resolveFilters(filters, today);
  return { parsed, filters: resolved, arxivQuery: arxivSearchQuery(parsed, resolved) };
}

/** Resolves the filters (the category first, then the dates); a bad one throws its typed error. */
function resolveFilters(filters: SearchFilters, today = new Date()): ResolvedFilters {
  const resolved: ResolvedFilters = {};
  if (filters.category !== undefined) resolved.category = categoryOf(filters.category);
  const range = submittedRange(filters, today);
  if (range !== undefined) resolved.submitted = range;
  return resolved;
}

/** The search_query sent to arXiv: the user's query, AND-ed with the category and date filters. */
export function buildSearchQuery(query: string, filters: SearchFilters, today = new Date()): string {
  return resolveSearch(query, filters, today).arxivQuery;
}

/** The search_query of a parsed query and its resolved filters. */
function arxivSearchQuery(parsed: ParsedQuery, filters: ResolvedFilters): string {
  const clauses: string[] = [];
  if (filters.category !== undefined) clauses.push(filters.category.clause);
  if (filters.submitted !== undefined) clauses.push(`submittedDate:${filters.submitted}`);
  if (clauses.length === 0) return parsed.normalized;
  return [`(${parsed.normalized})`, ...clauses].join(" AND ");
}

function categoryOf(category: string): { clause: string; covers: string[] } {
  const filter = resolveCategoryFilter(category);
  if (!filter) throw invalidCategory(category);
  if (filter.kind === "category") return { clause: `cat:${filter.code}`, covers: [filter.code] };
  // An archive: its sub-categories, and the archive itself where it was once a category (astro-ph).
  const clause = filter.isAlsoCategory
    ? `(cat:${filter.archive} OR cat:${filter.archive}.*)`
    : `cat:${filter.archive}.*`;
  return { clause, covers: [`${filter.archive}.*`] };
}

const ARXIV_DAYS = { minYear: 1991 }; // arXiv opened in August 1991

/**
 * submitted_from / submitted_to as arXiv's submittedDate range value, "[YYYYMMDDHHMM TO
 * YYYYMMDDHHMM]" (inclusive UTC days); the mirror reads the same value. Undefined without either.
 */
function submittedRange({ submittedFrom, submittedTo }: SearchFilters, today = new Date()): string | undefined {
  if (submittedFrom === undefined && submittedTo === undefined) return undefined;
  const from = submittedFrom === undefined ? "19910801" : parseDay(submittedFrom, "submitted_from", ARXIV_DAYS);
  const to =
    submittedTo === undefined
      ? today.toISOString().slice(0, 10).replaceAll("-", "")
      : parseDay(submittedTo, "submitted_to", ARXIV_DAYS);
  if (from > to) {
    throw new PapersError(
      "invalid_date",
      `submitted_from (${submittedFrom}) is after submitted_to (${submittedTo ?? "today"}).`,
      {
        recovery: "Swap the dates or widen the window; both bounds are inclusive.",
      },
    );
  }
  // Inclusive bounds in UTC: the whole last day counts.
  return `[${from}0000 TO ${to}2359]`;
}
