// A client's library: saved arXiv and NBER papers with tags and a note, listed newest first within
// a token budget, and the paper IDs carrying a tag (the citation export's `tag`).
import { arxivReaders } from "../store/arxiv-shards";
import { mirrorLookup } from "../store/arxiv-mirror-lookup";
import { mirrorPaper } from "../store/nber-mirror";
import { formatId, parseArxivId } from "../sources/arxiv/ids";
import { parseNberId } from "../sources/nber/ids";
import { estimateTokens } from "../sources/text/tokens";
import type { AgentResult, AgentStore } from "./agent-store";
import { latestVersions, savedFrom } from "./versions";

export const MAX_LIBRARY = 1_000;
export const MAX_NOTE_CHARS = 2_000;
export const MAX_TAGS = 10;
/** A library list answers within this many tokens; the rest is paged with start. */
export const LIST_TOKEN_BUDGET = 16_000;

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

export interface PaperRow {
  id: string;
  source: "arxiv" | "nber";
  title: string | null;
  tags: string;
  note: string | null;
  added_at: number;
  version: number | null;
  reported_version: number | null;
}

type NotAdded = { id: string; reason: string; detail: string };

export async function addPapers(
  store: AgentStore,
  items: { id: string; tags?: string[]; note?: string }[],
): Promise<AgentResult<{ added: SavedPaper[]; not_added: NotAdded[] }>> {
  const { sql } = store;
  const added: SavedPaper[] = [];
  const notAdded: NotAdded[] = [];
  let room = MAX_LIBRARY - sql<{ n: number }>`SELECT count(*) AS n FROM library`[0]!.n;
  for (const item of items) {
    const paper = parsePaperId(item.id);
    const tags = [...new Set((item.tags ?? []).map((tag) => tag.trim().toLowerCase()).filter(Boolean))];
    const exists = paper
      ? sql<{ n: number }>`SELECT count(*) AS n FROM library WHERE id = ${paper.id}`[0]!.n > 0
      : false;
    const refused = refusal(item, paper, tags, exists, room);
    if (refused || !paper) {
      notAdded.push(refused ?? { id: item.id, reason: "invalid_id", detail: "neither an arXiv ID nor an NBER one" });
      continue;
    }
    const known = await describe(store, paper);
    if (exists) {
      sql`UPDATE library SET tags = ${JSON.stringify(tags)}, note = ${item.note ?? null}, title =
          coalesce(${known.title}, title) WHERE id = ${paper.id}`;
    } else {
      sql`INSERT INTO library (id, source, title, tags, note, added_at, version, reported_version)
          VALUES (${paper.id}, ${paper.source}, ${known.title}, ${JSON.stringify(tags)},
          ${item.note ?? null}, ${Date.now()}, ${known.version}, ${known.version})`;
      room--;
    }
    const row = sql<PaperRow>`SELECT * FROM library WHERE id = ${paper.id}`[0]!;
    const latest = row.source === "arxiv" ? (await latestVersions(store, [row.id])).get(row.id) : undefined;
    added.push(savedFrom(row, latest));
  }
  return { ok: true, added, not_added: notAdded };
}

/** Why an item cannot be saved, in the order the checks were always made; undefined when it can. */
function refusal(
  item: { id: string; note?: string },
  paper: { id: string } | undefined,
  tags: string[],
  exists: boolean,
  room: number,
): NotAdded | undefined {
  if (!paper) return { id: item.id, reason: "invalid_id", detail: "neither an arXiv ID nor an NBER one" };
  if ((item.note ?? "").length > MAX_NOTE_CHARS)
    return { id: item.id, reason: "note_too_long", detail: `a note holds at most ${MAX_NOTE_CHARS} characters` };
  if (tags.length > MAX_TAGS || tags.some((tag) => tag.length > 40))
    return { id: item.id, reason: "invalid_tags", detail: `at most ${MAX_TAGS} tags of at most 40 characters` };
  if (!exists && room <= 0)
    return { id: item.id, reason: "library_full", detail: `the library holds at most ${MAX_LIBRARY} papers` };
  return undefined;
}

/** Saved papers, newest first, from `start` while they fit LIST_TOKEN_BUDGET; next_start when more remain. */
export async function listLibrary(
  store: AgentStore,
  tag?: string,
  start = 0,
): Promise<{ ok: true; papers: SavedPaper[]; total: number; next_start: number | null }> {
  const rows = store.sql<PaperRow>`SELECT * FROM library ORDER BY added_at DESC`;
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
  const latest = await latestVersions(
    store,
    page.filter((row) => row.source === "arxiv").map((row) => row.id),
  );
  const next = start + page.length;
  return {
    ok: true,
    papers: page.map((row) => savedFrom(row, latest.get(row.id))),
    total: filtered.length,
    next_start: next < filtered.length ? next : null,
  };
}

export function removePapers(store: AgentStore, ids: string[]): { ok: true; removed: string[]; not_found: string[] } {
  const removed: string[] = [];
  const notFound: string[] = [];
  for (const raw of ids) {
    const id = parsePaperId(raw)?.id ?? raw;
    if (store.sql<{ n: number }>`SELECT count(*) AS n FROM library WHERE id = ${id}`[0]!.n === 0) notFound.push(raw);
    else {
      store.sql`DELETE FROM library WHERE id = ${id}`;
      removed.push(id);
    }
  }
  return { ok: true, removed, not_found: notFound };
}

/** Saved paper IDs carrying a tag (the citation export's `tag`). */
export function taggedIds(store: AgentStore, tag: string): { ok: true; ids: string[] } {
  const wanted = tag.trim().toLowerCase();
  const rows = store.sql<PaperRow>`SELECT * FROM library ORDER BY added_at`;
  return {
    ok: true,
    ids: rows.filter((row) => (JSON.parse(row.tags) as string[]).includes(wanted)).map((row) => row.id),
  };
}

/** A paper's title and latest version from the mirrors (the primary: a saved paper must see what was just harvested). */
async function describe(
  store: AgentStore,
  paper: { id: string; source: "arxiv" | "nber" },
): Promise<{ title: string | null; version: number | null }> {
  if (paper.source === "nber")
    return { title: (await mirrorPaper(store.app.env.DB, paper.id))?.title ?? null, version: null };
  const row = (await mirrorLookup(arxivReaders(store.app, "primary"), [paper.id])).get(paper.id);
  return { title: row?.title.replace(/\s+/g, " ") ?? null, version: row?.version ?? null };
}

function parsePaperId(raw: string): { id: string; source: "arxiv" | "nber" } | undefined {
  const arxiv = parseArxivId(raw);
  if (arxiv.ok) return { id: formatId(arxiv.id, false), source: "arxiv" };
  const nber = parseNberId(raw);
  return nber.ok ? { id: nber.id.id, source: "nber" } : undefined;
}
