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
  const length = countAsciiTokens(text, wanted, counts);
  if (length >= 0) return length;
  const folded = fold(text);
  TOKEN.lastIndex = 0;
  let tokensSeen = 0;
  for (let match = TOKEN.exec(folded); match !== null; match = TOKEN.exec(folded)) {
    tokensSeen++;
    const slot = wanted.get(stem(match[0]));
    if (slot !== undefined) counts[slot]!++;
  }
  return tokensSeen;
}

/**
 * ASCII text (most metadata) scanned once by character code, upper case folded on the way, and a
 * token stemmed only when it begins as a wanted stem does. The Porter stemmer changes at most a
 * stem's last character ("hoping" -> "hope", "happy" -> "happi"; checked on 930,000 words: every
 * word of the bench mirror and of the documentation under node_modules, and their beginnings with
 * Porter's suffixes), so a token gives a stem of four or more letters only if it begins with the
 * stem's first three, and one of three letters only if it begins with its first two. A two-letter
 * stem also comes from a vowel and y ("ays", "ayed" -> "ai"); a one-letter stem from anything.
 * Returns -1, with `counts` untouched, at the first character outside ASCII.
 */
function countAsciiTokens(text: string, wanted: ReadonlyMap<string, number>, counts: number[]): number {
  const heads = headsOf(wanted);
  const found: number[] = [];
  let length = 0;
  let start = -1;
  let head = 0;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    let c = i < n ? text.charCodeAt(i) : 32;
    if (c >= 65 && c <= 90) c += 32;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) {
        start = i;
        head = c;
      } else if (i - start === 1) head = head * 128 + c;
      continue;
    }
    if (c > 127) return -1;
    if (start < 0) continue;
    length++;
    if (heads === null || (i - start >= 2 && mayStemTo(heads, head, text, start, i))) {
      const slot = wanted.get(stem(text.slice(start, i).toLowerCase()));
      if (slot !== undefined) found.push(slot);
    }
    start = -1;
  }
  for (const slot of found) counts[slot]!++;
  return length;
}

/** Whether a token (two or more characters, `head` its first two folded) may stem to a wanted stem. */
function mayStemTo(heads: Heads, head: number, text: string, start: number, end: number): boolean {
  const kind = heads.twoLetters[head]!;
  if (kind === ANY_THIRD) return true;
  if (kind === NONE || end - start < 3) return false;
  return heads.thirdLetters.get(head)!.has(text.charCodeAt(start + 2) | 32);
}

const NONE = 0;
const ANY_THIRD = 1;
const SOME_THIRD = 2;

/** What a wanted stem's token begins with: the first two letters (as one number), then for a stem of four or more letters the third. */
interface Heads {
  twoLetters: Uint8Array;
  thirdLetters: Map<number, Set<number>>;
}

/** The beginnings of the wanted stems, or null when a stem is shorter than two letters or not ASCII (every token is stemmed). */
const headCache = new WeakMap<ReadonlyMap<string, number>, Heads | null>();
function headsOf(wanted: ReadonlyMap<string, number>): Heads | null {
  let heads = headCache.get(wanted);
  if (heads !== undefined) return heads;
  heads = { twoLetters: new Uint8Array(128 * 128), thirdLetters: new Map() };
  const add = (first: number, second: number, third: number | null) => {
    const head = first * 128 + second;
    if (third === null) {
      heads!.twoLetters[head] = ANY_THIRD;
      return;
    }
    if (heads!.twoLetters[head] === ANY_THIRD) return;
    heads!.twoLetters[head] = SOME_THIRD;
    const thirds = heads!.thirdLetters.get(head) ?? new Set<number>();
    thirds.add(third);
    heads!.thirdLetters.set(head, thirds);
  };
  for (const word of wanted.keys()) {
    if (word.length < 2 || !ASCII.test(word)) {
      heads = null;
      break;
    }
    add(word.charCodeAt(0), word.charCodeAt(1), word.length >= 4 ? word.charCodeAt(2) : null);
    // Step 1c turns a final y after a vowel into i: a two-letter stem "ai" comes from "ays" too.
    if (word.length === 2 && word[1] === "i" && "aeiou".includes(word[0]!)) add(word.charCodeAt(0), 121, null);
  }
  headCache.set(wanted, heads);
  return heads;
}

/** The index's tokens before stemming (folded), in order. */
export function words(text: string): string[] {
  return fold(text).match(TOKEN) ?? [];
}
