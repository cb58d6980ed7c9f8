// The ranker's last stage: the candidates the sources proposed, fetched in one statement (as
// arrays: only the page's papers become objects), scored by BM25 as FTS5 would score them (the
// same statistics, each phrase counted per column in TypeScript; a failed AND inside an OR
// zeroed), sorted, the known item moved first, the page cut. Null when fewer candidates match
// than the page needs: the caller ranks every hit instead.
import { type CorpusStats, idf, scoreCounts } from "./bm25.ts";
import { matchAndZero, type Phrase, phraseCounts, phraseKey, type TextQuery, WEIGHTS } from "./expression.ts";
import { knownItemFirst } from "./known-item.ts";
import { flatOr, isSingleToken } from "./phrase-kinds.ts";
import type { D1Reader, RankRequest, StageMark, StoredText } from "./rank-types.ts";
import type { CandidatePart } from "./sources/candidate-part.ts";
import { countTokens, tokens } from "./tokenize.ts";

/** A fetched candidate while it is scored: its cells as D1 sent them, and what knownItemFirst reads. */
type Candidate = { paper_key: number; title: string; cells: unknown[] };

export interface RescoreContext {
  /** The query's phrases as written. */
  phrases: Phrase[];
  stats: CorpusStats;
  df: Map<string, number>;
  /** Where the page asked for ends. */
  pageEnd: number;
  mark: StageMark;
}

export async function rescoreCandidates<Row extends { paper_key: number }>(
  db: D1Reader,
  request: RankRequest,
  parts: CandidatePart[],
  { phrases, stats, df, pageEnd, mark }: RescoreContext,
): Promise<{ rows: Row[]; method: "candidates"; candidates: number } | null> {
  const candidateSql =
    `SELECT p.paper_key AS paper_key, ${request.select} FROM arxiv_papers p WHERE ` +
    `${parts.map((part) => `p.paper_key IN (${part.sql})`).join(" OR ")}`;
  const binds = parts.flatMap((part) => part.binds);
  const s1 = performance.now();
  // As arrays (D1 sends rows as arrays): only the page's papers become objects.
  const [names, ...candidates] = await db
    .prepare(candidateSql)
    .bind(...binds)
    .raw<unknown[]>({ columnNames: true });
  mark("candidates", s1);
  // (An older D1 sends no column names when no row matched.)
  const columnNames = (names ?? []) as string[];
  const at = (name: keyof StoredText) => columnNames.indexOf(name);
  const [KEY, TITLE, AUTHORS, ABSTRACT, COMMENT, JOURNAL_REF] = [
    at("paper_key"),
    at("title"),
    at("authors"),
    at("abstract"),
    at("comment"),
    at("journal_ref"),
  ];
  const rowOf = (cells: unknown[]) =>
    Object.fromEntries(columnNames.map((name, i) => [name, cells[i]])) as unknown as Row;
  const s2 = performance.now();

  const score = textScorer(request.query, phrases, stats, df);
  const scored: { paper: Candidate; score: number }[] = [];
  // Only a paper whose title holds every word can be the known item (a pasted title's paper).
  const titleHoldsAll = score.wordsOnly ? new Set<number>() : null;
  for (const cells of candidates) {
    const paper: Candidate = { paper_key: cells[KEY] as number, title: (cells[TITLE] as string) ?? "", cells };
    const scoredText = score([
      paper.title,
      (cells[AUTHORS] as string) ?? "",
      (cells[ABSTRACT] as string) ?? "",
      (cells[COMMENT] as string | null) ?? "",
      (cells[JOURNAL_REF] as string | null) ?? "",
    ]);
    if (scoredText === null) continue;
    if (scoredText.titleHasAll) titleHoldsAll!.add(paper.paper_key);
    scored.push({ paper, score: scoredText.score });
  }
  mark("rescore", s2);
  if (scored.length < pageEnd) return null;
  scored.sort((a, b) => b.score - a.score || b.paper.paper_key - a.paper.paper_key);
  const ranked = scored.map((s) => s.paper);
  // The known item moves in the whole candidate order, so later pages never repeat it.
  const ordered = knownItemFirst(
    request.query,
    ranked,
    titleHoldsAll ? (paper) => titleHoldsAll.has(paper.paper_key) : undefined,
  );
  return {
    rows: ordered.slice(request.start, pageEnd).map((paper) => rowOf(paper.cells)),
    method: "candidates",
    candidates: candidates.length,
  };
}

/** A paper's five text columns (title, authors, abstract, comment, journal-ref) -> its BM25 score, or null when it does not match. */
export type TextScorer = ((columns: string[]) => { score: number; titleHasAll: boolean } | null) & {
  /** Every phrase is one word: the title check for the known item is known. */
  wordsOnly: boolean;
};

/**
 * Scores papers as FTS5's bm25() would with these statistics (the index's own, or a sharded
 * mirror's summed over its databases): each phrase counted per column, a failed AND inside an OR
 * zeroed.
 */
export function textScorer(
  query: TextQuery,
  phrases: Phrase[],
  stats: CorpusStats,
  df: Map<string, number>,
): TextScorer {
  const idfs = phrases.map((p) => idf(stats, df.get(phraseKey(p))!));
  // Queries of single words (pasted titles, questions in plain words) need only each word's count
  // per column and the document's length: counted in one pass, no token lists kept.
  const slots = phrases.every(isSingleToken)
    ? new Map([...new Set(phrases.map((p) => p.stems[0]!))].map((word, i) => [word, i]))
    : null;
  // An OR of phrases (plain words) matches whenever one phrase is held, and zeroes nothing.
  const plainOr = flatOr(query);
  // The commonest query (a research question, a pasted title): an OR of plain words, counted into
  // arrays kept for the scorer's life (no arrays per paper), then scored by scoreCounts.
  if (slots && plainOr) return Object.assign(wordOrScorer(phrases, slots, idfs, stats), { wordsOnly: true });
  const scorer = (columns: string[]) => {
    const { counts, length, titleHasAll } = slots
      ? wordCounts(columns, phrases, slots)
      : phraseCountsOf(columns, phrases);
    // Zeroes what FTS5 would not count (a failed AND inside an OR): the score is FTS5's.
    const matched = plainOr
      ? counts.some((perColumn) => perColumn.some((n) => n > 0))
      : matchAndZero(query, new Map(phrases.map((p, i) => [p, counts[i]!])));
    return matched ? { score: scoreCounts(idfs, counts, length, stats), titleHasAll } : null;
  };
  return Object.assign(scorer, { wordsOnly: slots !== null });
}

/**
 * An OR of one-word phrases: each column's counts, and each phrase's counts per column, go into
 * arrays made once (not per paper), and scoreCounts scores them as it scores every other query.
 */
function wordOrScorer(
  phrases: Phrase[],
  slots: Map<string, number>,
  idfs: number[],
  stats: CorpusStats,
): (columns: string[]) => { score: number; titleHasAll: boolean } | null {
  const perColumn = WEIGHTS.map(() => new Array<number>(slots.size).fill(0));
  const counts = phrases.map(() => new Array<number>(WEIGHTS.length).fill(0));
  const slotOf = phrases.map((p) => slots.get(p.stems[0]!)!);
  return (columns) => {
    let length = 0;
    for (let c = 0; c < perColumn.length; c++) {
      perColumn[c]!.fill(0);
      length += countTokens(columns[c] ?? "", slots, perColumn[c]!);
    }
    let matched = false;
    for (let i = 0; i < phrases.length; i++) {
      const column = phrases[i]!.column;
      for (let c = 0; c < perColumn.length; c++) {
        const n = column === null || column === c ? perColumn[c]![slotOf[i]!]! : 0;
        if (n > 0) matched = true;
        counts[i]![c] = n;
      }
    }
    return matched
      ? { score: scoreCounts(idfs, counts, length, stats), titleHasAll: perColumn[0]!.every((n) => n > 0) }
      : null;
  };
}

/** Each phrase's count per column when every phrase is one word: one pass, no token lists kept. */
function wordCounts(columns: string[], phrases: Phrase[], slots: Map<string, number>) {
  let length = 0;
  const perColumn = columns.map((text) => {
    const count = new Array<number>(slots.size).fill(0);
    length += countTokens(text, slots, count);
    return count;
  });
  const counts = phrases.map((p) => {
    const slot = slots.get(p.stems[0]!)!;
    return perColumn.map((count, c) => (p.column === null || p.column === c ? count[slot]! : 0));
  });
  return { counts, length, titleHasAll: perColumn[0]!.every((n) => n > 0) };
}

/** Each phrase's count per column, phrases of several words matched on the columns' tokens. */
function phraseCountsOf(columns: string[], phrases: Phrase[]) {
  const doc = columns.map(tokens);
  let length = 0;
  for (const column of doc) length += column.length;
  // One pass per column counts every token; a single-word phrase is then a lookup.
  const perColumn = doc.map((column) => {
    const count = new Map<string, number>();
    for (const token of column) count.set(token, (count.get(token) ?? 0) + 1);
    return count;
  });
  const counts = phrases.map((p) =>
    isSingleToken(p)
      ? perColumn.map((count, c) => (p.column === null || p.column === c ? (count.get(p.stems[0]!) ?? 0) : 0))
      : phraseCounts(p, doc),
  );
  return { counts, length, titleHasAll: false };
}
