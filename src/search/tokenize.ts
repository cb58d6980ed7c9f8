// The mirror index's tokenizer, reproduced in TypeScript: FTS5's `porter unicode61
// remove_diacritics 2` (lower case, diacritics removed, letters/digits/private-use characters as
// token characters, then the Porter stemmer on each token of 3 to 64 bytes). The ranker
// rescores its candidates with it, so its tokens must be the index's; test/search-rank.test.ts
// checks them against FTS5's own vocabulary and document sizes on the real sample.
import { stemmer } from "stemmer";

const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;
const MARKS = /\p{Mn}/gu;
// FTS5's porter tokenizer leaves tokens shorter than 3 or longer than 64 bytes (UTF-8) as they are.
const PORTER_MIN = 3;
const PORTER_MAX = 64;

const encoder = new TextEncoder();
const stemCache = new Map<string, string>();

/** One lower-cased, diacritic-free token as the index stores it. */
export function stem(token: string): string {
  let stemmed = stemCache.get(token);
  if (stemmed === undefined) {
    const bytes = encoder.encode(token).length;
    stemmed = bytes < PORTER_MIN || bytes > PORTER_MAX ? token : stemmer(token);
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(token, stemmed);
  }
  return stemmed;
}

/** Text folded as unicode61 with remove_diacritics 2 folds it (before tokenizing). */
export function fold(text: string): string {
  // Most metadata is ASCII: it has no diacritics to remove.
  return ASCII.test(text) ? text.toLowerCase() : text.normalize("NFD").replace(MARKS, "").toLowerCase();
}
const ASCII = /^[\x00-\x7f]*$/;

/** The index's tokens of a text, in order. */
export function tokens(text: string): string[] {
  const out: string[] = [];
  // In ASCII, unicode61's token characters are the letters and digits.
  const folded = fold(text);
  const pattern = ASCII.test(text) ? ASCII_TOKEN : TOKEN;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(folded); match !== null; match = pattern.exec(folded)) out.push(stem(match[0]));
  return out;
}
const ASCII_TOKEN = /[a-z0-9]+/g;

/**
 * Counts a text's tokens as the index stores them, and among them the wanted stems (their slot in
 * `counts` is the map's value), without keeping the tokens: the ranker's rescoring of single-word
 * queries needs no more. Returns the number of tokens (the column's size in the index).
 */
export function countTokens(text: string, wanted: ReadonlyMap<string, number>, counts: number[]): number {
  if (ASCII.test(text)) return countAsciiTokens(text.toLowerCase(), wanted, counts);
  const folded = fold(text);
  TOKEN.lastIndex = 0;
  let length = 0;
  for (let match = TOKEN.exec(folded); match !== null; match = TOKEN.exec(folded)) {
    length++;
    const slot = wanted.get(stem(match[0]));
    if (slot !== undefined) counts[slot]!++;
  }
  return length;
}

/**
 * ASCII text (most metadata) scanned by character code, and a token stemmed only when it begins
 * with the first two letters of a wanted stem: the Porter stemmer changes a token's first two
 * characters only in a stem of at most two letters ("ies" -> "i", then every token is stemmed; a
 * vowel and y: "ays", "ayed" -> "ai", so a stem "ai" also takes tokens that begin "ay"). Checked
 * on 930,000 words, every word of the bench mirror and of the documentation under node_modules,
 * and each of their beginnings with Porter's suffixes.
 */
function countAsciiTokens(folded: string, wanted: ReadonlyMap<string, number>, counts: number[]): number {
  const heads = headsOf(wanted);
  let length = 0;
  let start = -1;
  const n = folded.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? folded.charCodeAt(i) : 32;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
      continue;
    }
    if (start < 0) continue;
    length++;
    if (
      heads === null ||
      (i - start >= 2 && heads.has(folded.charCodeAt(start) * 128 + folded.charCodeAt(start + 1)))
    ) {
      const slot = wanted.get(stem(folded.slice(start, i)));
      if (slot !== undefined) counts[slot]!++;
    }
    start = -1;
  }
  return length;
}

/** The first two characters of each wanted stem (as one number), or null when a stem is shorter. */
const headCache = new WeakMap<ReadonlyMap<string, number>, Set<number> | null>();
function headsOf(wanted: ReadonlyMap<string, number>): Set<number> | null {
  let heads = headCache.get(wanted);
  if (heads === undefined) {
    heads = new Set<number>();
    for (const word of wanted.keys()) {
      if (word.length < 2 || word.charCodeAt(0) > 127 || word.charCodeAt(1) > 127) {
        heads = null;
        break;
      }
      heads.add(word.charCodeAt(0) * 128 + word.charCodeAt(1));
      // Step 1c turns a final y after a vowel into i: a two-letter stem "ai" comes from "ays" too.
      if (word.length === 2 && word[1] === "i" && "aeiou".includes(word[0]!)) heads.add(word.charCodeAt(0) * 128 + 121);
    }
    headCache.set(wanted, heads);
  }
  return heads;
}

/** The index's tokens before stemming (folded), in order. */
export function words(text: string): string[] {
  return fold(text).match(TOKEN) ?? [];
}
