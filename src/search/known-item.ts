// The known-item rule: a pasted title's paper leads the page.
import type { Phrase, TextQuery } from "./expression.ts";
import { isSingleToken } from "./phrase-kinds.ts";
import { STOPWORDS } from "./stopwords.ts";
import { stem, words as titleTokens } from "./tokenize.ts";

/**
 * A pasted title finds its paper first: when a paper's whole title is the query's words (in
 * order; common words dropped as the query dropped them), it leads the page. BM25 alone can rank
 * a long paper that repeats the title's common words above it; an agent pasting a citation
 * wants that paper.
 */
export function knownItemFirst<Row extends { paper_key: number }>(
  query: TextQuery,
  rows: Row[],
  /** Rows known not to be it (their title lacks a word) are skipped without tokenizing their title. */
  mayBe: (row: Row) => boolean = () => true,
): Row[] {
  const words = titleWords(query);
  if (words === null || words.stems.length < 3 || rows.length < 2) return rows;
  const target = words.stems.join(" ");
  const index = rows.findIndex((row) => {
    if (!mayBe(row)) return false;
    const title = titleTokens((row as unknown as { title?: string }).title ?? "");
    return (words.keepStopwords ? title : title.filter((t) => !STOPWORDS.has(t))).map(stem).join(" ") === target;
  });
  if (index <= 0) return rows;
  return [rows[index]!, ...rows.slice(0, index), ...rows.slice(index + 1)];
}

/**
 * The words of a query that could be a pasted title: one phrase, or an OR of words in any column
 * or the title. A hyphenated word ("rotor-router", "state-of-the-art") is an AND of its parts
 * inside the OR (its common words already dropped): its tokens count in order (6 of 150 pasted
 * real titles lost rank 1 when such a word stopped the rule).
 */
function titleWords(query: TextQuery): { stems: string[]; keepStopwords: boolean } | null {
  if (query.kind === "phrase")
    return query.column === null || query.column === 0
      ? { stems: query.stems.join(" ").split(" "), keepStopwords: true }
      : null;
  if (query.kind !== "or") return null;
  const titleToken = (child: TextQuery): child is Phrase =>
    child.kind === "phrase" && isSingleToken(child) && (child.column === null || child.column === 0);
  const stems: string[] = [];
  for (const child of query.children) {
    if (titleToken(child)) stems.push(child.stems[0]!);
    else if (child.kind === "and" && child.children.every(titleToken))
      stems.push(...child.children.map((part) => (part as Phrase).stems[0]!));
    else return null;
  }
  return { stems, keepStopwords: false };
}
