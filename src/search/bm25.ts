// FTS5's bm25() in TypeScript, term for term (sqlite/ext/fts5/fts5_aux.c): k1 = 1.2, b = 0.75,
// idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, the column weights applied to each
// phrase's instance counts, and the document length summed over all columns. The ranker uses it
// to rescore candidates exactly as an exhaustive ORDER BY bm25() would score them.
import { WEIGHTS, phraseCounts, type DocTokens, type Phrase } from "./expression.ts";

const K1 = 1.2;
const B = 0.75;

export interface CorpusStats {
  /** Rows in the index. */
  rows: number;
  /** Tokens in the index, all columns. */
  tokens: number;
}

export function idf(stats: CorpusStats, hits: number): number {
  const value = Math.log((stats.rows - hits + 0.5) / (hits + 0.5));
  return value <= 0 ? 1e-6 : value;
}

/** bm25's length-normalised frequency part for one phrase (weighted count w, document length d). */
export function saturation(weighted: number, length: number, stats: CorpusStats): number {
  const avgdl = stats.tokens / stats.rows;
  return (weighted * (K1 + 1)) / (weighted + K1 * (1 - B + (B * length) / avgdl));
}

export function weightedCount(counts: readonly number[]): number {
  let w = 0;
  for (let c = 0; c < counts.length; c++) w += counts[c]! * WEIGHTS[c]!;
  return w;
}

/** The score FTS5 gives a document (positive: higher is better; FTS5 returns its negative). */
export function score(
  phrases: readonly Phrase[],
  idfs: readonly number[],
  doc: DocTokens,
  stats: CorpusStats,
  counts = phrases.map((p) => phraseCounts(p, doc)),
): number {
  let length = 0;
  for (const column of doc) length += column.length;
  return scoreCounts(idfs, counts, length, stats);
}

/** The same score from each phrase's per-column counts and the document's length in tokens. */
export function scoreCounts(
  idfs: readonly number[],
  counts: readonly number[][],
  length: number,
  stats: CorpusStats,
): number {
  let total = 0;
  for (let i = 0; i < idfs.length; i++) total += idfs[i]! * saturation(weightedCount(counts[i]!), length, stats);
  return total;
}

/** FTS5 varints (SQLite's format: big-endian, 7 bits a byte, the ninth byte whole). */
export function readVarints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    let value = 0;
    for (let k = 0; k < 9; k++) {
      const byte = bytes[i++]!;
      if (k === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    out.push(value);
  }
  return out;
}

/** The index's totals from its averages record (arxiv_papers_fts_data, id 1): rows, then tokens per column. */
export function corpusStats(averages: Uint8Array): CorpusStats {
  const [rows = 0, ...columns] = readVarints(averages);
  return { rows, tokens: columns.reduce((a, b) => a + b, 0) };
}
