// A daily allowance of an upstream's paid calls, counted in D1 so that every isolate spends the
// same one. A call is taken by one conditional upsert (used + 1 while under the limit), so two
// isolates racing for the last call cannot both get it. The day is UTC, as OpenAlex's is.
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { upstreamBudget } from "./schema";

export interface BudgetDay {
  upstream: string;
  day: string;
  used: number;
  daily_limit: number;
  /** The upstream itself said the allowance is spent (HTTP 429), whatever we counted. */
  exhausted_at: string | null;
  /** When the next day's allowance starts (UTC midnight). */
  resets_at: string;
}

export const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);

/** Epoch ms of the next UTC midnight. */
export function nextUtcMidnight(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
}

/**
 * Takes one call of today's allowance: true when one was left (and is now used). Taken as the call
 * leaves (after its crawl gate let it go), so that a request never sent spends none.
 */
export async function takeBudgetedCall(
  db: D1Database,
  upstream: string,
  dailyLimit: number,
  now = Date.now(),
): Promise<boolean> {
  if (dailyLimit <= 0) return false;
  const row = await db
    .prepare(
      "INSERT INTO upstream_budget (upstream, day, used, daily_limit) VALUES (?1, ?2, 1, ?3) " +
        "ON CONFLICT (upstream, day) DO UPDATE SET used = used + 1, daily_limit = ?3 " +
        "WHERE used < ?3 AND exhausted_at IS NULL RETURNING used",
    )
    .bind(upstream, utcDay(now), dailyLimit)
    .first<{ used: number }>();
  return row !== null;
}

/** The upstream answered 429: today's allowance is spent, whatever was counted. */
export async function markBudgetExhausted(
  db: D1Database,
  upstream: string,
  dailyLimit: number,
  now = Date.now(),
): Promise<void> {
  await db
    .prepare(
      "INSERT INTO upstream_budget (upstream, day, used, daily_limit, exhausted_at) VALUES (?1, ?2, 0, ?3, ?4) " +
        "ON CONFLICT (upstream, day) DO UPDATE SET exhausted_at = ?4",
    )
    .bind(upstream, utcDay(now), dailyLimit, now)
    .run();
}

/** Today's row for the upstream (undefined: nothing spent yet today). */
export async function readBudgetDay(
  db: D1Database,
  upstream: string,
  now = Date.now(),
): Promise<BudgetDay | undefined> {
  const rows = await drizzle(db)
    .select()
    .from(upstreamBudget)
    .where(and(eq(upstreamBudget.upstream, upstream), eq(upstreamBudget.day, utcDay(now))))
    .all();
  const row = rows[0];
  if (!row) return undefined;
  return {
    upstream: row.upstream,
    day: row.day,
    used: row.used,
    daily_limit: row.dailyLimit,
    exhausted_at: row.exhaustedAt === null ? null : new Date(row.exhaustedAt).toISOString(),
    resets_at: new Date(nextUtcMidnight(now)).toISOString(),
  };
}
