// The daily count of OAuth client registrations (AUTH_MODE=oauth), the one writer of
// oauth_registration_days. One statement counts and answers, so concurrent registrations
// cannot both see room under the cap.
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { oauthRegistrationDays } from "./schema";

/** Counts one more registration today (UTC) and returns today's count, this one included. */
export async function countRegistrationToday(db: D1Database, now = new Date()): Promise<number> {
  const day = now.toISOString().slice(0, 10);
  const [row] = await drizzle(db)
    .insert(oauthRegistrationDays)
    .values({ day, count: 1 })
    .onConflictDoUpdate({ target: oauthRegistrationDays.day, set: { count: sql`${oauthRegistrationDays.count} + 1` } })
    .returning({ count: oauthRegistrationDays.count });
  // Older days are of no use once their day is over.
  await db.prepare("DELETE FROM oauth_registration_days WHERE day < ?").bind(day).run();
  return row?.count ?? 1;
}
