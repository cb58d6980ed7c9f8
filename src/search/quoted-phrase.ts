// A search of quoted phrases only (a quoted title): ranked exhaustively by FTS5, one statement
// giving the page and the count, unless one phrase of three or more words can be checked exactly
// in TypeScript on the few papers holding its rarest words together (verifiedPhrase).
import { idf, scoreCounts } from "./bm25.ts";
import { BM25_SQL } from "./bm25-sql.ts";
import { phrase, phraseCounts, toMatch, type Phrase } from "./expression.ts";
import { knownItemFirst } from "./known-item.ts";
import { readStats } from "./rank-statistics.ts";
import type { RANK_TUNING } from "./rank-tuning.ts";
import type { D1Reader, RankRequest, RankResult, StageMark, StoredText } from "./rank-types.ts";
import { tokens } from "./tokenize.ts";

import { broadPhraseReason, phraseWork, verifiable } from "./too-broad.ts";

/**
 * Only phrases of several words (a quoted title): no candidate source serves them (each phrase
 * reads its words' whole doclists), so they are ranked exhaustively, and one statement gives the
 * page and the count (the same intersection, read once), unless verifiedPhrase ranks them exactly
 * without FTS5's phrase walk.
 */
export async function rankPhrasesOnly<Row extends { paper_key: number }>(
  db: D1Reader,
  request: RankRequest,
  tuning: typeof RANK_TUNING,
  mark: StageMark,
): Promise<RankResult<Row>> {
  const verified = await verifiedPhrase<Row>(db, request, tuning, mark);
  if (verified !== null) return verified;
  const s5 = performance.now();
  const { results } = await db
    .prepare(
      // bm25() cannot sit beside a window function: the hits are scored in a materialized CTE first.
      `WITH hits AS MATERIALIZED (SELECT rowid AS k, ${BM25_SQL} AS s FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?)
       SELECT p.paper_key AS paper_key, ${request.select}, t.total AS total FROM
         (SELECT k, s, count(*) OVER () AS total FROM hits ORDER BY s ${request.ascending ? "DESC" : "ASC"},
           k ${request.ascending ? "ASC" : "DESC"} LIMIT ? OFFSET ?) t
       JOIN arxiv_papers p ON p.paper_key = t.k ORDER BY t.s ${request.ascending ? "DESC" : "ASC"}, t.k
         ${request.ascending ? "ASC" : "DESC"}`,
    )
    .bind(toMatch(request.query), request.limit, request.start)
    .all<Row & { total: number }>();
  mark("exhaustive", s5);
  // A page past the last hit has no row to carry the total: count it (a rare request).
  const total = results[0]?.total ?? (await request.count().first<{ matched: number }>())?.matched ?? 0;
  const rows = results.map(({ total: _total, ...row }) => row as unknown as Row);
  return {
    rows: request.reference ? rows : knownItemFirst(request.query, rows),
    counted: { scanned: total, matched: total },
    method: "exhaustive",
    candidates: 0,
  };
}

/**
 * A quoted phrase of three or more words (a quoted title), ranked exactly without FTS5's phrase
 * query: that query walks every word's doclist with its positions, and a title's common words
 * ("of", "the") are held by most of the mirror (a quoted title took 100-1,600 ms at 3.2 million
 * papers). Every paper holding the phrase holds its rarest words, so the papers holding those
 * together (an intersection of short doclists) are fetched, tokenized, and kept where the words
 * stand adjacent and in order; the hits, their count and their bm25 (the phrase's idf from that
 * count, as FTS5 takes it) are then exact. Null when those papers are more than `cap` (the
 * phrase's words are all common): the caller ranks it with FTS5.
 */
async function verifiedPhrase<Row extends { paper_key: number }>(
  db: D1Reader,
  request: RankRequest,
  tuning: typeof RANK_TUNING,
  mark: StageMark,
): Promise<RankResult<Row> | null> {
  const query = request.query;
  if (query.kind !== "phrase" || !verifiable(query) || request.reference) return null;
  const cap = tuning.verifiedPhraseHits;
  const started = performance.now();
  // Each distinct word as a phrase of its own (a word of several tokens, u(1), stays a phrase), in the phrase's column.
  const words = [...new Set(query.words)].map((word) => phrase([word], query.column));
  const [frequencies, totals] = await db.batch<Record<string, unknown>>([
    db
      .prepare(
        `SELECT coalesce((SELECT docs FROM arxiv_rank_terms WHERE term = w.value ->> 0 AND col = -1),
                (SELECT count(*) FROM (SELECT 1 FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH w.value ->> 1 LIMIT 100000))) AS n
         FROM json_each(?) w ORDER BY w.key`,
      )
      .bind(JSON.stringify(words.map((w) => [w.stems[0], toMatch({ ...w, column: null })]))),
    db.prepare("SELECT block FROM arxiv_papers_fts_data WHERE id = 1"),
  ]);
  const stats = readStats(totals!.results[0]?.block);
  const df = (frequencies!.results as { n: number }[]).map((r) => Number(r.n));
  // The rarest words, at least two, until the papers expected to hold them all are a handful.
  const byRarity = words.map((w, i) => ({ w, n: df[i]! })).sort((a, b) => a.n - b.n);
  const chosen: Phrase[] = [];
  let expected = stats.rows;
  for (const { w, n } of byRarity.slice(0, 4)) {
    if (chosen.length >= 2 && expected <= 5) break;
    chosen.push(w);
    expected = (expected * n) / Math.max(1, stats.rows);
  }
  if (stats.rows === 0) return null;
  if (expected > cap) {
    // FTS5 would walk the phrase: refused when its words are all common (tooBroad left it here).
    const tokenDocs = new Map(
      words.flatMap((w, i) =>
        w.stems
          .join(" ")
          .split(" ")
          .map((token) => [token, df[i]!]),
      ),
    );
    const work = phraseWork(
      query.stems
        .join(" ")
        .split(" ")
        .map((token) => tokenDocs.get(token) ?? 0),
      stats.rows,
    );
    return work > tuning.phraseMaxWork
      ? { live: broadPhraseReason([query], work), counted: { scanned: 0, matched: 0 } }
      : null;
  }
  const together = toMatch({ kind: "and", children: chosen });
  const [counted, fetched] = await db.batch<Record<string, unknown>>([
    db
      .prepare(
        `SELECT count(*) AS n FROM (SELECT 1 FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ? LIMIT ${cap + 1})`,
      )
      .bind(together),
    // The rows only when they are few (the same count, evaluated once).
    db
      .prepare(
        `SELECT p.paper_key AS paper_key, ${request.select} FROM arxiv_papers p
         WHERE p.paper_key IN (SELECT rowid FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?)
           AND (SELECT count(*) FROM (SELECT 1 FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ? LIMIT ${cap + 1})) <= ${cap}`,
      )
      .bind(together, together),
  ]);
  if (Number((counted!.results[0] as { n: number } | undefined)?.n ?? 0) > cap) return null;
  const hits: { row: Row; counts: number[]; length: number }[] = [];
  for (const row of fetched!.results as unknown as (Row & StoredText)[]) {
    const doc = [row.title, row.authors, row.abstract, row.comment ?? "", row.journal_ref ?? ""].map(tokens);
    const counts = phraseCounts(query, doc);
    if (counts.some((n) => n > 0))
      hits.push({ row, counts, length: doc.reduce((sum, column) => sum + column.length, 0) });
  }
  const phraseIdf = [idf(stats, hits.length)];
  const direction = request.ascending ? -1 : 1;
  const ranked = hits
    .map((hit) => ({ row: hit.row, score: scoreCounts(phraseIdf, [hit.counts], hit.length, stats) }))
    .sort((a, b) => direction * (b.score - a.score) || direction * (b.row.paper_key - a.row.paper_key))
    .map((hit) => hit.row);
  mark("verified phrase", started);
  return {
    rows: knownItemFirst(query, ranked).slice(request.start, request.start + request.limit),
    counted: { scanned: hits.length, matched: hits.length },
    method: "verified",
    candidates: hits.length,
  };
}
