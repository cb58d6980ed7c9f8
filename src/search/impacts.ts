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

/** Papers in ascending key order, each with a score: a decoded impact list or a rare word's hits. */
export interface KeyedScores {
  keys: Float64Array;
  scores: Float64Array;
}

/**
 * A stored list decoded once, held between requests (impact-cache.ts): each paper's key as an
 * offset from the first and its quantized weight, five bytes a paper, about what the stored text
 * takes. An offset fits in 32 bits: keys are month index x 10^6 + position (arxiv-key.ts), and the
 * IDs' two-digit years span 1991-2090, 1.2 x 10^9 apart at most.
 */
export interface DecodedImpacts {
  base: number;
  offsets: Uint32Array;
  weights: Uint8Array;
}

export function decodeImpactList(stored: string): DecodedImpacts {
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
  const offsets = new Uint32Array(count);
  const base = count > 0 ? varint() : 0;
  let offset = 0;
  for (let i = 1; i < count; i++) {
    offset += varint();
    offsets[i] = offset;
  }
  const weights = new Uint8Array(count);
  for (let i = 0; i < count; i++) weights[i] = binary.charCodeAt(at++);
  return { base, offsets, weights };
}

/** A decoded list's papers with their weights multiplied by `factor` (the word's idf times its repeats in the query). */
export function scaledImpacts({ base, offsets, weights }: DecodedImpacts, factor = 1): KeyedScores {
  const keys = new Float64Array(offsets.length);
  const scores = new Float64Array(offsets.length);
  const step = (factor * WEIGHT_CEILING) / 255;
  for (let i = 0; i < offsets.length; i++) {
    keys[i] = base + offsets[i]!;
    scores[i] = weights[i]! * step;
  }
  return { keys, scores };
}

/** A stored list, each weight multiplied by `factor`. */
export function decodeImpacts(stored: string, factor = 1): KeyedScores {
  return scaledImpacts(decodeImpactList(stored), factor);
}

/** Open-addressing slots of the per-range table: a range's papers fit in a quarter of them, in L2 cache. */
const RANGE_SLOTS = 4_096;

/**
 * The keys of the `n` best sums over key-sorted lists (ties: the higher key first). A research
 * question's lists hold about 100,000 papers, mostly in one list each: a hash table that big
 * misses the cache on every add (about 7 ms). The lists are summed a key range at a time
 * instead, each range's papers (about 1,500, ranges cut at quantiles of a sample of every list's
 * keys) in a small table that stays in cache: about 2 ms with the decoding.
 */
export function bestSums(lists: readonly KeyedScores[], n: number): number[] {
  const total = lists.reduce((sum, list) => sum + list.keys.length, 0);
  if (total === 0 || n <= 0) return [];
  // Every 32nd key of each list, sorted as numbers (a typed array sorts without a comparator).
  const sample = new Float64Array(lists.reduce((n, { keys }) => n + (keys.length >> 5), 0));
  let sampled = 0;
  for (const { keys } of lists) for (let i = 31; i < keys.length; i += 32) sample[sampled++] = keys[i]!;
  sample.sort();
  const bounds: number[] = [];
  for (let i = 31; i < sample.length; i += 32) bounds.push(sample[i]!);
  bounds.push(Number.POSITIVE_INFINITY);

  const table = new RangeTable(RANGE_SLOTS);
  const sumKeys = new Float64Array(total);
  const sums = new Float64Array(total);
  let summed = 0;
  const next = new Int32Array(lists.length);
  for (const bound of bounds) {
    for (let l = 0; l < lists.length; l++) {
      const { keys, scores } = lists[l]!;
      let i = next[l]!;
      for (; i < keys.length && keys[i]! < bound; i++) table.add(keys[i]!, scores[i]!);
      next[l] = i;
    }
    summed = table.drain(sumKeys, sums, summed);
  }
  return bestKeys(sumKeys.subarray(0, summed), sums.subarray(0, summed), n);
}

/** Sums by key for one key range: open addressing, emptied after each range. */
class RangeTable {
  private keys: Float64Array;
  private scores: Float64Array;
  private used: Int32Array;
  private usedCount = 0;
  private mask: number;
  private shift: number;

  constructor(slots: number) {
    this.keys = new Float64Array(slots).fill(-1);
    this.scores = new Float64Array(slots);
    this.used = new Int32Array(slots);
    this.mask = slots - 1;
    this.shift = 32 - Math.log2(slots);
  }

  add(key: number, score: number): void {
    // A range denser than the sample said: a bigger table.
    if (this.usedCount * 2 >= this.keys.length) this.grow();
    const keys = this.keys;
    // Fibonacci hashing of the key's low 32 bits (keys differ there within a range).
    let slot = Math.imul(key | 0, 0x9e3779b1) >>> this.shift;
    for (;;) {
      const held = keys[slot]!;
      if (held === key) {
        this.scores[slot]! += score;
        return;
      }
      if (held === -1) {
        keys[slot] = key;
        this.scores[slot] = score;
        this.used[this.usedCount++] = slot;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  /** Appends the range's sums at `at` and empties the table; returns the new end. */
  drain(outKeys: Float64Array, outScores: Float64Array, at: number): number {
    let end = at;
    for (let u = 0; u < this.usedCount; u++) {
      const slot = this.used[u]!;
      outKeys[end] = this.keys[slot]!;
      outScores[end++] = this.scores[slot]!;
      this.keys[slot] = -1;
    }
    this.usedCount = 0;
    return end;
  }

  private grow(): void {
    const keys = new Float64Array(this.usedCount);
    const scores = new Float64Array(this.usedCount);
    this.drain(keys, scores, 0);
    const slots = this.keys.length * 2;
    this.keys = new Float64Array(slots).fill(-1);
    this.scores = new Float64Array(slots);
    this.used = new Int32Array(slots);
    this.mask = slots - 1;
    this.shift = 32 - Math.log2(slots);
    for (let i = 0; i < keys.length; i++) this.add(keys[i]!, scores[i]!);
  }
}

/** The keys of the `n` highest scores, best first: a histogram finds the cut, then only those above it are sorted. */
function bestKeys(keys: Float64Array, scores: Float64Array, n: number): number[] {
  let max = 0;
  for (let i = 0; i < scores.length; i++) if (scores[i]! > max) max = scores[i]!;
  const buckets = new Uint32Array(1_024);
  const scale = (buckets.length - 1) / (max || 1);
  for (let i = 0; i < scores.length; i++) buckets[Math.floor(Math.max(0, scores[i]!) * scale)]!++;
  let cut = buckets.length - 1;
  for (let seen = 0; cut > 0; cut--) {
    seen += buckets[cut]!;
    if (seen >= n) break;
  }
  const best: { key: number; score: number }[] = [];
  for (let i = 0; i < scores.length; i++)
    if (Math.floor(Math.max(0, scores[i]!) * scale) >= cut) best.push({ key: keys[i]!, score: scores[i]! });
  best.sort((a, b) => b.score - a.score || b.key - a.key);
  return best.slice(0, n).map((b) => b.key);
}
