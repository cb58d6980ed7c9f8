// Find in a paper: the document's text cut into passages of a few hundred tokens (paragraphs,
// merged or split at sentences), each scored by BM25 against the question, with the section it
// sits in. The passage index of a document is built once per isolate and kept for later
// questions (bounded by text size), so only the first question about a paper pays for it.
import { tokens as indexTokens } from "../../search/tokenize";
import { STOPWORDS } from "../../search/stopwords";
import type { ExtractedDocument, OutlineEntry } from "./document";

// Passage sizes in characters (about 4 to a token in prose: 1,200 is about 300 tokens). Counting
// characters, not estimated tokens, keeps the first question's index build cheap.
const TARGET_CHARS = 1_200;
const MAX_CHARS = 1_800;
const K1 = 1.2;
const B = 0.75;

interface Passage {
  start: number;
  end: number;
  terms: Map<string, number>;
  length: number;
}

interface PassageIndex {
  passages: Passage[];
  documentFrequency: Map<string, number>;
  averageLength: number;
}

export interface FoundPassage {
  text: string;
  section_id: string | null;
  section_title: string | null;
  start: number;
  end: number;
  score: number;
}

/** [start, end) spans of passages: paragraphs merged up to ~1,200 characters, long ones split at sentence ends. */
export function passageSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  const paragraphs: [number, number][] = [];
  const pattern = /\n{2,}/g;
  let from = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match.index > from) paragraphs.push([from, match.index]);
    from = match.index + match[0].length;
  }
  if (from < text.length) paragraphs.push([from, text.length]);

  let current: [number, number] | null = null;
  const flush = () => {
    if (current) spans.push(current);
    current = null;
  };
  for (const [start, end] of paragraphs) {
    if (end - start > MAX_CHARS) {
      flush();
      spans.push(...splitAtSentences(text, start, end));
      continue;
    }
    // A heading starts a new passage, so a passage belongs to one section.
    if (current && (end - current[0] > TARGET_CHARS || text[start] === "#")) flush();
    if (current) current[1] = end;
    else current = [start, end];
  }
  flush();
  return spans;
}

function splitAtSentences(text: string, start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  let from = start;
  const sentence = /[.!?]\s+(?=\S)/g;
  sentence.lastIndex = start;
  for (let match = sentence.exec(text); match !== null && match.index < end; match = sentence.exec(text)) {
    const stop = match.index + match[0].length;
    if (stop - from >= TARGET_CHARS) {
      out.push([from, stop]);
      from = stop;
    }
  }
  if (from < end) out.push([from, end]);
  // A "sentence" with no stop in it (a huge table, a formula) is cut by size.
  return out.flatMap(([a, b]) => (b - a > 6_000 ? chunks(a, b, 4_000) : [[a, b] as [number, number]]));
}

function chunks(start: number, end: number, size: number): [number, number][] {
  const out: [number, number][] = [];
  for (let at = start; at < end; at += size) out.push([at, Math.min(end, at + size)]);
  return out;
}

function termCounts(text: string): { terms: Map<string, number>; length: number } {
  const terms = new Map<string, number>();
  const all = indexTokens(text);
  for (const term of all) terms.set(term, (terms.get(term) ?? 0) + 1);
  return { terms, length: all.length };
}

function buildIndex(text: string): PassageIndex {
  const passages: Passage[] = passageSpans(text).map(([start, end]) => ({
    start,
    end,
    ...termCounts(text.slice(start, end)),
  }));
  const documentFrequency = new Map<string, number>();
  let total = 0;
  for (const passage of passages) {
    total += passage.length;
    for (const term of passage.terms.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  return { passages, documentFrequency, averageLength: passages.length === 0 ? 0 : total / passages.length };
}

// Passage indexes of recently asked documents, per isolate, bounded by their text size.
const INDEX_BUDGET_CHARS = 8_000_000;
const indexes = new Map<string, { index: PassageIndex; size: number }>();
let indexedChars = 0;

function indexFor(key: string, text: string): PassageIndex {
  const hit = indexes.get(key);
  if (hit && hit.size === text.length) {
    indexes.delete(key);
    indexes.set(key, hit);
    return hit.index;
  }
  const index = buildIndex(text);
  indexes.set(key, { index, size: text.length });
  indexedChars += text.length;
  for (const [oldest, entry] of indexes) {
    if (indexedChars <= INDEX_BUDGET_CHARS || oldest === key) break;
    indexes.delete(oldest);
    indexedChars -= entry.size;
  }
  return index;
}

/** The key a paper's passage index is kept under (its resolved ID and text source). */
export const passageKey = (paperId: string, source: string) => `${paperId}:${source}`;

/**
 * Builds a freshly extracted document's passage index now, while the first read is already
 * long (tens of milliseconds against seconds), so that the first question about it is as fast
 * as the next.
 */
export function warmPassageIndex(key: string, text: string): void {
  indexFor(key, text);
}

/** The question's search terms: index tokens (stemmed), stopwords and repeats dropped. */
export function queryTerms(question: string): string[] {
  const words = question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const kept = words.filter((word) => !STOPWORDS.has(word));
  return [...new Set(indexTokens((kept.length > 0 ? kept : words).join(" ")))];
}

export function findPassages(
  key: string,
  document: ExtractedDocument,
  question: string,
  maxPassages: number,
): FoundPassage[] {
  const terms = queryTerms(question);
  if (terms.length === 0) return [];
  const index = indexFor(key, document.text);
  const n = index.passages.length;
  const idf = new Map(
    terms.map((term) => {
      const df = index.documentFrequency.get(term) ?? 0;
      return [term, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
    }),
  );
  const scored: { passage: Passage; score: number }[] = [];
  for (const passage of index.passages) {
    let score = 0;
    for (const term of terms) {
      const tf = passage.terms.get(term);
      if (!tf) continue;
      score +=
        idf.get(term)! * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * passage.length) / (index.averageLength || 1))));
    }
    if (score > 0) scored.push({ passage, score });
  }
  scored.sort((a, b) => b.score - a.score || a.passage.start - b.passage.start);
  return scored.slice(0, maxPassages).map(({ passage, score }) => {
    const section = sectionAt(document.outline, passage.start);
    return {
      text: document.text.slice(passage.start, passage.end),
      section_id: section?.id ?? null,
      section_title: section?.title ?? null,
      start: passage.start,
      end: passage.end,
      score: Math.round(score * 1000) / 1000,
    };
  });
}

function sectionAt(outline: readonly OutlineEntry[], offset: number): OutlineEntry | undefined {
  let found: OutlineEntry | undefined;
  for (const entry of outline) {
    if (entry.offset > offset) break;
    if (entry.level > 1) found = entry; // the document title is not a section
  }
  return found;
}

/** Empties the isolate's passage indexes (tests). */
export function clearPassageIndexes(): void {
  indexes.clear();
  indexedChars = 0;
}
