// Token estimates for paging by a token budget. No tokenizer ships in the Worker (their tables are
// megabytes); instead the text is split the way BPE pre-tokenizers split it and each piece is
// costed: a word of up to 8 letters is one token, a longer one a token per 5 letters, digits a
// token per 3, punctuation a token per 2, and a line break one. Against o200k_base and cl100k_base
// on the recorded papers (HTML, ar5iv and PDF text) this is within 6% (test/read-tokens.test.ts).

// One group per kind of piece, so a match says its kind without a second test.
const PIECE = /(\p{L}+)|(\p{N}+)|([^\s\p{L}\p{N}]+)|\n+/gu;

// The kinds of PIECE's groups, and whitespace other than a line break (in no piece).
const SPACE = 0;
const LETTERS = 1;
const DIGITS = 2;
const OTHER = 3;
const LINE_BREAKS = 4;

/** A piece's tokens, `length` in UTF-16 units (as a match's length counts). */
function runTokens(kind: number, length: number): number {
  if (kind === LETTERS) return length <= 8 ? 1 : Math.ceil(length / 5);
  if (kind === DIGITS) return Math.ceil(length / 3);
  if (kind === OTHER) return Math.ceil(length / 2);
  return kind === LINE_BREAKS ? 1 : 0;
}

function pieceTokens(match: RegExpExecArray | RegExpMatchArray): number {
  const kind =
    match[1] !== undefined ? LETTERS : match[2] !== undefined ? DIGITS : match[3] !== undefined ? OTHER : LINE_BREAKS;
  return runTokens(kind, match[0].length);
}

export function estimateTokens(text: string): number {
  let tokens = 0;
  // Runs of one kind are PIECE's matches: scanned by character code, the kinds of non-ASCII
  // characters looked up (a page's JSON is mostly ASCII; the regex walk cost a search page 1 ms).
  let kind = SPACE;
  let length = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    let next: number;
    let units = 1;
    if (code < 128) next = ASCII_KINDS[code]!;
    else {
      const point = text.codePointAt(i)!;
      units = point > 0xffff ? 2 : 1;
      next = kindOf(point);
    }
    i += units;
    if (next === kind && kind !== SPACE) {
      length += units;
      continue;
    }
    tokens += runTokens(kind, length);
    kind = next;
    length = units;
  }
  return tokens + runTokens(kind, length);
}

/** A character's kind as PIECE's classes see it. */
const classify = (char: string): number =>
  /\p{L}/u.test(char)
    ? LETTERS
    : /\p{N}/u.test(char)
      ? DIGITS
      : char === "\n"
        ? LINE_BREAKS
        : /\s/u.test(char)
          ? SPACE
          : OTHER;
const ASCII_KINDS = Uint8Array.from({ length: 128 }, (_, code) => classify(String.fromCharCode(code)));
/** The kinds of the non-ASCII characters met (a page has few distinct ones). */
const kinds = new Map<number, number>();
function kindOf(point: number): number {
  let kind = kinds.get(point);
  if (kind === undefined) {
    kind = classify(String.fromCodePoint(point));
    if (kinds.size > 10_000) kinds.clear();
    kinds.set(point, kind);
  }
  return kind;
}

/**
 * Where a page of at most `maxTokens` (estimated) that starts at `start` ends: at the last line
 * break in the page's final fifth when there is one, else after the last whole piece. Never
 * splits a surrogate pair; always advances by at least one character.
 */
export function tokenPageEnd(text: string, start: number, maxTokens: number): { end: number; tokens: number } {
  const pattern = new RegExp(PIECE.source, "gu");
  pattern.lastIndex = start;
  let tokens = 0;
  let end = text.length;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    const cost = pieceTokens(match);
    if (tokens + cost > maxTokens) {
      end = match.index;
      break;
    }
    tokens += cost;
  }
  if (end < text.length) {
    const floor = start + Math.floor((end - start) * 0.8);
    const lineBreak = text.lastIndexOf("\n", end - 1);
    if (lineBreak >= floor && lineBreak > start) end = lineBreak + 1;
    if (end <= start) end = Math.min(text.length, start + 1);
    if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? "") && end < text.length) end++;
  }
  return { end, tokens: end === text.length && tokens > 0 ? tokens : estimateTokens(text.slice(start, end)) };
}
