// estimateTokens scans by character code; it must cost every text exactly as the split by PIECE
// (the BPE-like pre-tokenizer's pieces) costs it: checked on recorded pages and on random text
// mixing ASCII, accented and CJK letters, digits of other scripts, emoji and lone surrogates.
import { describe, expect, it } from "vitest";
import { fixtureText } from "../../../test/support/fixtures";
import { mulberry32 } from "../../../test/support/random";
import { estimateTokens } from "./tokens";

/** The estimate as the regex defines it (the code before the scan by character code). */
function byPieces(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(/(\p{L}+)|(\p{N}+)|([^\s\p{L}\p{N}]+)|\n+/gu)) {
    const length = match[0].length;
    if (match[1] !== undefined) tokens += length <= 8 ? 1 : Math.ceil(length / 5);
    else if (match[2] !== undefined) tokens += Math.ceil(length / 3);
    else if (match[3] !== undefined) tokens += Math.ceil(length / 2);
    else tokens += 1;
  }
  return tokens;
}

describe("estimateTokens", () => {
  it("costs recorded pages and feeds as the pieces do", async () => {
    for (const file of [
      "html/arxiv-html_2501.11120v1.html",
      "html/ar5iv_1904.07818_saved-modified.html",
      "arxiv-api/v2026/idlist_1605.08386.xml",
    ]) {
      const text = await fixtureText(file);
      expect(estimateTokens(text), file).toBe(byPieces(text));
      expect(estimateTokens(text)).toBeGreaterThan(500);
    }
  });

  it("costs random text of every kind of character as the pieces do", () => {
    const random = mulberry32(7);
    const alphabet = [
      ..."abcXYZ0123456789 \t\n\r\f\v.,;:-_()[]{}\"'\\/\u0000\u001f\u007f",
      ..."éÅßœΩЖж中文日本語한국어٣٤०१",
      "\u00a0",
      "\u2028",
      "\u3000",
      "\ufeff",
      "😀",
      "𝔸",
      "\ud800",
      "\udc00",
    ];
    for (let n = 0; n < 2_000; n++) {
      const length = Math.floor(random() * 60);
      let text = "";
      for (let i = 0; i < length; i++) {
        // Runs of one character as well: long words and numbers cost by their length.
        const char = alphabet[Math.floor(random() * alphabet.length)]!;
        text += random() < 0.3 ? char.repeat(1 + Math.floor(random() * 12)) : char;
      }
      expect(estimateTokens(text), JSON.stringify(text)).toBe(byPieces(text));
    }
    expect(estimateTokens("")).toBe(0);
  });
});
