// The merge of a run's staged changes into the ranking tables (step 3 of
// src/store/ranking/refresh.ts), a slice of touched terms a step: each term's document
// frequencies read from the index, its lists merged with the staged entries, and a term that became
// (or stopped being) common given (or stripped of) its rows as a full rebuild would.
import { decodeImpactList, encodeImpacts, impactDepth, scaledImpacts } from "../../search/impacts.ts";
import { CHAMPION_COLUMNS } from "../../search/rank.ts";
import { readStats } from "../../search/rank-statistics.ts";
import { breathe, RANK_REFRESH, scaledToDepth, STATS_SQL, TERMS_IN } from "./refresh.ts";
import {
  CHAMPIONS_PER_TERM,
  CHAMPIONS_SQL,
  championWeight,
  IMPACT_COLUMNS,
  INSERT_CHAMPIONS_SQL,
  INSERT_IMPACTS_SQL,
  INSERT_TERM_SQL,
  listDepth,
  listFloor,
  RANK_MIN_DOCS,
  type RankTerm,
  termLists,
  type VocabRow,
} from "./tables.ts";

export interface MergeOptions {
  terms?: number;
  minDocs?: number;
}

export interface MergeResult {
  /** The last touched term merged, or null when none was left. */
  last: string | null;
  terms: number;
  /** The impact lists' depth at the mirror's size now: the caller sizes its write calls by it. */
  depth: number;
  /** Lists written (champion and impact lists; term rows apart). */
  lists: number;
  /**
   * Each term's list writes, a group each (its champions' delete and insert stay together): a
   * merge is idempotent (a list merged twice with the same changes is the same list), so the
   * caller runs them in small batches, before `writes`.
   */
  groups: D1PreparedStatement[][];
  /** The rest (the slice's staged rows and touched terms deleted): one batch with the checkpoint. */
  writes: D1PreparedStatement[];
}

type Entries = [key: number, weight: number][];

/** A list after the changes: the changed papers' entries out, their new ones in, the best `depth` kept. */
export function mergeEntries(entries: Entries, changes: ReadonlyMap<number, number | null>, depth: number): Entries {
  const merged: Entries = entries.filter(([key]) => !changes.has(key));
  for (const [key, weight] of changes) if (weight !== null) merged.push([key, weight]);
  merged.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return merged.slice(0, depth);
}

const sameEntries = (a: Entries, b: Entries) =>
  a.length === b.length && a.every(([key, weight], i) => key === b[i]![0] && weight === b[i]![1]);

/** What the slice's terms have now, by `${col}|${term}`. */
interface Held {
  docs: Map<string, number>;
  /** The champion lists' floors, on their term rows. */
  floors: Map<string, number | null>;
  champions: Map<string, Entries>;
  impacts: Map<string, { docs: number; entries: Entries }>;
  staged: Map<string, Map<number, number | null>>;
}

async function readHeld(db: D1Database, terms: string[]): Promise<Held> {
  const json = JSON.stringify(terms);
  const [termRows, championRows, impactRows, stagedRows] = await db.batch<Record<string, unknown>>([
    db.prepare(`SELECT term, col, docs, floor FROM arxiv_rank_terms WHERE ${TERMS_IN}`).bind(json),
    db.prepare(`SELECT term, col, weight, paper_key FROM arxiv_rank_champions WHERE ${TERMS_IN}`).bind(json),
    db.prepare(`SELECT term, col, docs, postings FROM arxiv_rank_impacts WHERE ${TERMS_IN}`).bind(json),
    db
      .prepare("SELECT term, col, paper_key, weight FROM arxiv_rank_staged WHERE term >= ? AND term <= ?")
      .bind(terms[0], terms.at(-1)),
  ]);
  const held: Held = {
    docs: new Map(),
    floors: new Map(),
    champions: new Map(),
    impacts: new Map(),
    staged: new Map(),
  };
  for (const r of termRows!.results as { term: string; col: number; docs: number; floor: number | null }[]) {
    held.docs.set(`${r.col}|${r.term}`, r.docs);
    held.floors.set(`${r.col}|${r.term}`, r.floor);
  }
  for (const r of championRows!.results as { term: string; col: number; weight: number; paper_key: number }[]) {
    const key = `${r.col}|${r.term}`;
    const list = held.champions.get(key) ?? [];
    if (list.length === 0) held.champions.set(key, list);
    list.push([r.paper_key, r.weight]);
  }
  for (const list of held.champions.values()) list.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  for (const [i, r] of (
    impactRows!.results as { term: string; col: number; docs: number; postings: string }[]
  ).entries()) {
    if (i % RANK_REFRESH.breatheEvery === 0) await breathe();
    const { keys, scores } = scaledImpacts(decodeImpactList(r.postings));
    const entries: Entries = Array.from(keys, (key, i) => [key, scores[i]!]);
    held.impacts.set(`${r.col}|${r.term}`, { docs: r.docs, entries });
  }
  for (const r of stagedRows!.results as { term: string; col: number; paper_key: number; weight: number | null }[]) {
    const key = `${r.col}|${r.term}`;
    const changes = held.staged.get(key) ?? new Map<number, number | null>();
    if (changes.size === 0) held.staged.set(key, changes);
    changes.set(r.paper_key, r.weight);
  }
  return held;
}

/**
 * Each term's document frequencies in every scope, from the index. FTS5 counts them by walking
 * the term's doclist, so the terms are asked in groups that walk about `vocabGroupDocs` papers,
 * each group its own call: no statement holds the database long, and searches go in between.
 */
async function readVocabulary(db: D1Database, terms: string[], known: Map<string, number>): Promise<VocabRow[]> {
  const groups: string[][] = [[]];
  let walked = 0;
  for (const term of terms) {
    const cost = known.get(`-1|${term}`) ?? 0;
    if (walked + cost > RANK_REFRESH.vocabGroupDocs && groups.at(-1)!.length > 0) {
      groups.push([]);
      walked = 0;
    }
    groups.at(-1)!.push(term);
    walked += cost;
  }
  const rows: VocabRow[] = [];
  for (const group of groups) {
    const json = JSON.stringify(group);
    const [perColumn, any] = await db.batch<VocabRow>([
      db.prepare(`SELECT term, col, doc FROM arxiv_papers_fts_vocab_col WHERE ${TERMS_IN}`).bind(json),
      db.prepare(`SELECT term, '*' AS col, doc FROM arxiv_papers_fts_vocab WHERE ${TERMS_IN}`).bind(json),
    ]);
    rows.push(...perColumn!.results, ...any!.results);
  }
  return rows;
}

/** Merges the staged changes into the lists of the touched terms after `after`. */
export async function mergeRankTerms(db: D1Database, after: string, options: MergeOptions = {}): Promise<MergeResult> {
  const { terms: sliceTerms = RANK_REFRESH.mergeTerms, minDocs = RANK_MIN_DOCS } = options;
  const [statsRows, sliceRows] = await db.batch<Record<string, unknown>>([
    db.prepare(STATS_SQL),
    db.prepare("SELECT term FROM arxiv_rank_touched WHERE term > ? ORDER BY term LIMIT ?").bind(after, sliceTerms),
  ]);
  const stats = readStats(statsRows!.results[0]?.block);
  const depth = impactDepth(stats.rows);
  // Deeper lists (a larger mirror): fewer terms, so that a step's calls stay as short.
  const terms = (sliceRows!.results as { term: string }[])
    .map((r) => r.term)
    .slice(0, scaledToDepth(sliceTerms, depth));
  if (terms.length === 0) return { last: null, terms: 0, depth, lists: 0, groups: [], writes: [] };
  const held = await readHeld(db, terms);
  const vocabulary = new Map<string, VocabRow[]>();
  for (const row of await readVocabulary(db, terms, held.docs))
    vocabulary.set(row.term, [...(vocabulary.get(row.term) ?? []), row]);
  const out = new ListWrites(db, depth);
  const fromIndex: { t: RankTerm; isChampion: boolean }[] = [];
  for (const term of terms)
    fromIndex.push(...mergeTerm(out, held, termLists(vocabulary.get(term) ?? [], minDocs), term));
  if (fromIndex.length > 0) {
    // Lists the terms did not have: from the index (a term that just became common has a short doclist).
    const hits = await db.batch<{ k: number; s: number }>(
      fromIndex.map(({ t }) => db.prepare(CHAMPIONS_SQL).bind(t.match, listDepth(t, out.depth))),
    );
    fromIndex.forEach(({ t, isChampion }, i) => {
      const entries: Entries = hits[i]!.results.map((h) => [h.k, championWeight(h.s, stats, t.docs)]);
      out.group();
      out.lists(t, isChampion ? entries : null, IMPACT_COLUMNS.includes(t.col) ? entries : null);
      if (isChampion) out.termRow(t, entries);
    });
  }
  const [first, last] = [terms[0]!, terms.at(-1)!];
  const writes = [
    db.prepare("DELETE FROM arxiv_rank_staged WHERE term >= ? AND term <= ?").bind(first, last),
    db.prepare("DELETE FROM arxiv_rank_touched WHERE term >= ? AND term <= ?").bind(first, last),
  ];
  return {
    last,
    terms: terms.length,
    depth,
    lists: out.written,
    groups: out.groups.filter((g) => g.length > 0),
    writes,
  };
}

/** A champion list's floor (on its term's row); null for a term without a list. */
const championFloor = (champions: Entries | null): number | null =>
  champions === null
    ? null
    : listFloor(
        champions.map(([, w]) => w),
        CHAMPIONS_PER_TERM,
      );

/** The statements that write lists. */
class ListWrites {
  readonly groups: D1PreparedStatement[][] = [[]];
  written = 0;
  private readonly stamp = Date.now();

  constructor(
    private readonly db: D1Database,
    readonly depth: number,
  ) {}

  /** The writes that follow are one term's (or one list's). */
  group(): void {
    this.groups.push([]);
  }

  add(sql: string, ...binds: unknown[]): void {
    this.groups.at(-1)!.push(this.db.prepare(sql).bind(...binds));
  }

  /** A common term's row: its document count and its champion list's floor. */
  termRow(t: RankTerm, champions: Entries | null): void {
    this.add(INSERT_TERM_SQL, t.term, t.col, t.docs, championFloor(champions));
  }

  lists(t: RankTerm, champions: Entries | null, impacts: Entries | null): void {
    if (champions !== null) {
      this.add("DELETE FROM arxiv_rank_champions WHERE term = ? AND col = ?", t.term, t.col);
      const rows = champions.slice(0, CHAMPIONS_PER_TERM).map(([key, weight]) => [weight, key]);
      this.add(INSERT_CHAMPIONS_SQL, t.term, t.col, JSON.stringify(rows));
      this.written++;
    }
    if (impacts !== null) {
      const floor = listFloor(
        impacts.map(([, w]) => w),
        this.depth,
      );
      this.add(INSERT_IMPACTS_SQL, t.term, t.col, t.docs, encodeImpacts(impacts), this.stamp, floor);
      this.written++;
    }
  }
}

/**
 * One term's rows brought up to date: rows of scopes where it is no longer common go, its
 * document counts are rewritten where they moved, its lists merged with their staged changes.
 * Returns the lists it should have and has not (to be read from the index).
 */
function mergeTerm(
  out: ListWrites,
  held: Held,
  { common, askable }: ReturnType<typeof termLists>,
  term: string,
): { t: RankTerm; isChampion: boolean }[] {
  const isCommon = (col: number) => common.some((t) => t.col === col);
  const asked = (col: number) => askable.some((t) => t.col === col);
  for (const col of CHAMPION_COLUMNS) {
    const key = `${col}|${term}`;
    if (held.docs.has(key) && !isCommon(col))
      out.add("DELETE FROM arxiv_rank_terms WHERE term = ? AND col = ?", term, col);
    if (held.champions.has(key) && !(asked(col) && isCommon(col)))
      out.add("DELETE FROM arxiv_rank_champions WHERE term = ? AND col = ?", term, col);
    if (held.impacts.has(key) && !(asked(col) && IMPACT_COLUMNS.includes(col)))
      out.add("DELETE FROM arxiv_rank_impacts WHERE term = ? AND col = ?", term, col);
  }
  const missing: { t: RankTerm; isChampion: boolean }[] = [];
  const championsNow = new Map<number, Entries>();
  for (const t of askable) {
    const key = `${t.col}|${term}`;
    const isChampion = common.includes(t);
    const isImpact = IMPACT_COLUMNS.includes(t.col);
    const champions = held.champions.get(key);
    const impacts = held.impacts.get(key);
    // A list the term did not have: from the index (it just became common: a short doclist).
    if ((isChampion && champions === undefined) || (isImpact && impacts === undefined)) {
      missing.push({ t, isChampion });
      continue;
    }
    const changes = held.staged.get(key);
    const mergedChampions =
      isChampion && changes !== undefined ? mergeEntries(champions!, changes, CHAMPIONS_PER_TERM) : null;
    if (isChampion) championsNow.set(t.col, mergedChampions ?? champions!);
    const mergedImpacts =
      isImpact && changes !== undefined
        ? mergeEntries(impacts!.entries, changes, out.depth)
        : isImpact && impacts!.docs !== t.docs
          ? impacts!.entries
          : null;
    out.lists(
      t,
      mergedChampions !== null && !sameEntries(mergedChampions, champions!) ? mergedChampions : null,
      mergedImpacts,
    );
  }
  // Term rows whose count or champion floor moved (a term with a missing list gets its row with it).
  for (const t of common) {
    if (missing.some((m) => m.t === t && m.isChampion)) continue;
    const key = `${t.col}|${term}`;
    const champions = championsNow.get(t.col) ?? null;
    if (held.docs.get(key) !== t.docs || held.floors.get(key) !== championFloor(champions)) out.termRow(t, champions);
  }
  return missing;
}
