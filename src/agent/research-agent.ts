// biome-ignore-all lint/style/noExcessiveLinesPerFile: one Durable Object class (watches, library) sharing this.sql and its schema
// The research agent: one Agent Durable Object (the agents SDK's, with its own SQLite) per
// client identity, holding what belongs to that user: watches (a query and a high-water mark
// in the mirror) and a library of saved papers with tags and notes. Checks read the mirrors only,
// never an upstream; a daily schedule after the harvest computes every watch's news in advance so
// that a check answers from it. Methods are called over RPC from the tools (src/agent/client.ts)
// and return { ok, ... } values: an error thrown across RPC would lose its type.
import { arxivReaders, bookmarkedReaders, type MirrorShard } from "../store/arxiv-shards";
import type { D1Reader } from "../search/rank";
import { Agent } from "agents";
import { type AppContext, appContext } from "../context";
import { type ErrorReason, PapersError } from "../errors";
import { paperKey } from "../store/arxiv-key";
import { mirrorLookup, mirrorNewestKey } from "../store/arxiv-mirror-lookup";
import { mirrorState } from "../store/arxiv-mirror-state";
import { searchShards } from "../store/arxiv-sharded-search";
import { ftsQuery, mirrorPaper, newestNberNumber, nberPapersAfter } from "../store/nber-mirror";
import { formatId, parseArxivId } from "../sources/arxiv/ids";
import { rowToPaper } from "../sources/arxiv/mirror";
import { planMirrorSearch } from "../sources/arxiv/mirror-query";
import { parseNberId } from "../sources/nber/ids";
import { estimateTokens } from "../sources/text/tokens";
import { agentErrorOf, citationNews, prepareCitationWatch } from "./citation-watch";

export const MAX_WATCHES = 50;
export const MAX_LIBRARY = 1_000;
export const MAX_NOTE_CHARS = 2_000;
export const MAX_TAGS = 10;
/** Papers listed per watch in one check (the count is exact up to the mirror's cap). */
export const CHECK_PAGE = 50;
/** When the precomputed news is made: after the 02:30 UTC harvest has had time to finish. */
const PRECOMPUTE_CRON = "30 6 * * *";

export type AgentError = { reason: ErrorReason; message: string; recovery: string };
export type AgentResult<T> = ({ ok: true } & T) | { ok: false; error: AgentError };

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

/** Authors a watch's news names per paper (a collaboration's 2,831 would crowd out the news). */
const NEWS_AUTHORS = 3;
/** A check answers within this many tokens: the watches past it are left unchecked (their marks stay) and named. */
export const CHECK_TOKEN_BUDGET = 16_000;
/** A watch's news besides its papers: the watch, its counts and dates (about 195 tokens measured). */
const WATCH_NEWS_OVERHEAD_TOKENS = 220;
/** A library list answers within this many tokens; the rest is paged with start. */
export const LIST_TOKEN_BUDGET = 16_000;

function newsAuthors(names: string[]): Pick<NewPaper, "authors" | "authors_total"> {
  return names.length > NEWS_AUTHORS
    ? { authors: names.slice(0, NEWS_AUTHORS), authors_total: names.length }
    : { authors: names };
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

export interface SavedPaper {
  id: string;
  source: "arxiv" | "nber";
  title: string | null;
  tags: string[];
  note: string | null;
  added_at: string;
  saved_version: number | null;
  latest_version: number | null;
  latest_version_date: string | null;
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

interface PaperRow {
  id: string;
  source: "arxiv" | "nber";
  title: string | null;
  tags: string;
  note: string | null;
  added_at: number;
  version: number | null;
  reported_version: number | null;
}

const fail = (reason: ErrorReason, message: string, recovery: string): { ok: false; error: AgentError } => ({
  ok: false,
  error: { reason, message, recovery },
});
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class ResearchAgent extends Agent<Cloudflare.Env> {
  override async onStart(): Promise<void> {
    this.sql`CREATE TABLE IF NOT EXISTS watches (id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL,
        query TEXT NOT NULL, mark INTEGER NOT NULL, created_at INTEGER NOT NULL, last_checked_at INTEGER,
        pending TEXT, pending_at INTEGER)`;
    // A citation watch's works already reported (by our ID, DOI or OpenAlex ID).
    this.sql`CREATE TABLE IF NOT EXISTS watch_seen (watch_id TEXT NOT NULL, work TEXT NOT NULL,
        PRIMARY KEY (watch_id, work))`;
    this.sql`CREATE TABLE IF NOT EXISTS library (id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT, tags
        TEXT NOT NULL, note TEXT, added_at INTEGER NOT NULL, version INTEGER, reported_version INTEGER)`;
    // Where this client's mirror reads left each D1 database (D1_READ_REPLICATION; see mirrorReaders).
    this.sql`CREATE TABLE IF NOT EXISTS d1_bookmarks (binding TEXT PRIMARY KEY, bookmark TEXT NOT NULL)`;
    // Idempotent for cron schedules: one row however often the object wakes.
    await this.schedule(PRECOMPUTE_CRON, "precomputeNews");
  }

  // ---- watches ----

  async createWatch(input: WatchInput): Promise<AgentResult<{ watch: Watch }>> {
    const count = this.sql<{ n: number }>`SELECT count(*) AS n FROM watches`[0]!.n;
    if (count >= MAX_WATCHES)
      return fail(
        "too_many_watches",
        `This client already has ${MAX_WATCHES} watches.`,
        "Delete a watch you no longer need (papers_watch action=delete), then create this one.",
      );
    const name = input.name.trim();
    if (this.sql<{ n: number }>`SELECT count(*) AS n FROM watches WHERE name = ${name}`[0]!.n > 0) {
      return fail(
        "watch_exists",
        `A watch named ${JSON.stringify(name)} exists.`,
        "Choose another name, or delete the old watch first.",
      );
    }
    const prepared = await this.prepareWatch(input);
    if (!prepared.ok) return prepared;
    const id = crypto.randomUUID().slice(0, 8);
    const now = Date.now();
    this.sql`INSERT INTO watches (id, name, source, query, mark, created_at) VALUES (${id}, ${name},
        ${prepared.source}, ${prepared.query}, ${prepared.mark}, ${now})`;
    this.remember(id, prepared.seen ?? []);
    return {
      ok: true,
      watch: { id, name, source: prepared.source, query: prepared.query, created_at: iso(now)!, last_checked_at: null },
    };
  }

  listWatches(): { ok: true; watches: Watch[] } {
    return { ok: true, watches: this.sql<WatchRow>`SELECT * FROM watches ORDER BY created_at`.map(toWatch) };
  }

  deleteWatch(idOrName: string): AgentResult<{ deleted: string }> {
    const row = this.findWatch(idOrName);
    if (!row) return this.noSuchWatch(idOrName);
    this.sql`DELETE FROM watches WHERE id = ${row.id}`;
    this.sql`DELETE FROM watch_seen WHERE watch_id = ${row.id}`;
    return { ok: true, deleted: row.id };
  }

  /**
   * What is new since each watch's mark (or one watch's), newest first; the marks move. Saved
   * papers with new versions too. Watches whose news would pass CHECK_TOKEN_BUDGET are left
   * unchecked, their marks where they were, and named for the next check.
   */
  async checkWatches(
    idOrName?: string,
  ): Promise<AgentResult<{ news: WatchNews[]; new_versions: SavedPaper[]; unchecked: string[] }>> {
    const rows =
      idOrName === undefined
        ? this.sql<WatchRow>`SELECT * FROM watches ORDER BY created_at`
        : [this.findWatch(idOrName)].filter((row): row is WatchRow => row !== undefined);
    if (idOrName !== undefined && rows.length === 0) return this.noSuchWatch(idOrName);
    const news: WatchNews[] = [];
    const unchecked: string[] = [];
    let tokens = 0;
    const lastHarvest = await this.lastHarvestAt();
    for (const row of rows) {
      if (unchecked.length > 0) {
        unchecked.push(row.name);
        continue;
      }
      // The precomputed news counts when it was made after the latest harvest finished.
      const precomputed =
        row.pending !== null && row.pending_at !== null && (lastHarvest === null || row.pending_at >= lastHarvest);
      const found = precomputed ? (JSON.parse(row.pending!) as Computed) : await this.compute(row);
      if ("error" in found) return { ok: false, error: found.error };
      // Counted twice: the news travels as JSON and as the tool's text.
      const cost = 2 * estimateTokens(JSON.stringify(found.papers)) + WATCH_NEWS_OVERHEAD_TOKENS;
      if (news.length > 0 && tokens + cost > CHECK_TOKEN_BUDGET) {
        unchecked.push(row.name);
        continue;
      }
      tokens += cost;
      const now = Date.now();
      this
        .sql`UPDATE watches SET mark = ${found.newMark}, last_checked_at = ${now}, pending = NULL, pending_at = NULL WHERE id = ${row.id}`;
      this.remember(row.id, found.seen ?? []);
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
    return { ok: true, news, new_versions: await this.newVersions(true), unchecked };
  }

  /** The daily run: every watch's news computed in advance (marks do not move until a check). */
  async precomputeNews(): Promise<{ watches: number; ms: number }> {
    const started = Date.now();
    const rows = this.sql<WatchRow>`SELECT * FROM watches`;
    for (const row of rows) {
      const found = await this.compute(row);
      if ("error" in found) continue;
      this.sql`UPDATE watches SET pending = ${JSON.stringify(found)}, pending_at = ${Date.now()} WHERE id = ${row.id}`;
    }
    return { watches: rows.length, ms: Date.now() - started };
  }

  // ---- library ----

  async addPapers(
    items: { id: string; tags?: string[]; note?: string }[],
  ): Promise<AgentResult<{ added: SavedPaper[]; not_added: { id: string; reason: string; detail: string }[] }>> {
    const count = this.sql<{ n: number }>`SELECT count(*) AS n FROM library`[0]!.n;
    const added: SavedPaper[] = [];
    const notAdded: { id: string; reason: string; detail: string }[] = [];
    let room = MAX_LIBRARY - count;
    for (const item of items) {
      const paper = parsePaperId(item.id);
      if (!paper) {
        notAdded.push({ id: item.id, reason: "invalid_id", detail: "neither an arXiv ID nor an NBER one" });
        continue;
      }
      if ((item.note ?? "").length > MAX_NOTE_CHARS) {
        notAdded.push({
          id: item.id,
          reason: "note_too_long",
          detail: `a note holds at most ${MAX_NOTE_CHARS} characters`,
        });
        continue;
      }
      const tags = [...new Set((item.tags ?? []).map((tag) => tag.trim().toLowerCase()).filter(Boolean))];
      if (tags.length > MAX_TAGS || tags.some((tag) => tag.length > 40)) {
        notAdded.push({
          id: item.id,
          reason: "invalid_tags",
          detail: `at most ${MAX_TAGS} tags of at most 40 characters`,
        });
        continue;
      }
      const exists = this.sql<{ n: number }>`SELECT count(*) AS n FROM library WHERE id = ${paper.id}`[0]!.n > 0;
      if (!exists && room <= 0) {
        notAdded.push({
          id: item.id,
          reason: "library_full",
          detail: `the library holds at most ${MAX_LIBRARY} papers`,
        });
        continue;
      }
      const known = await this.describe(paper);
      const now = Date.now();
      if (exists) {
        this.sql`UPDATE library SET tags = ${JSON.stringify(tags)}, note = ${item.note ?? null}, title =
            coalesce(${known.title}, title) WHERE id = ${paper.id}`;
      } else {
        this.sql`INSERT INTO library (id, source, title, tags, note, added_at, version, reported_version)
            VALUES (${paper.id}, ${paper.source}, ${known.title}, ${JSON.stringify(tags)},
            ${item.note ?? null}, ${now}, ${known.version}, ${known.version})`;
        room--;
      }
      added.push(await this.toSaved(this.sql<PaperRow>`SELECT * FROM library WHERE id = ${paper.id}`[0]!));
    }
    return { ok: true, added, not_added: notAdded };
  }

  /** Saved papers, newest first, from `start` while they fit LIST_TOKEN_BUDGET; next_start when more remain. */
  async listLibrary(
    tag?: string,
    start = 0,
  ): Promise<{ ok: true; papers: SavedPaper[]; total: number; next_start: number | null }> {
    const rows = this.sql<PaperRow>`SELECT * FROM library ORDER BY added_at DESC`;
    const wanted = tag?.trim().toLowerCase();
    const filtered = wanted ? rows.filter((row) => (JSON.parse(row.tags) as string[]).includes(wanted)) : rows;
    const page: PaperRow[] = [];
    let tokens = 0;
    for (const row of filtered.slice(start)) {
      // Counted twice: the list travels as JSON and as the tool's text (the note only in the JSON).
      const cost = estimateTokens(JSON.stringify(row)) + 2 * estimateTokens(row.title ?? "") + 40;
      if (page.length > 0 && tokens + cost > LIST_TOKEN_BUDGET) break;
      tokens += cost;
      page.push(row);
    }
    const latest = await this.latestVersions(page.filter((row) => row.source === "arxiv").map((row) => row.id));
    const next = start + page.length;
    return {
      ok: true,
      papers: page.map((row) => this.savedFrom(row, latest.get(row.id))),
      total: filtered.length,
      next_start: next < filtered.length ? next : null,
    };
  }

  removePapers(ids: string[]): { ok: true; removed: string[]; not_found: string[] } {
    const removed: string[] = [];
    const notFound: string[] = [];
    for (const raw of ids) {
      const id = parsePaperId(raw)?.id ?? raw;
      if (this.sql<{ n: number }>`SELECT count(*) AS n FROM library WHERE id = ${id}`[0]!.n === 0) notFound.push(raw);
      else {
        this.sql`DELETE FROM library WHERE id = ${id}`;
        removed.push(id);
      }
    }
    return { ok: true, removed, not_found: notFound };
  }

  /** Saved paper IDs carrying a tag (the citation export's `tag`). */
  taggedIds(tag: string): { ok: true; ids: string[] } {
    const wanted = tag.trim().toLowerCase();
    const rows = this.sql<PaperRow>`SELECT * FROM library ORDER BY added_at`;
    return {
      ok: true,
      ids: rows.filter((row) => (JSON.parse(row.tags) as string[]).includes(wanted)).map((row) => row.id),
    };
  }

  // ---- internals ----

  /** The app's context for this object's work (the Durable Object's own waitUntil). */
  private get app(): AppContext {
    return appContext(this.env, (promise) => this.ctx.waitUntil(promise));
  }

  /**
   * The mirror's shards for this client's reads. With read replicas, each read starts at the
   * bookmark the last one left: a check never sees an older mirror than the watch's mark or the
   * previous check did (a replica that lags waits until it has caught up).
   */
  private async mirrorReads<T>(read: (shards: MirrorShard<D1Reader>[]) => Promise<T>): Promise<T> {
    const since = Object.fromEntries(
      this.sql<{ binding: string; bookmark: string }>`SELECT binding, bookmark FROM d1_bookmarks`.map((row) => [
        row.binding,
        row.bookmark,
      ]),
    );
    const readers = bookmarkedReaders(this.app, since);
    const result = await read(readers.shards);
    for (const [binding, bookmark] of Object.entries(readers.bookmarks()))
      if (bookmark !== since[binding])
        this.sql`INSERT INTO d1_bookmarks (binding, bookmark) VALUES (${binding}, ${bookmark})
          ON CONFLICT (binding) DO UPDATE SET bookmark = excluded.bookmark`;
    return result;
  }

  /** Records a citation watch's reported works, so that the next check does not report them again. */
  private remember(watchId: string, works: readonly string[]): void {
    for (const work of works) this.sql`INSERT OR IGNORE INTO watch_seen (watch_id, work) VALUES (${watchId}, ${work})`;
  }

  private findWatch(idOrName: string): WatchRow | undefined {
    return this.sql<WatchRow>`SELECT * FROM watches WHERE id = ${idOrName} OR name = ${idOrName}`[0];
  }

  private noSuchWatch(idOrName: string): { ok: false; error: AgentError } {
    const names = this.sql<{ name: string; id: string }>`SELECT id, name FROM watches ORDER BY created_at`.map(
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
  private async prepareWatch(
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
        return { ok: true, source: "citations", ...(await prepareCitationWatch(this.app, input.cites!.trim())) };
      } catch (error) {
        return { ok: false, error: agentErrorOf(error) };
      }
    }
    if (hasNber) {
      const query = input.nber_query!.trim();
      if (!ftsQuery(query))
        return fail("invalid_watch", "The NBER query has no words.", "Give title words, an author or a topic.");
      return { ok: true, source: "nber", query, mark: await newestNberNumber(this.env.DB) };
    }
    const categories = input.categories ?? [];
    const words = input.arxiv_query?.trim() ?? "";
    const catClause = categories.length === 0 ? "" : `(${categories.map((code) => `cat:${code}`).join(" OR ")})`;
    const query = words && catClause ? `(${words}) AND ${catClause}` : words || catClause;
    if (!this.app.config.ARXIV_MIRROR_ENABLED)
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
    return { ok: true, source: "arxiv", query, mark: await this.mirrorReads(mirrorNewestKey) };
  }

  private async compute(row: WatchRow): Promise<Computed | { error: AgentError }> {
    if (row.source === "citations") {
      const seen = new Set(
        this.sql<{ work: string }>`SELECT work FROM watch_seen WHERE watch_id = ${row.id}`.map((r) => r.work),
      );
      try {
        return await citationNews(this.app, row.query, row.mark, seen);
      } catch (error) {
        return { error: agentErrorOf(error) };
      }
    }
    if (row.source === "nber") {
      const newest = await newestNberNumber(this.env.DB);
      const found = await nberPapersAfter(this.env.DB, row.query, row.mark, CHECK_PAGE);
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
    const planned = planMirrorSearch(row.query, {}, new Date());
    if ("live" in planned)
      return {
        error: {
          reason: "watch_unanswerable",
          message: `The mirror cannot answer this watch now: ${planned.live}.`,
          recovery: "Delete it and create a simpler one.",
        },
      };
    const { newest, result } = await this.mirrorReads(async (shards) => ({
      newest: await mirrorNewestKey(shards),
      // Newest first; papers enter the mirror in key order, so the new ones are the keys above the mark.
      result: await searchShards(shards, planned.plan, {
        sortBy: "submitted",
        sortOrder: "descending",
        start: 0,
        limit: CHECK_PAGE,
      }),
    }));
    if (result.kind === "live")
      return {
        error: {
          reason: "watch_unanswerable",
          message: `The mirror cannot answer this watch now: ${result.reason}.`,
          recovery: "Delete it and create a simpler one.",
        },
      };
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

  private async lastHarvestAt(): Promise<number | null> {
    const state = await mirrorState(this.env.DB).catch(() => undefined);
    const last = state?.lastSuccessAt ? Date.parse(state.lastSuccessAt) : Number.NaN;
    return Number.isNaN(last) ? null : last;
  }

  private async describe(paper: {
    id: string;
    source: "arxiv" | "nber";
  }): Promise<{ title: string | null; version: number | null }> {
    if (paper.source === "nber")
      return { title: (await mirrorPaper(this.env.DB, paper.id))?.title ?? null, version: null };
    const row = (await mirrorLookup(arxivReaders(this.app, "primary"), [paper.id])).get(paper.id);
    return { title: row?.title.replace(/\s+/g, " ") ?? null, version: row?.version ?? null };
  }

  private async latestVersions(ids: string[]): Promise<Map<string, { version: number; date: string }>> {
    const out = new Map<string, { version: number; date: string }>();
    if (ids.length === 0) return out;
    const held = await this.mirrorReads((shards) => mirrorLookup(shards, ids));
    for (const [id, row] of held) {
      const versions = JSON.parse(row.versions) as number[];
      out.set(id, {
        version: row.version,
        date: new Date((versions[versions.length - 1] ?? row.published) * 1000).toISOString().slice(0, 10),
      });
    }
    return out;
  }

  /** Saved arXiv papers whose latest version is newer than the last one reported; `mark` records it. */
  private async newVersions(mark: boolean): Promise<SavedPaper[]> {
    const rows = this.sql<PaperRow>`SELECT * FROM library WHERE source = 'arxiv'`;
    const latest = await this.latestVersions(rows.map((row) => row.id));
    const changed = rows.filter((row) => {
      const now = latest.get(row.id);
      return now !== undefined && row.reported_version !== null && now.version > row.reported_version;
    });
    if (mark)
      for (const row of changed)
        this.sql`UPDATE library SET reported_version = ${latest.get(row.id)!.version} WHERE id = ${row.id}`;
    return changed.map((row) => this.savedFrom(row, latest.get(row.id)));
  }

  private async toSaved(row: PaperRow): Promise<SavedPaper> {
    return this.savedFrom(row, row.source === "arxiv" ? (await this.latestVersions([row.id])).get(row.id) : undefined);
  }

  private savedFrom(row: PaperRow, latest: { version: number; date: string } | undefined): SavedPaper {
    return {
      id: row.id,
      source: row.source,
      title: row.title,
      tags: JSON.parse(row.tags) as string[],
      note: row.note,
      added_at: iso(row.added_at)!,
      saved_version: row.version,
      latest_version: latest?.version ?? null,
      latest_version_date: latest?.date ?? null,
    };
  }
}

interface Computed {
  papers: NewPaper[];
  total: number;
  lowerBound: boolean;
  newMark: number;
  /** A citation watch's works reported by this news. */
  seen?: string[];
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

function parsePaperId(raw: string): { id: string; source: "arxiv" | "nber" } | undefined {
  const arxiv = parseArxivId(raw);
  if (arxiv.ok) return { id: formatId(arxiv.id, false), source: "arxiv" };
  const nber = parseNberId(raw);
  return nber.ok ? { id: nber.id.id, source: "nber" } : undefined;
}
