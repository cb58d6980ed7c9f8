// NBER's logs in D1 (every surface writes them; a failed log write never fails the call): info
// lookups, searches with their result counts and where they were answered, downloads.
import { drizzle } from "drizzle-orm/d1";
import { downloadLog, infoLog, queryLog } from "./schema";

const now = () => new Date().toISOString();

async function soft(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    console.error("log write failed", error);
  }
}

export const logInfo = (db: D1Database, entry: { paperId: string; servedFrom: string | null; error?: string }) =>
  soft(() =>
    drizzle(db)
      .insert(infoLog)
      .values({ createdAt: now(), paperId: entry.paperId, servedFrom: entry.servedFrom, error: entry.error ?? null }),
  );

export const logQuery = (
  db: D1Database,
  entry: {
    surface: string;
    keyword: string;
    conditions: object;
    resultCount: number | null;
    servedFrom: string | null;
    error?: string;
  },
) =>
  soft(() =>
    drizzle(db)
      .insert(queryLog)
      .values({
        createdAt: now(),
        surface: entry.surface,
        keyword: entry.keyword.slice(0, 1000),
        conditions: JSON.stringify(entry.conditions),
        resultCount: entry.resultCount,
        servedFrom: entry.servedFrom,
        error: entry.error ?? null,
      }),
  );

export const logDownload = (
  db: D1Database,
  entry: { paperId: string; status: string; size?: number; sha256?: string; error?: string },
) =>
  soft(() =>
    drizzle(db)
      .insert(downloadLog)
      .values({
        createdAt: now(),
        paperId: entry.paperId,
        status: entry.status,
        size: entry.size ?? null,
        sha256: entry.sha256 ?? null,
        error: entry.error ?? null,
      }),
  );

export async function countRows(
  db: D1Database,
  table: "info_log" | "query_log" | "download_log" | "info_cache" | "nber_papers",
): Promise<number> {
  const row = await db.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>();
  return row?.n ?? 0;
}
