// Health and mirror status, read from D1. Never throws: an unreachable D1 is reported, not raised.
import { drizzle } from "drizzle-orm/d1";
import { harvestState } from "./schema";

export interface MirrorStatus {
  source: string;
  status: string;
  records: number;
  pages: number;
  last_datestamp: string | null;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string | null;
  last_error: string | null;
  /** The current or last run: cold or refresh, records written and deleted, speed. */
  run: {
    mode: string | null;
    records: number;
    deleted: number;
    complete_list_size: number | null;
    from_datestamp: string | null;
    records_per_second: number | null;
    last_page_ms: number | null;
  };
  /** The last verify (integrity, FTS integrity, counts), when one ran. */
  verified: unknown;
}

export type StoreHealth =
  | { reachable: true; latency_ms: number; mirrors: MirrorStatus[] }
  | { reachable: false; error: string; mirrors: [] };

/** The sources a mirror exists for; a source with no harvest yet shows as idle with 0 records. */
const MIRRORED_SOURCES = ["arxiv", "nber"] as const;

export async function readStoreHealth(db: D1Database): Promise<StoreHealth> {
  const started = Date.now();
  try {
    const rows = await drizzle(db).select().from(harvestState).all();
    const bySource = new Map(rows.map((row) => [row.source, row]));
    const mirrors = MIRRORED_SOURCES.map((source): MirrorStatus => {
      const row = bySource.get(source);
      return {
        source,
        status: row?.status ?? "idle",
        records: row?.records ?? 0,
        pages: row?.pages ?? 0,
        last_datestamp: row?.lastDatestamp ?? null,
        started_at: row?.startedAt ?? null,
        finished_at: row?.finishedAt ?? null,
        updated_at: row?.updatedAt ?? null,
        last_error: row?.lastError ?? null,
        run: {
          mode: row?.mode ?? null,
          records: row?.runRecords ?? 0,
          deleted: row?.runDeleted ?? 0,
          complete_list_size: row?.completeListSize ?? null,
          from_datestamp: row?.fromDatestamp ?? null,
          records_per_second: rate(row?.runRecords ?? 0, row?.startedAt ?? null, row?.finishedAt ?? row?.updatedAt ?? null),
          last_page_ms: row?.lastPageMs ?? null,
        },
        verified: parseJson(row?.verified ?? null),
      };
    });
    return { reachable: true, latency_ms: Date.now() - started, mirrors };
  } catch (error) {
    return { reachable: false, error: error instanceof Error ? error.message : String(error), mirrors: [] };
  }
}

function rate(records: number, startedAt: string | null, until: string | null): number | null {
  if (!startedAt || !until || records === 0) return null;
  const seconds = (Date.parse(until) - Date.parse(startedAt)) / 1000;
  return seconds > 0 ? Math.round((records / seconds) * 10) / 10 : null;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
