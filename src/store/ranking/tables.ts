// The ranking tables' builder (arxiv_rank_terms, arxiv_rank_champions; migration 0006): for a
// slice of the index's vocabulary, each common term's document frequency and champion list.
// Pure (no runtime imports beyond src/search), so the bench and the seed build them with this
// same code under Node, and the harvest rebuilds them in slices after each run.
import { idf, type CorpusStats } from "../../search/bm25.ts";
import { readStats } from "../../search/rank-statistics.ts";
import { encodeImpacts, impactDepth } from "../../search/impacts.ts";
import { BM25_SQL, CHAMPION_COLUMNS } from "../../search/rank.ts";
import { COLUMNS } from "../../search/expression.ts";
import { stem } from "../../search/tokenize.ts";

/** A term held by at least this many papers (in one column scope) gets a row and a champion list. */
export const RANK_MIN_DOCS = 1_000;
/** Papers kept in each champion list. */
export const CHAMPIONS_PER_TERM = 100;

/**
 * The next slice of the vocabulary after a term: per-column and any-column document counts. The
 * slice's last term is found first (`slice`, joined before the vocabulary tables), so both bounds
 * reach fts5vocab as constraints: a bound computed from the row itself would make it read the whole
 * rest of the index (seconds per slice at 1,000,000 papers, and every slice).
 */
export const VOCAB_SLICE_SQL = `WITH slice(last) AS (SELECT max(term) FROM (SELECT term FROM arxiv_papers_fts_vocab
    WHERE term > ?1 ORDER BY term LIMIT ?2))
  SELECT v.term AS term, v.col AS col, v.doc AS doc FROM slice CROSS JOIN arxiv_papers_fts_vocab_col v
  WHERE v.term > ?1 AND v.term <= slice.last
  UNION ALL SELECT r.term, '*', r.doc FROM slice CROSS JOIN arxiv_papers_fts_vocab r
  WHERE r.term > ?1 AND r.term <= slice.last`;

/** A term's best papers (the champions are the first of them; an any-column term's impact list is all of them). */
export const CHAMPIONS_SQL =
  `SELECT rowid AS k, -${BM25_SQL} AS s FROM arxiv_papers_fts WHERE ` +
  `arxiv_papers_fts MATCH ? ORDER BY s DESC LIMIT ?`;
export const DELETE_TERMS_SQL = "DELETE FROM arxiv_rank_terms WHERE term > ? AND term <= ?";
export const DELETE_CHAMPIONS_SQL = "DELETE FROM arxiv_rank_champions WHERE term > ? AND term <= ?";
export const DELETE_IMPACTS_SQL = "DELETE FROM arxiv_rank_impacts WHERE term > ? AND term <= ?";
/** ?5 stamps the write (a held copy of the list is reused only while the stamp is the same). */
export const INSERT_IMPACTS_SQL =
  "INSERT OR REPLACE INTO arxiv_rank_impacts (term, col, docs, postings, stamp, floor) VALUES (?, ?, ?, ?, ?, ?)";

/** Columns with impact lists: any column, and the title (the words of a pasted title as `ti:`). */
export const IMPACT_COLUMNS: readonly number[] = [-1, 0];
/** A title term held by this many titles gets an impact list (titles are short: the lists are too). */
export const IMPACT_TITLE_MIN_DOCS = 20;
/** ?4: the champion list's floor (listFloor), NULL for a term FTS5 cannot be asked for. */
export const INSERT_TERM_SQL = "INSERT OR REPLACE INTO arxiv_rank_terms (term, col, docs, floor) VALUES (?, ?, ?, ?)";

/** The weight a paper needs to enter a list kept `depth` deep: its last paper's, or 0 while it holds every paper of its term. */
export function listFloor(weights: readonly number[], depth: number): number {
  if (weights.length < depth) return 0;
  let floor = Number.POSITIVE_INFINITY;
  for (const weight of weights) floor = Math.min(floor, weight);
  return floor;
}
/** One champion list in one statement: ?3 is a JSON array of [weight, paper_key]. */
export const INSERT_CHAMPIONS_SQL =
  "INSERT OR REPLACE INTO arxiv_rank_champions (term, col, weight, paper_key) SELECT ?1, ?2, " +
  "json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?3)";

export interface VocabRow {
  term: string;
  col: string;
  doc: number;
}

export interface RankTerm {
  term: string;
  col: number;
  docs: number;
  /** The MATCH that finds its champions, or null when FTS5 would not look this term up as itself. */
  match: string | null;
}

const SUFFIXES = [
  "e",
  "s",
  "ing",
  "ed",
  "es",
  "y",
  "ion",
  "ation",
  "al",
  "ment",
  "ly",
  "ize",
  "ate",
  "ity",
  "ence",
  "ance",
  "er",
  "ous",
  "ive",
  "ic",
];

/**
 * A word that the index's stemmer turns into `term`, to ask FTS5 for the term's papers (FTS5 stems
 * a query's words, and a stored stem often stems again: "embed", from "embedding", becomes "emb").
 * Null when no simple inflection gives it back (none of the 245 such common terms of the
 * 1,000,000-paper bench mirror).
 */
export function surfaceWord(term: string): string | null {
  if (!/^[\p{L}\p{N}]+$/u.test(term)) return null;
  if (stem(term) === term) return term;
  const doubled = term + term.at(-1)!;
  const yToI = `${term.slice(0, -1)}i`;
  for (const base of [term, doubled, yToI])
    for (const suffix of SUFFIXES) if (stem(base + suffix) === term) return base + suffix;
  return null;
}

/** The common terms of a vocabulary slice, each with the MATCH that finds its papers. */
export function commonTerms(rows: readonly VocabRow[], minDocs = RANK_MIN_DOCS): RankTerm[] {
  const out: RankTerm[] = [];
  for (const row of rows) {
    if (row.doc < minDocs) continue;
    const col = row.col === "*" ? -1 : COLUMNS.indexOf(row.col as (typeof COLUMNS)[number]);
    if (!(CHAMPION_COLUMNS as readonly number[]).includes(col)) continue;
    const word = surfaceWord(row.term);
    out.push({
      term: row.term,
      col,
      docs: row.doc,
      match: word === null ? null : col === -1 ? `"${word}"` : `${COLUMNS[col]} : "${word}"`,
    });
  }
  return out;
}

/**
 * The lists one term has: a row, a champion list and (any column) an impact list in each column
 * scope where it is common, and an impact list of the title where it is in enough titles alone.
 * `askable`: the lists FTS5 can be asked for (a MATCH exists).
 */
export function termLists(
  rows: readonly VocabRow[],
  minDocs = RANK_MIN_DOCS,
): { common: RankTerm[]; askable: RankTerm[] } {
  const common = commonTerms(rows, minDocs);
  // Title terms under the champions' threshold get an impact list alone.
  const titleOnly = commonTerms(
    rows.filter((row) => row.col === "title" && row.doc < minDocs),
    Math.min(minDocs, IMPACT_TITLE_MIN_DOCS),
  );
  return { common, askable: [...common, ...titleOnly].filter((t) => t.match !== null) };
}

/** How deep a list is kept: a champion list, or an impact list as deep as the mirror asks. */
export const listDepth = (t: RankTerm, depth: number): number =>
  IMPACT_COLUMNS.includes(t.col) ? depth : CHAMPIONS_PER_TERM;

/** A champion's stored weight: its bm25 for the term, without the idf. */
export function championWeight(score: number, stats: CorpusStats, docs: number): number {
  return score / idf(stats, docs);
}

export interface RankSliceOptions {
  /** Vocabulary terms read per slice. */
  terms?: number;
  minDocs?: number;
  /** Stop taking terms once this much time went by (the rest of the slice is the next one's). */
  budgetMs?: number;
}

export interface RankSliceResult {
  /** The last term done, or null when the vocabulary is finished. */
  last: string | null;
  terms: number;
  lists: number;
}

/**
 * Rebuilds the ranking rows of the terms after `after`, a slice at a time: the vocabulary slice,
 * each common term's champions and (any column, title) impact list, then its old rows replaced in
 * one batch (one transaction in D1).
 */
export async function rankSlice(
  db: D1Database,
  after: string,
  options: RankSliceOptions = {},
): Promise<RankSliceResult> {
  const started = Date.now();
  const { terms: sliceTerms = 200, minDocs = RANK_MIN_DOCS, budgetMs = 5_000 } = options;
  const [averages, vocab] = await db.batch<Record<string, unknown>>([
    db.prepare("SELECT block FROM arxiv_papers_fts_data WHERE id = 1"),
    db.prepare(VOCAB_SLICE_SQL).bind(after, sliceTerms),
  ]);
  const rows = vocab!.results as unknown as VocabRow[];
  if (rows.length === 0) return { last: null, terms: 0, lists: 0 };
  const stats = readStats(averages!.results[0]?.block);
  const depth = impactDepth(stats.rows);
  const byTerm = new Map<string, VocabRow[]>();
  for (const row of rows) byTerm.set(row.term, [...(byTerm.get(row.term) ?? []), row]);
  const ordered = [...byTerm.keys()].sort();
  let last = after;
  const writes: D1PreparedStatement[] = [];
  let terms = 0;
  let lists = 0;
  const stamp = Date.now();
  for (const term of ordered) {
    const { common, askable } = termLists(byTerm.get(term)!, minDocs);
    const hits =
      askable.length === 0
        ? []
        : await db.batch<{ k: number; s: number }>(
            askable.map((t) => db.prepare(CHAMPIONS_SQL).bind(t.match, listDepth(t, depth))),
          );
    const floors = new Map<RankTerm, number>();
    askable.forEach((t, i) => {
      const weighted = hits[i]!.results.map((h) => [h.k, championWeight(h.s, stats, t.docs)] as const);
      if (common.includes(t)) {
        const champions = weighted.slice(0, CHAMPIONS_PER_TERM).map(([k, w]) => [w, k]);
        floors.set(
          t,
          listFloor(
            champions.map(([w]) => w!),
            CHAMPIONS_PER_TERM,
          ),
        );
        writes.push(db.prepare(INSERT_CHAMPIONS_SQL).bind(t.term, t.col, JSON.stringify(champions)));
      }
      if (IMPACT_COLUMNS.includes(t.col)) {
        const floor = listFloor(
          weighted.map(([, w]) => w),
          listDepth(t, depth),
        );
        writes.push(db.prepare(INSERT_IMPACTS_SQL).bind(t.term, t.col, t.docs, encodeImpacts(weighted), stamp, floor));
      }
    });
    for (const t of common) writes.push(db.prepare(INSERT_TERM_SQL).bind(t.term, t.col, t.docs, floors.get(t) ?? null));
    terms += common.length;
    lists += common.filter((t) => t.match !== null).length;
    last = term;
    if (Date.now() - started > budgetMs) break;
  }
  await db.batch([
    db.prepare(DELETE_TERMS_SQL).bind(after, last),
    db.prepare(DELETE_CHAMPIONS_SQL).bind(after, last),
    db.prepare(DELETE_IMPACTS_SQL).bind(after, last),
    ...writes,
  ]);
  return { last, terms, lists };
}
