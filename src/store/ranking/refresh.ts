// The ranking tables kept up with a harvest run's own changes (issue 34). Rebuilding them whole
// after each run re-ranks every common word from the index: minutes of D1 at 1,000,000 papers
// (460 s of SQLite for the bench file), with statements of seconds for the commonest words, while
// a day changes a few thousand papers. Instead:
// 1. The triggers of migration 0013 log each paper whose text changed, with the text the tables
//    were built from (arxiv_rank_changes).
// 2. stage, a slice of changed papers a step: each version is tokenized here as FTS5 tokenizes it
//    (src/search/tokenize.ts) and weighed for each of its terms as the lists weigh papers (bm25
//    for the term alone, without the idf). Rows for the lists that exist are staged
//    (arxiv_rank_staged: the weight now, or NULL where the paper no longer holds the term), and
//    every term a changed paper holds or held is noted (arxiv_rank_touched).
// 3. merge, a slice of touched terms a step: each term's document frequencies are read from the
//    index (the ranker's idf reads them: they must be exact), its lists lose the changed papers'
//    old entries and take their new ones, cut to the list's depth, and a term that became common
//    (or stopped being common) gains (or loses) its rows as a full rebuild would give them.
// A list's unchanged entries keep the weights of their build: those move only with the mean
// document length. planRankRefresh sends a run to a full rebuild when that, or the mirror's size,
// drifted past a bound, when many papers changed since the last full build, or on request.
// The merge is in ranking/merge.ts. Pure (no runtime imports beyond src/search), so the bench
// runs it under Node too.
import { type CorpusStats, saturation, weightedCount } from "../../search/bm25.ts";
import { WEIGHTS } from "../../search/expression.ts";
import { CHAMPION_COLUMNS } from "../../search/rank.ts";
import { readStats } from "../../search/rank-statistics.ts";
import { tokens } from "../../search/tokenize.ts";
import { decodeImpactList, impactDepth, scaledImpacts } from "../../search/impacts.ts";
import { listFloor } from "./tables.ts";
export const RANK_REFRESH = {
  /** Changed papers staged per step. */
  stagePapers: 100,
  /** Staged rows per statement: each statement is its own call, so a search waits for one at most. */
  rowsPerInsert: 2_000,
  /** Papers (staging) or terms (merging) worked through between two yields to the event loop. */
  breatheEvery: 5,
  /** An entry the ranking tables knew is taken out when its weight now is within this share of the floor. */
  floorMargin: 0.02,
  /** Touched terms merged per step, with lists `sizedForDepth` deep (fewer with deeper lists: scaledToDepth). */
  mergeTerms: 50,
  /** Statements per call when a merge writes its lists (each call holds the database a few milliseconds). */
  writesPerCall: 8,
  /**
   * The list depth the step sizes above were measured at (1,000,000 papers). A list 32,000 deep
   * (3,200,000 papers in one database) is 3.2x the bytes to read, decode and write, so a step
   * takes 3.2x fewer terms and a call 3.2x fewer writes: each call holds the database about as
   * long at any size, and searches wait behind it no longer (issue 43: the refresh at 3.2M).
   */
  sizedForDepth: 10_000,
  /** Document frequencies are read in groups whose doclists hold about this many papers (FTS5 walks them). */
  vocabGroupDocs: 150_000,
  /** A full rebuild instead once more papers changed since the last one than this share of the mirror. */
  changedShare: 0.05,
  /** ... or once the mirror's size or its mean document length moved by more than this share. */
  drift: 0.05,
} as const;

/** A step size set at `sizedForDepth`, for lists `depth` deep: the same at that depth or less, smaller past it. */
export function scaledToDepth(size: number, depth: number, least = 1): number {
  return Math.max(least, Math.min(size, Math.round((size * RANK_REFRESH.sizedForDepth) / Math.max(1, depth))));
}

export const STATS_SQL = "SELECT block FROM arxiv_papers_fts_data WHERE id = 1";
export const TERMS_IN = "term IN (SELECT value FROM json_each(?))";

/**
 * Lets the isolate serve what waits (a search) between two pieces of a step's work: a step shares
 * its isolate with searches, and tokenizing or merging for a few hundred milliseconds at a time
 * would hold them back as surely as a long statement.
 */
export const breathe = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

// ---------------------------------------------------------------------------------------------
// What a paper's text weighs

export interface PaperTerms {
  /** Tokens in all columns (FTS5's document length). */
  length: number;
  /** Each term's count in each column. */
  counts: Map<string, number[]>;
}

/** A paper's terms as the index holds them: [title, authors, abstract, comment, journal_ref]. */
export function paperTerms(columns: readonly (string | null)[]): PaperTerms {
  const counts = new Map<string, number[]>();
  let length = 0;
  columns.forEach((text, column) => {
    if (!text) return;
    for (const term of tokens(text)) {
      length++;
      let row = counts.get(term);
      if (row === undefined) counts.set(term, (row = [0, 0, 0, 0, 0]));
      row[column]!++;
    }
  });
  return { length, counts };
}

const holds = (counts: readonly number[], col: number) => (col === -1 ? counts.some((n) => n > 0) : counts[col]! > 0);

/** A paper's weight in a term's list for a column scope: what bm25 gives it for the term alone, without the idf. */
export function termWeight(counts: readonly number[], col: number, length: number, stats: CorpusStats): number {
  const weighted = col === -1 ? weightedCount(counts) : counts[col]! * WEIGHTS[col]!;
  return saturation(weighted, length, stats);
}

/** The index's totals now (papers, tokens). */
export async function indexStats(db: D1Database): Promise<CorpusStats> {
  return readStats(await db.prepare(STATS_SQL).first("block"));
}

// ---------------------------------------------------------------------------------------------
// The plan

export interface RankPlan {
  full: boolean;
  why: string;
}

interface BuildRow {
  rows: number;
  tokens: number | null;
  changed_since: number;
  full_requested: number;
}

/** Full rebuild or the changes only, and why. */
export async function planRankRefresh(db: D1Database): Promise<RankPlan> {
  const [statsRows, buildRows] = await db.batch<Record<string, unknown>>([
    db.prepare(STATS_SQL),
    db.prepare("SELECT rows, tokens, changed_since, full_requested FROM arxiv_rank_build WHERE id = 1"),
  ]);
  const stats = readStats(statsRows!.results[0]?.block);
  const build = buildRows!.results[0] as unknown as BuildRow | undefined;
  if (build === undefined) return { full: true, why: "no full build yet" };
  if (build.full_requested) return { full: true, why: "a full rebuild was asked for" };
  const bound = Math.ceil(RANK_REFRESH.changedShare * Math.max(build.rows, stats.rows));
  const pending = await db
    .prepare("SELECT count(*) AS n FROM (SELECT 1 FROM arxiv_rank_changes LIMIT ?)")
    .bind(bound + 1)
    .first<number>("n");
  const changed = build.changed_since + (pending ?? 0);
  if (changed > bound) return { full: true, why: `more than ${bound} papers changed since the last full build` };
  const grown = Math.abs(stats.rows / Math.max(1, build.rows) - 1);
  if (grown > RANK_REFRESH.drift)
    return { full: true, why: `the mirror went from ${build.rows} to ${stats.rows} papers since the last full build` };
  if (build.tokens !== null) {
    const drift = Math.abs(stats.tokens / stats.rows / (build.tokens / Math.max(1, build.rows)) - 1);
    if (drift > RANK_REFRESH.drift)
      return {
        full: true,
        why: `the mean document length moved by ${(drift * 100).toFixed(1)}% since the last full build`,
      };
  }
  return { full: false, why: `${pending ?? 0} changed papers to merge (${changed} since the last full build)` };
}

/** The record of a full build just finished: the bounds count from it. */
export function fullBuildStatement(db: D1Database, stats: CorpusStats, now: string): D1PreparedStatement {
  return db
    .prepare(
      `INSERT OR REPLACE INTO arxiv_rank_build (id, built_at, rows, tokens, changed_since, refreshed_at, full_requested)
       VALUES (1, ?1, ?2, ?3, 0, ?1, 0)`,
    )
    .bind(now, stats.rows, stats.tokens);
}

/** A merge just finished: its papers count toward the next full build. */
export function refreshedStatement(
  db: D1Database,
  papers: number,
  stats: CorpusStats,
  now: string,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE arxiv_rank_build SET changed_since = changed_since + ?1, refreshed_at = ?2,
         rows = CASE WHEN tokens IS NULL THEN ?3 ELSE rows END, tokens = coalesce(tokens, ?4) WHERE id = 1`,
    )
    .bind(papers, now, stats.rows, stats.tokens);
}

/** A cold run begins: the change log stops, and the run ends in a full rebuild (no build to merge into). */
export function forgetFullBuildStatement(db: D1Database): D1PreparedStatement {
  return db.prepare("DELETE FROM arxiv_rank_build");
}

/** The next run rebuilds whole (POST /admin/harvest?...&rank=full). */
export function requestFullRebuildStatement(db: D1Database): D1PreparedStatement {
  return db.prepare("UPDATE arxiv_rank_build SET full_requested = 1 WHERE id = 1");
}

/**
 * Before a full rebuild: what was logged and staged goes (the rebuild reads the index as it is
 * now), a chunk per call. True when nothing is left.
 */
export async function clearRankChanges(db: D1Database, chunk = 50_000): Promise<boolean> {
  const [, , , left] = await db.batch<{ n: number }>([
    db
      .prepare(
        "DELETE FROM arxiv_rank_changes WHERE paper_key IN (SELECT paper_key FROM arxiv_rank_changes ORDER BY paper_key LIMIT ?)",
      )
      .bind(chunk),
    db
      .prepare(
        "DELETE FROM arxiv_rank_staged WHERE term IN (SELECT term FROM arxiv_rank_touched ORDER BY term LIMIT ?)",
      )
      .bind(Math.ceil(chunk / 1_000)),
    db
      .prepare(
        "DELETE FROM arxiv_rank_touched WHERE term IN (SELECT term FROM arxiv_rank_touched ORDER BY term LIMIT ?)",
      )
      .bind(Math.ceil(chunk / 1_000)),
    db.prepare("SELECT EXISTS (SELECT 1 FROM arxiv_rank_changes) + EXISTS (SELECT 1 FROM arxiv_rank_touched) AS n"),
  ]);
  return (left!.results[0]?.n ?? 0) === 0;
}

// ---------------------------------------------------------------------------------------------
// stage

export interface StageResult {
  /** The last changed paper staged, or null when none was left. */
  last: number | null;
  papers: number;
  staged: number;
  /** The staged rows, a statement each: idempotent, so the caller runs each alone, before `writes`. */
  rows: D1PreparedStatement[];
  /** The rest of its writes: the caller runs them in one batch with its checkpoint. */
  writes: D1PreparedStatement[];
}

const CHANGED_SQL = `SELECT c.paper_key AS paper_key, c.old_text AS old_text, p.title AS title, p.authors AS authors,
    p.abstract AS abstract, p.comment AS comment, p.journal_ref AS journal_ref
  FROM arxiv_rank_changes c LEFT JOIN arxiv_papers p ON p.paper_key = c.paper_key
  WHERE c.paper_key > ? ORDER BY c.paper_key LIMIT ?`;
/** The lists that exist among some terms, by scope, with their floors (NULL: not known yet): from indexes alone (migration 0015). */
export const TRACKED_SQL = `SELECT term, col, floor FROM arxiv_rank_terms WHERE ${TERMS_IN}
  UNION ALL SELECT term, col, floor FROM arxiv_rank_impacts WHERE ${TERMS_IN}`;

interface ChangedRow {
  paper_key: number;
  old_text: string | null;
  title: string | null;
  authors: string | null;
  abstract: string | null;
  comment: string | null;
  journal_ref: string | null;
}

/** Each list scope's floor among some terms (the lower of its champion and impact lists'). */
async function trackedFloors(db: D1Database, terms: Set<string>): Promise<Map<string, number>> {
  const json = JSON.stringify([...terms]);
  const rows = (
    await db.prepare(TRACKED_SQL).bind(json, json).all<{ term: string; col: number; floor: number | null }>()
  ).results;
  const floors = new Map<string, number>();
  for (const r of rows) {
    const key = `${r.col}|${r.term}`;
    floors.set(key, Math.min(floors.get(key) ?? Number.POSITIVE_INFINITY, r.floor ?? 0));
  }
  return floors;
}

/**
 * Stages the changed papers after `after` (a paper key), `papers` of them: for each list a changed
 * paper can enter (its weight now at least the list's floor) its weight, and for each list it may
 * have been in (its old text's weight near the floor or above) NULL when it cannot stay.
 */
export async function stageRankChanges(
  db: D1Database,
  after: number,
  papers: number = RANK_REFRESH.stagePapers,
): Promise<StageResult> {
  const [statsRows, changedRows] = await db.batch<Record<string, unknown>>([
    db.prepare(STATS_SQL),
    db.prepare(CHANGED_SQL).bind(after, papers),
  ]);
  const changed = changedRows!.results as unknown as ChangedRow[];
  if (changed.length === 0) return { last: null, papers: 0, staged: 0, rows: [], writes: [] };
  const stats = readStats(statsRows!.results[0]?.block);
  const versions: { key: number; now: PaperTerms | null; before: PaperTerms | null }[] = [];
  const touched = new Set<string>();
  for (const [i, row] of changed.entries()) {
    if (i % RANK_REFRESH.breatheEvery === 0) await breathe();
    // A deleted paper has no row now; a paper new since the build had no old text.
    const now =
      row.title === null ? null : paperTerms([row.title, row.authors, row.abstract, row.comment, row.journal_ref]);
    const before = row.old_text === null ? null : paperTerms(JSON.parse(row.old_text) as (string | null)[]);
    for (const term of now?.counts.keys() ?? []) touched.add(term);
    for (const term of before?.counts.keys() ?? []) touched.add(term);
    versions.push({ key: row.paper_key, now, before });
  }
  const floors = await trackedFloors(db, touched);
  const staged: [string, number, number, number | null][] = [];
  for (const [i, { key, now, before }] of versions.entries()) {
    if (i % RANK_REFRESH.breatheEvery === 0) await breathe();
    for (const term of new Set([...(now?.counts.keys() ?? []), ...(before?.counts.keys() ?? [])])) {
      const nowCounts = now?.counts.get(term);
      const beforeCounts = before?.counts.get(term);
      for (const col of CHAMPION_COLUMNS) {
        const floor = floors.get(`${col}|${term}`);
        if (floor === undefined) continue;
        const weight =
          nowCounts !== undefined && holds(nowCounts, col) ? termWeight(nowCounts, col, now!.length, stats) : null;
        if (weight !== null && weight >= floor) staged.push([term, col, key, weight]);
        else if (
          beforeCounts !== undefined &&
          holds(beforeCounts, col) &&
          termWeight(beforeCounts, col, before!.length, stats) >= floor * (1 - RANK_REFRESH.floorMargin)
        )
          staged.push([term, col, key, null]);
      }
    }
  }
  const last = changed.at(-1)!.paper_key;
  const rows: D1PreparedStatement[] = [];
  for (let i = 0; i < staged.length; i += RANK_REFRESH.rowsPerInsert)
    rows.push(
      db
        .prepare(
          "INSERT OR REPLACE INTO arxiv_rank_staged (term, col, paper_key, weight) " +
            "SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)",
        )
        .bind(JSON.stringify(staged.slice(i, i + RANK_REFRESH.rowsPerInsert))),
    );
  const writes = [
    db
      .prepare("INSERT OR IGNORE INTO arxiv_rank_touched (term) SELECT value FROM json_each(?)")
      .bind(JSON.stringify([...touched])),
    db.prepare("DELETE FROM arxiv_rank_changes WHERE paper_key > ? AND paper_key <= ?").bind(after, last),
  ];
  return { last, papers: changed.length, staged: staged.length, rows, writes };
}

/** The impact lists whose floors are not known yet (built before floors were kept): `lists` of them get one. */
export async function setImpactFloors(
  db: D1Database,
  lists = 100,
): Promise<{ done: boolean; writes: D1PreparedStatement[] }> {
  const [statsRows, rows] = await db.batch<Record<string, unknown>>([
    db.prepare(STATS_SQL),
    db.prepare("SELECT term, col, postings FROM arxiv_rank_impacts WHERE floor IS NULL LIMIT ?").bind(lists),
  ]);
  const depth = impactDepth(readStats(statsRows!.results[0]?.block).rows);
  const writes: D1PreparedStatement[] = [];
  for (const [i, r] of (rows!.results as { term: string; col: number; postings: string }[]).entries()) {
    if (i % RANK_REFRESH.breatheEvery === 0) await breathe();
    const { scores } = scaledImpacts(decodeImpactList(r.postings));
    // A list built a little shallower than today's depth (the mirror grew) is still a cut list.
    const floor = listFloor(Array.from(scores), Math.floor(depth * (1 - RANK_REFRESH.drift)));
    writes.push(
      db.prepare("UPDATE arxiv_rank_impacts SET floor = ? WHERE term = ? AND col = ?").bind(floor, r.term, r.col),
    );
  }
  return { done: rows!.results.length < lists, writes };
}
