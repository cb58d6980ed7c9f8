// A text query as the mirror runs it: phrases (one or more adjacent tokens, in one column or in
// any, the last token optionally a prefix) joined by AND, OR and NOT. The same tree is written
// out as an FTS5 MATCH expression (so no user text is read as FTS5 syntax) and evaluated in
// TypeScript on a candidate's tokens, where the ranker rescores what FTS5 proposed.
import { stem, tokens as indexTokens } from "./tokenize.ts";

/** The FTS5 columns of arxiv_papers_fts, in order, and their bm25 weights. */
export const COLUMNS = ["title", "authors", "abstract", "comment", "journal_ref"] as const;
export const WEIGHTS = [4.0, 2.0, 1.0, 0.5, 0.5] as const;
export type ColumnIndex = 0 | 1 | 2 | 3 | 4;

export interface Phrase {
  kind: "phrase";
  /** Lower-cased tokens as written (FTS5 stems them; stems holds what the index stores). */
  words: string[];
  stems: string[];
  column: ColumnIndex | null;
  /** The last token matches any token it begins. */
  prefix: boolean;
}

export type TextQuery =
  | Phrase
  | { kind: "and" | "or"; children: TextQuery[] }
  | { kind: "not"; left: TextQuery; right: TextQuery };

export function phrase(words: string[], column: ColumnIndex | null, prefix = false): Phrase {
  return {
    kind: "phrase",
    words,
    stems: words.map((word) => indexTokens(word).join(" ") || stem(word)),
    column,
    prefix,
  };
}

/** The FTS5 MATCH expression of a tree: every token a quoted string. */
export function toMatch(query: TextQuery): string {
  switch (query.kind) {
    case "phrase": {
      const body = `"${query.words.join(" ")}"${query.prefix ? " *" : ""}`;
      return query.column === null ? body : `${COLUMNS[query.column]} : ${body}`;
    }
    case "and":
    case "or":
      return query.children.length === 1
        ? toMatch(query.children[0]!)
        : `(${query.children.map(toMatch).join(query.kind === "and" ? " AND " : " OR ")})`;
    case "not":
      return `(${toMatch(query.left)} NOT ${toMatch(query.right)})`;
  }
}

/** Every phrase in the order FTS5 numbers them (left to right), duplicates included. */
export function phrasesOf(query: TextQuery, out: Phrase[] = []): Phrase[] {
  if (query.kind === "phrase") out.push(query);
  else if (query.kind === "not") {
    phrasesOf(query.left, out);
    phrasesOf(query.right, out);
  } else for (const child of query.children) phrasesOf(child, out);
  return out;
}

/** A stable key for a phrase (its column, stems and prefix flag). */
export function phraseKey(p: Phrase): string {
  return `${p.column ?? "*"}|${p.stems.join(" ")}${p.prefix ? "*" : ""}`;
}

/** A candidate paper's indexed text, tokenized as the index tokenizes it: one token list per column. */
export type DocTokens = string[][];

/** How many times a phrase occurs in each column of a document (adjacent tokens, in order). */
export function phraseCounts(p: Phrase, doc: DocTokens): number[] {
  const flat = p.stems.join(" ").split(" ");
  const n = flat.length;
  return doc.map((column, index) => {
    if (p.column !== null && p.column !== index) return 0;
    let count = 0;
    for (let i = 0; i + n <= column.length; i++) {
      let ok = true;
      for (let j = 0; j < n && ok; j++) {
        const token = column[i + j]!;
        ok = p.prefix && j === n - 1 ? token.startsWith(flat[j]!) : token === flat[j];
      }
      if (ok) count++;
    }
    return count;
  });
}

/**
 * Whether a document matches the tree, zeroing the counts of every phrase under a node that does
 * not match it, and of every NOT's right side: FTS5 reports no instances for them, so bm25 does
 * not count them (a paper holding "based" but not "image" gets nothing for the "based" of
 * image-based, which is `image AND based`).
 */
export function matchAndZero(query: TextQuery, counts: Map<Phrase, number[]>): boolean {
  const zero = (node: TextQuery) => {
    for (const p of phrasesOf(node)) counts.get(p)!.fill(0);
  };
  switch (query.kind) {
    case "phrase":
      return counts.get(query)!.some((c) => c > 0);
    case "and": {
      const results = query.children.map((child) => matchAndZero(child, counts));
      const ok = results.every(Boolean);
      if (!ok) zero(query);
      return ok;
    }
    case "or":
      // A child that does not match has zeroed its own phrases.
      return query.children.map((child) => matchAndZero(child, counts)).some(Boolean);
    case "not": {
      const excluded = matches(query.right, counts);
      zero(query.right);
      const ok = matchAndZero(query.left, counts) && !excluded;
      if (!ok) zero(query.left);
      return ok;
    }
  }
}

/** Whether a document matches the tree, given each phrase's per-column counts (in phrasesOf order). */
export function matches(query: TextQuery, counts: Map<Phrase, number[]>): boolean {
  switch (query.kind) {
    case "phrase":
      return counts.get(query)!.some((c) => c > 0);
    case "and":
      return query.children.every((child) => matches(child, counts));
    case "or":
      return query.children.some((child) => matches(child, counts));
    case "not":
      return matches(query.left, counts) && !matches(query.right, counts);
  }
}
