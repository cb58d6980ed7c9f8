// Impact lists: for each common term, the papers where that term alone weighs most (its bm25
// without the idf), kept deep enough (about 1% of the mirror) that a many-word query's best
// papers are in the lists of some of its words. A query sums, for each paper in its words' lists,
// idf x weight: the part of the paper's score those lists know. The best sums are the candidates
// that are then scored exactly (src/search/rank.ts). On the 1,000,000-paper bench mirror the exact
// top 10 of a research question lies in the union of its words' 10,000-deep lists (30 questions:
// all of them); the best 400 partial sums hold 93% of it.
//
// Stored as text (D1 hands a Worker a BLOB as a JSON array of numbers, about 6 times slower to
// read than the same bytes as base64): the list in paper-key order, as delta varints, then one
// byte per paper, the weight quantized to 1/255 of its ceiling (k1 + 1).

/** A term's weight in a paper lies in (0, k1 + 1): FTS5's bm25 saturation. */
const WEIGHT_CEILING = 2.2;

/** How deep each term's list is for a mirror of this many papers. */
export function impactDepth(papers: number): number {
  return Math.min(40_000, Math.max(2_000, Math.round(papers / 100)));
}

/** A term's list as stored: `postings` sorted by paper key, weights in (0, WEIGHT_CEILING]. */
export function encodeImpacts(postings: readonly (readonly [key: number, weight: number])[]): string {
  const sorted = [...postings].sort((a, b) => a[0] - b[0]);
  const bytes: number[] = [];
  const varint = (value: number) => {
    // Little-endian groups of 7 bits; keys exceed 2^31, so division rather than shifts.
    let rest = value;
    while (rest >= 128) {
      bytes.push((rest % 128) | 128);
      rest = Math.floor(rest / 128);
    }
    bytes.push(rest);
  };
  varint(sorted.length);
  let previous = 0;
  for (const [key] of sorted) {
    varint(key - previous);
    previous = key;
  }
  for (const [, weight] of sorted) bytes.push(Math.min(255, Math.max(1, Math.round((weight / WEIGHT_CEILING) * 255))));
  let binary = "";
  for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode(...bytes.slice(i, i + 8192));
  return btoa(binary);
}

/** Calls `visit(key, weight)` for each paper of a stored list, in key order. */
export function forEachImpact(stored: string, visit: (key: number, weight: number) => void): void {
  const binary = atob(stored);
  let at = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = binary.charCodeAt(at++);
      value += (byte & 127) * scale;
      if (byte < 128) return value;
      scale *= 128;
    }
  };
  const count = varint();
  const keys = new Float64Array(count);
  let key = 0;
  for (let i = 0; i < count; i++) {
    key += varint();
    keys[i] = key;
  }
  for (let i = 0; i < count; i++) visit(keys[i]!, (binary.charCodeAt(at++) * WEIGHT_CEILING) / 255);
}

/**
 * Partial scores by paper key: an open-addressing table (a Map costs about ten times as much at
 * the 100,000 papers a research question's lists hold).
 */
export class PartialScores {
  private keys: Float64Array;
  private scores: Float64Array;
  private mask: number;
  private shift: number;
  size = 0;

  constructor(expected: number) {
    let capacity = 1024;
    while (capacity < expected * 2) capacity *= 2;
    this.keys = new Float64Array(capacity).fill(-1);
    this.scores = new Float64Array(capacity);
    this.mask = capacity - 1;
    this.shift = 32 - Math.log2(capacity);
  }

  add(key: number, score: number): void {
    if (this.size * 2 >= this.keys.length) this.grow();
    // key | 0 is the key's low 32 bits (keys differ there: a mirror's keys span under 2^30);
    // Fibonacci hashing takes the product's high bits.
    let slot = Math.imul(key | 0, 0x9e3779b1) >>> this.shift;
    for (;;) {
      const held = this.keys[slot]!;
      if (held === key) {
        this.scores[slot]! += score;
        return;
      }
      if (held === -1) {
        this.keys[slot] = key;
        this.scores[slot] = score;
        this.size++;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  /** The keys of the `n` highest scores, best first (ties: the higher key first). */
  top(n: number): number[] {
    const best: { key: number; score: number }[] = [];
    let floor = Number.NEGATIVE_INFINITY;
    for (let slot = 0; slot < this.keys.length; slot++) {
      const key = this.keys[slot]!;
      if (key === -1) continue;
      const score = this.scores[slot]!;
      if (best.length >= n && score < floor) continue;
      best.push({ key, score });
      if (best.length >= 2 * n) {
        best.sort((a, b) => b.score - a.score || b.key - a.key);
        best.length = n;
        floor = best[n - 1]!.score;
      }
    }
    best.sort((a, b) => b.score - a.score || b.key - a.key);
    return best.slice(0, n).map((b) => b.key);
  }

  private grow(): void {
    const { keys, scores } = this;
    this.keys = new Float64Array(keys.length * 2).fill(-1);
    this.scores = new Float64Array(keys.length * 2);
    this.mask = this.keys.length - 1;
    this.shift = 32 - Math.log2(this.keys.length);
    this.size = 0;
    for (let slot = 0; slot < keys.length; slot++) if (keys[slot] !== -1) this.add(keys[slot]!, scores[slot]!);
  }
}
