// Datestamp windows of a harvest run, and the retry schedule of a failing page. Pure functions:
// the run control in harvest/arxiv/run.ts decides when, these decide what.
//
// Why windows: arXiv's OAI-PMH lists records in identifier order with datestamps in no order, so
// a list cannot be resumed "from the last datestamp seen". A list bounded by from/until can be
// re-listed from its start, and that is all a lost resumption token then costs.

export interface HarvestWindow {
  idx: number;
  /** Inclusive YYYY-MM-DD; null: from the repository's first record. */
  from: string | null;
  /** Inclusive YYYY-MM-DD; null: up to now (the run's last window). */
  until: string | null;
}

/**
 * The first window of a cold run takes everything up to here. arXiv's OAI repository dates its
 * records from 2007-05 on (its earliestDatestamp); older papers carry the datestamps of their
 * later metadata updates.
 */
export const FIRST_WINDOW_UNTIL = "2007-05-31";
/** The first dated window is a month long; later ones are sized from what the previous one held. */
const FIRST_WINDOW_DAYS = 30;
const MAX_WINDOW_DAYS = 366;
const DAY_MS = 86_400_000;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (date: string) => Date.parse(`${date}T00:00:00Z`);

export function firstColdWindow(): HarvestWindow {
  return { idx: 0, from: null, until: FIRST_WINDOW_UNTIL };
}

export function refreshWindow(watermark: string): HarvestWindow {
  return { idx: 0, from: watermark, until: null };
}

/**
 * The window after one that has been listed whole in `pages` pages: long enough to hold about
 * `targetPages` pages at the density just seen (grown at most fourfold, shrunk to a day at
 * least), and open-ended once it reaches today, which makes it the run's last.
 * Null: the finished window was the last.
 */
export function nextWindow(
  done: HarvestWindow,
  pages: number,
  targetPages: number,
  today: string,
): HarvestWindow | null {
  if (done.until === null) return null;
  const from = day(dayMs(done.until) + DAY_MS);
  const previousDays =
    done.from === null ? FIRST_WINDOW_DAYS : Math.round((dayMs(done.until) - dayMs(done.from)) / DAY_MS) + 1;
  const scaled = pages === 0 ? previousDays * 4 : Math.round((previousDays * targetPages) / pages);
  const days = Math.max(1, Math.min(MAX_WINDOW_DAYS, previousDays * 4, scaled));
  const until = day(dayMs(from) + (days - 1) * DAY_MS);
  // A window that reaches today stays open: records stamped while the run goes on land in it.
  if (until >= today) return { idx: done.idx + 1, from, until: null };
  return { idx: done.idx + 1, from, until };
}

export interface RetryPlan {
  kind: "retry";
  delayMs: number;
  /** The attempt number the retried message carries (unchanged for a gate refusal). */
  attempt: number;
}

export interface RetrySettings {
  baseMs: number;
  maxMs: number;
  budgetMs: number;
}

/**
 * What to do after a failed attempt: back off exponentially by attempt with full jitter in the
 * upper half (so many isolates do not retry in step), never sooner than the upstream asked, and
 * give up once the page has been failing for longer than the budget. A refusal by our own crawl
 * gate (it is cooling down after an upstream's 429) is not a failure: it waits exactly as long
 * as the gate says and keeps the attempt count.
 */
export function planRetry(
  failure: { attempt: number; failingSinceMs: number; retryAfterMs: number | undefined; gateRefusal: boolean },
  settings: RetrySettings,
  nowMs: number,
  random: () => number = Math.random,
): RetryPlan | { kind: "give_up"; failingForMs: number } {
  if (failure.gateRefusal)
    return {
      kind: "retry",
      delayMs: Math.max(1000, failure.retryAfterMs ?? settings.baseMs),
      attempt: failure.attempt,
    };
  const failingForMs = nowMs - failure.failingSinceMs;
  if (failingForMs >= settings.budgetMs) return { kind: "give_up", failingForMs };
  const exponential = Math.min(settings.maxMs, settings.baseMs * 2 ** Math.min(30, failure.attempt - 1));
  const jittered = Math.round(exponential * (0.5 + random() / 2));
  return { kind: "retry", delayMs: Math.max(jittered, failure.retryAfterMs ?? 0), attempt: failure.attempt + 1 };
}
