// Watches: a saved arXiv query, NBER query or paper's citations, with a high-water mark in the
// mirror. A check lists what is new since the mark (within a token budget) and moves it; the daily
// precompute makes each watch's news in advance so a check answers from it. Citation watches'
// news comes from citation-watch.ts.
import { PapersError } from "../errors";
import { paperKey } from "../store/arxiv-key";
import { mirrorNewestKey } from "../store/arxiv-mirror-lookup";
import { mirrorState } from "../store/arxiv-mirror-state";
import { searchMirror } from "../store/arxiv-mirror-search";
import { ftsQuery, newestNberNumber, nberPapersAfter } from "../store/nber-mirror";
import { rowToPaper } from "../sources/arxiv/mirror";
import { planMirrorSearch } from "../sources/arxiv/mirror-query";
import { estimateTokens } from "../sources/text/tokens";
import { type AgentError, type AgentResult, type AgentStore, fail, iso } from "./agent-store";
import { agentErrorOf, citationNews, prepareCitationWatch } from "./citation-watch";
import type { SavedPaper } from "./library";
import { newVersions } from "./versions";

export const MAX_WATCHES = 50;
/** Papers listed per watch in one check (the count is exact up to the mirror's cap). */
export const CHECK_PAGE = 50;
/** A check answers within this many tokens: the watches past it are left unchecked (their marks stay) and named. */
export const CHECK_TOKEN_BUDGET = 16_000;
/** A watch's news besides its papers: the watch, its counts and dates (about 195 tokens measured). */
const WATCH_NEWS_OVERHEAD_TOKENS = 220;
/** Authors a watch's news names per paper (a collaboration's 2,831 would crowd out the news). */
const NEWS_AUTHORS = 3;

export interface WatchInput {
  name: string;
  arxiv_query?: string;
  categories?: string[];
  nber_query?: string;
  /** A paper (arXiv ID, NBER number or DOI): the watch reports new works citing it. */
  cites?: string;
}

export type WatchSource = "arxiv" | "nber" | "citations";

export interface Watch {
  id: string;
  name: string;
  source: WatchSource;
  query: string;
  created_at: string;
  last_checked_at: string | null;
}

export interface NewPaper {
  id: string;
  title: string;
  /** The first NEWS_AUTHORS; authors_total counts them all when there are more. */
  authors: string[];
  authors_total?: number;
  date: string | null;
}

export interface WatchNews {
  watch: Watch;
  new_papers: NewPaper[];
  new_count: number;
  count_is_lower_bound: boolean;
  since: string | null;
  computed_at: string;
  from_precomputed: boolean;
}

interface WatchRow {
  id: string;
  name: string;
  source: WatchSource;
  query: string;
  mark: number;
  created_at: number;
  last_checked_at: number | null;
  pending: string | null;
  pending_at: number | null;
}

interface Computed {
  papers: NewPaper[];
  total: number;
  lowerBound: boolean;
  newMark: number;
  /** A citation watch's works reported by this news. */
  seen?: string[];
}

export async function createWatch(store: AgentStore, input: WatchInput): Promise<AgentResult<{ watch: Watch }>> {
  const { sql } = store;
  if (sql<{ n: number }>`SELECT count(*) AS n FROM watches`[0]!.n >= MAX_WATCHES)
    return fail(
      "too_many_watches",
      `This client already has ${MAX_WATCHES} watches.`,
      "Delete a watch you no longer need (papers_watch action=delete), then create this one.",
    );
  const name = input.name.trim();
  if (sql<{ n: number }>`SELECT count(*) AS n FROM watches WHERE name = ${name}`[0]!.n > 0)
    return fail(
      "watch_exists",
      `A watch named ${JSON.stringify(name)} exists.`,
      "Choose another name, or delete the old watch first.",
    );
  const prepared = await prepareWatch(store, input);
  if (!prepared.ok) return prepared;
  const id = crypto.randomUUID().slice(0, 8);
  const now = Date.now();
  sql`INSERT INTO watches (id, name, source, query, mark, created_at) VALUES (${id}, ${name},
      ${prepared.source}, ${prepared.query}, ${prepared.mark}, ${now})`;
  remember(store, id, prepared.seen ?? []);
  return {
    ok: true,
    watch: { id, name, source: prepared.source, query: prepared.query, created_at: iso(now)!, last_checked_at: null },
  };
}

export function listWatches(store: AgentStore): { ok: true; watches: Watch[] } {
  return { ok: true, watches: store.sql<WatchRow>`SELECT * FROM watches ORDER BY created_at`.map(toWatch) };
}

export function deleteWatch(store: AgentStore, idOrName: string): AgentResult<{ deleted: string }> {
  const row = findWatch(store, idOrName);
  if (!row) return noSuchWatch(store, idOrName);
  store.sql`DELETE FROM watches WHERE id = ${row.id}`;
  store.sql`DELETE FROM watch_seen WHERE watch_id = ${row.id}`;
  return { ok: true, deleted: row.id };
}

/**
 * What is new since each watch's mark (or one watch's), newest first; the marks move. Saved
 * papers with new versions too. Watches whose news would pass CHECK_TOKEN_BUDGET are left
 * unchecked, their marks where they were, and named for the next check.
 */
export async function checkWatches(
  store: AgentStore,
  idOrName?: string,
): Promise<AgentResult<{ news: WatchNews[]; new_versions: SavedPaper[]; unchecked: string[] }>> {
  const rows =
    idOrName === undefined
      ? store.sql<WatchRow>`SELECT * FROM watches ORDER BY created_at`
      : [findWatch(store, idOrName)].filter((row): row is WatchRow => row !== undefined);
  if (idOrName !== undefined && rows.length === 0) return noSuchWatch(store, idOrName);
  const news: WatchNews[] = [];
  const unchecked: string[] = [];
  let tokens = 0;
  const lastHarvest = await lastHarvestAt(store);
  for (const row of rows) {
    if (unchecked.length > 0) {
      unchecked.push(row.name);
      continue;
    }
    // The precomputed news counts when it was made after the latest harvest finished.
    const precomputed =
      row.pending !== null && row.pending_at !== null && (lastHarvest === null || row.pending_at >= lastHarvest);
    const found = precomputed ? (JSON.parse(row.pending!) as Computed) : await compute(store, row);
    if ("error" in found) return { ok: false, error: found.error };
    // Counted twice: the news travels as JSON and as the tool's text.
    const cost = 2 * estimateTokens(JSON.stringify(found.papers)) + WATCH_NEWS_OVERHEAD_TOKENS;
    if (news.length > 0 && tokens + cost > CHECK_TOKEN_BUDGET) {
      unchecked.push(row.name);
      continue;
    }
    tokens += cost;
    const now = Date.now();
    store.sql`UPDATE watches SET mark = ${found.newMark}, last_checked_at = ${now}, pending = NULL,
        pending_at = NULL WHERE id = ${row.id}`;
    remember(store, row.id, found.seen ?? []);
    news.push({
      watch: toWatch({ ...row, last_checked_at: now }),
      new_papers: found.papers,
      new_count: found.total,
      count_is_lower_bound: found.lowerBound,
      since: iso(row.last_checked_at ?? row.created_at),
      computed_at: iso(precomputed ? row.pending_at : now)!,
      from_precomputed: precomputed,
    });
  }
  return { ok: true, news, new_versions: await newVersions(store, true), unchecked };
}

/** The daily run: every watch's news computed in advance (marks do not move until a check). */
export async function precomputeNews(store: AgentStore): Promise<{ watches: number; ms: number }> {
  const started = Date.now();
  const rows = store.sql<WatchRow>`SELECT * FROM watches`;
  for (const row of rows) {
    const found = await compute(store, row);
    if ("error" in found) continue;
    store.sql`UPDATE watches SET pending = ${JSON.stringify(found)}, pending_at = ${Date.now()} WHERE id = ${row.id}`;
  }
  return { watches: rows.length, ms: Date.now() - started };
}

/** Records a citation watch's reported works, so that the next check does not report them again. */
function remember(store: AgentStore, watchId: string, works: readonly string[]): void {
  for (const work of works) store.sql`INSERT OR IGNORE INTO watch_seen (watch_id, work) VALUES (${watchId}, ${work})`;
}

function findWatch(store: AgentStore, idOrName: string): WatchRow | undefined {
  return store.sql<WatchRow>`SELECT * FROM watches WHERE id = ${idOrName} OR name = ${idOrName}`[0];
}

function noSuchWatch(store: AgentStore, idOrName: string): { ok: false; error: AgentError } {
  const names = store.sql<{ name: string; id: string }>`SELECT id, name FROM watches ORDER BY created_at`.map(
    (row) => `${row.id} (${row.name})`,
  );
  return fail(
    "no_such_watch",
    `No watch ${JSON.stringify(idOrName.slice(0, 80))}.`,
    names.length > 0
      ? `Use one of: ${names.join(", ")}.`
      : "This client has no watches yet: create one with action=create.",
  );
}

/** Validates a watch against what the mirror can answer, and sets its mark at the mirror's newest paper. */
async function prepareWatch(
  store: AgentStore,
  input: WatchInput,
): Promise<AgentResult<{ source: WatchSource; query: string; mark: number; seen?: string[] }>> {
  const hasArxiv = Boolean(input.arxiv_query?.trim()) || (input.categories?.length ?? 0) > 0;
  const hasNber = Boolean(input.nber_query?.trim());
  const hasCites = Boolean(input.cites?.trim());
  if (Number(hasArxiv) + Number(hasNber) + Number(hasCites) !== 1) {
    return fail(
      "invalid_watch",
      hasArxiv || hasNber || hasCites
        ? "A watch follows one thing: give arxiv_query/categories, nber_query or cites, not two."
        : "A watch needs arxiv_query, categories, nber_query or cites.",
      "Create one watch per source.",
    );
  }
  if (hasCites) {
    try {
      return { ok: true, source: "citations", ...(await prepareCitationWatch(store.app, input.cites!.trim())) };
    } catch (error) {
      return { ok: false, error: agentErrorOf(error) };
    }
  }
  if (hasNber) {
    const query = input.nber_query!.trim();
    if (!ftsQuery(query))
      return fail("invalid_watch", "The NBER query has no words.", "Give title words, an author or a topic.");
    return { ok: true, source: "nber", query, mark: await newestNberNumber(store.app.env.DB) };
  }
  return prepareArxivWatch(store, input);
}

async function prepareArxivWatch(
  store: AgentStore,
  input: WatchInput,
): Promise<AgentResult<{ source: WatchSource; query: string; mark: number }>> {
  const categories = input.categories ?? [];
  const words = input.arxiv_query?.trim() ?? "";
  const catClause = categories.length === 0 ? "" : `(${categories.map((code) => `cat:${code}`).join(" OR ")})`;
  const query = words && catClause ? `(${words}) AND ${catClause}` : words || catClause;
  if (!store.app.config.ARXIV_MIRROR_ENABLED)
    return fail(
      "watch_unanswerable",
      "This server keeps no arXiv mirror, and watches are answered from the mirror only.",
      "Ask the operator to enable the mirror (ARXIV_MIRROR_ENABLED).",
    );
  let planned: ReturnType<typeof planMirrorSearch>;
  try {
    planned = planMirrorSearch(query, {}, new Date());
  } catch (error) {
    if (error instanceof PapersError) return fail(error.reason, error.message, error.recovery);
    throw error;
  }
  if ("live" in planned)
    return fail(
      "watch_unanswerable",
      `The mirror cannot answer this query: ${planned.live}.`,
      "Simplify the query (no short prefixes or unsupported fields), then create the watch again.",
    );
  return { ok: true, source: "arxiv", query, mark: await store.mirrorReads(mirrorNewestKey) };
}

async function compute(store: AgentStore, row: WatchRow): Promise<Computed | { error: AgentError }> {
  if (row.source === "citations") {
    const seen = new Set(
      store.sql<{ work: string }>`SELECT work FROM watch_seen WHERE watch_id = ${row.id}`.map((r) => r.work),
    );
    try {
      return await citationNews(store.app, row.query, row.mark, seen);
    } catch (error) {
      return { error: agentErrorOf(error) };
    }
  }
  if (row.source === "nber") {
    const newest = await newestNberNumber(store.app.env.DB);
    const found = await nberPapersAfter(store.app.env.DB, row.query, row.mark, CHECK_PAGE);
    return {
      papers: found.papers.map((paper) => ({
        id: paper.id,
        title: paper.title,
        ...newsAuthors(paper.authors),
        date: paper.date,
      })),
      total: found.total,
      lowerBound: false,
      newMark: Math.max(row.mark, newest),
    };
  }
  return computeArxiv(store, row);
}

async function computeArxiv(store: AgentStore, row: WatchRow): Promise<Computed | { error: AgentError }> {
  const unanswerable = (why: string) => ({
    error: {
      reason: "watch_unanswerable" as const,
      message: `The mirror cannot answer this watch now: ${why}.`,
      recovery: "Delete it and create a simpler one.",
    },
  });
  const planned = planMirrorSearch(row.query, {}, new Date());
  if ("live" in planned) return unanswerable(planned.live);
  const { newest, result } = await store.mirrorReads(async (shards) => ({
    newest: await mirrorNewestKey(shards),
    // Newest first; papers enter the mirror in key order, so the new ones are the keys above the mark.
    result: await searchMirror(shards, planned.plan, {
      sortBy: "submitted",
      sortOrder: "descending",
      start: 0,
      limit: CHECK_PAGE,
    }),
  }));
  if (result.kind === "live") return unanswerable(result.reason);
  const fresh = result.rows.filter((mirrorRow) => paperKey(mirrorRow.id) > row.mark).map(rowToPaper);
  return {
    papers: fresh.map((paper) => ({
      id: paper.base_id,
      title: paper.title,
      ...newsAuthors(paper.authors.map((author) => author.name)),
      date: paper.published.slice(0, 10),
    })),
    total: fresh.length,
    lowerBound: fresh.length === CHECK_PAGE,
    newMark: Math.max(row.mark, newest),
  };
}

async function lastHarvestAt(store: AgentStore): Promise<number | null> {
  const state = await mirrorState(store.app.env.DB).catch(() => undefined);
  const last = state?.lastSuccessAt ? Date.parse(state.lastSuccessAt) : Number.NaN;
  return Number.isNaN(last) ? null : last;
}

function newsAuthors(names: string[]): Pick<NewPaper, "authors" | "authors_total"> {
  return names.length > NEWS_AUTHORS
    ? { authors: names.slice(0, NEWS_AUTHORS), authors_total: names.length }
    : { authors: names };
}

function toWatch(row: WatchRow): Watch {
  return {
    id: row.id,
    name: row.name,
    source: row.source,
    query: row.query,
    created_at: iso(row.created_at)!,
    last_checked_at: iso(row.last_checked_at),
  };
}
