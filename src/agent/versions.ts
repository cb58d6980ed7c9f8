// Saved papers' versions: the latest version the mirror holds for each saved arXiv paper, and the
// ones newer than the version last reported (a watch check lists them, then records them).
import { mirrorLookup } from "../store/arxiv-mirror-lookup";
import { type AgentStore, iso } from "./agent-store";
import type { PaperRow, SavedPaper } from "./library";

export type LatestVersion = { version: number; date: string };

export async function latestVersions(store: AgentStore, ids: string[]): Promise<Map<string, LatestVersion>> {
  const out = new Map<string, LatestVersion>();
  if (ids.length === 0) return out;
  const held = await store.mirrorReads((shards) => mirrorLookup(shards, ids));
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
export async function newVersions(store: AgentStore, mark: boolean): Promise<SavedPaper[]> {
  const rows = store.sql<PaperRow>`SELECT * FROM library WHERE source = 'arxiv'`;
  const latest = await latestVersions(
    store,
    rows.map((row) => row.id),
  );
  const changed = rows.filter((row) => {
    const now = latest.get(row.id);
    return now !== undefined && row.reported_version !== null && now.version > row.reported_version;
  });
  if (mark)
    for (const row of changed)
      store.sql`UPDATE library SET reported_version = ${latest.get(row.id)!.version} WHERE id = ${row.id}`;
  return changed.map((row) => savedFrom(row, latest.get(row.id)));
}

/** A saved paper as the tools show it, with the latest version when the mirror holds it. */
export function savedFrom(row: PaperRow, latest: LatestVersion | undefined): SavedPaper {
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
