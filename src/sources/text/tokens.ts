// Token estimates for paging by a token budget. No tokenizer ships in the Worker (their tables are
// megabytes); instead the text is split the way BPE pre-tokenizers split it and each piece is
// costed: a word of up to 8 letters is one token, a longer one a token per 5 letters, digits a
// token per 3, punctuation a token per 2, and a line break one. Against o200k_base and cl100k_base
// on the recorded papers (HTML, ar5iv and PDF text) this is within 6% (test/read-tokens.test.ts).

// One group per kind of piece, so a match says its kind without a second test.
const PIECE = /(\p{L}+)|(\p{N}+)|([^\s\p{L}\p{N}]+)|\n+/gu;

function pieceTokens(match: RegExpExecArray | RegExpMatchArray): number {
  const length = match[0].length;
  if (match[1] !== undefined) return length <= 8 ? 1 : Math.ceil(length / 5);
  if (match[2] !== undefined) return Math.ceil(length / 3);
  if (match[3] !== undefined) return Math.ceil(length / 2);
  return 1;
}

export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PIECE)) tokens += pieceTokens(match);
  return tokens;
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
