// A title found through noise: what OCR and copying do to a reference's title. Each is a `close`
// title (never `exact`), which makes a match only with the authors and the year agreeing:
// - OCR confusions: "rn" read for "m", "l", "I" and "1" for each other, "0" for "o", "vv" for "w";
//   words run together, and a word broken by a line-end hyphen (separators are dropped anyway);
// - a title cut short with "..." or "…": at least half of it, ending where the ellipsis stands;
// - one typo: the title's letters within an edit distance of one (two past 40 letters) of a span
//   of the reference that starts at a word.
// A title spliced from two real titles has neither the whole of one (typos aside) nor an ellipsis.
// Pure; text-match.ts calls it when the plain comparisons found nothing.

/** OCR's confusions folded to one letter each, on text already lower-cased and compacted. */
export function ocrFold(compacted: string): string {
  return compacted.replace(/rn/g, "m").replace(/vv/g, "w").replace(/[1i]/g, "l").replace(/0/g, "o");
}

export interface NoisyTitle {
  how: "ocr" | "truncated" | "typo";
  /** Share of the title's letters found. */
  coverage: number;
}

/** Does the reference (compacted, with the word each character came from) hold the title through noise? */
export function noisyTitle(
  joined: string,
  wordAt: readonly number[],
  needle: string,
  rawReference: string,
  compactOf: (text: string) => string,
  /** Share of the title's words found whole, in order: a typo leaves all but one (the costly check runs past 0.6). */
  wordCoverage: number,
): NoisyTitle | null {
  if (needle.length < 12) return null;
  const title = ocrFold(needle);
  const text = ocrFold(joined);
  if (text.includes(title)) return { how: "ocr", coverage: 1 };
  const ellipsis = /\.\s*\.\s*\.|…/.exec(rawReference);
  if (ellipsis) {
    // The title's start, right before the ellipsis.
    const before = ocrFold(compactOf(rawReference.slice(0, ellipsis.index)));
    for (let k = title.length - 1; k >= Math.max(20, Math.ceil(title.length / 2)); k--)
      if (before.endsWith(title.slice(0, k))) return { how: "truncated", coverage: k / title.length };
  }
  if (wordCoverage < 0.6) return null;
  const allowed = title.length > 40 ? 2 : 1;
  for (let start = 0; start < text.length; start++) {
    if (start > 0 && wordAt[start - 1] === wordAt[start]) continue;
    if (withinDistance(title, text.slice(start, start + title.length + allowed), allowed))
      return { how: "typo", coverage: 1 - allowed / title.length };
  }
  return null;
}

/** Is some prefix of `text` within `max` edits of `pattern` (banded Levenshtein, early exit)? */
function withinDistance(pattern: string, text: string, max: number): boolean {
  let previous = Array.from({ length: text.length + 1 }, (_, j) => j);
  for (let i = 1; i <= pattern.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= text.length; j++) {
      const cost = pattern[i - 1] === text[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      best = Math.min(best, current[j]!);
    }
    if (best > max) return false;
    previous = current;
  }
  return Math.min(...previous.slice(Math.max(0, pattern.length - max))) <= max;
}
