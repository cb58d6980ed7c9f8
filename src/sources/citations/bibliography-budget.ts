// A bibliography's check within its call's budget (src/call-budget.ts): an entry starts only when
// the budget has room for it at its most beside the entries running and the answer's end; one
// without room waits for a running entry to finish, then is left for the next call, unchecked with
// the start to continue from. An entry during which a step was refused stands only if it matched.
import { type CallBudget, isCallBudgetSpent } from "../../call-budget";
import type { AppContext } from "../../context";
import type { ReadEntry } from "./entry-formats";

/** An entry the call's budget (D1 queries, subrequests, time) left no room for: `start` continues from it. */
export interface BudgetUnchecked {
  source: "call_budget";
  reason: string;
  retry_after_ms: null;
  start: number;
}

/**
 * What one entry may spend at most, kept free for each entry in flight before another starts, so
 * that an entry rarely runs out half-way (one that does is unchecked, never misread): its longest
 * chain asks Crossref for a DOI, doi.org for its agency, Crossref's matcher, OpenAlex's title
 * search, OpenAlex for the published version and Crossref for an NBER paper's article, each a
 * fetch and up to three calls to its gate (24 subrequests), after about 8 D1 calls of mirror walks
 * and cache reads (bench:limits: 200 entries, 882 D1 calls).
 */
const ENTRY_RESERVE = { d1Queries: 16, subrequests: 24 };
const FINISH_RESERVE = { d1Queries: 4, subrequests: 0 };

/** An entry left for the next call. */
export interface BudgetCheckedEntry {
  n: number;
  verdict: "unchecked";
  tried: string[];
  unchecked: BudgetUnchecked[];
}

/** The entries being checked now, and those waiting for room in the budget. */
export interface InFlight {
  count: number;
  waiting: (() => void)[];
}

/**
 * One entry's check within the call's budget: left for the next call when the budget has no room
 * for it beside those running (`inFlight`), or when a step of it was refused.
 */
export async function withinBudget<T extends { verdict: string }>(
  ctx: AppContext,
  entry: ReadEntry,
  index: number,
  inFlight: InFlight,
  check: () => Promise<T>,
): Promise<T | BudgetCheckedEntry> {
  const budget = ctx.call?.budget;
  if (!budget) return check();
  // No room beside those running: wait for one to finish (it may leave room), then look again.
  while (!hasRoom(budget, inFlight.count + 1)) {
    if (inFlight.count === 0) return budgetUnchecked(entry, index, budget);
    await new Promise<void>((resolve) => inFlight.waiting.push(resolve));
  }
  inFlight.count++;
  const refusedBefore = budget.refused;
  let result: T | BudgetCheckedEntry;
  try {
    result = await check();
  } catch (error) {
    if (!isCallBudgetSpent(error)) throw error;
    result = budgetUnchecked(entry, index, budget);
  } finally {
    inFlight.count--;
    for (const wake of inFlight.waiting.splice(0)) wake();
  }
  // A step refused on the way may have been read as "nothing there": only a match stands.
  if (budget.refused > refusedBefore && result.verdict !== "verified" && result.verdict !== "differs")
    return budgetUnchecked(entry, index, budget);
  return result;
}

/** Room in the budget for `entries` entries at their most, and for the answer's BibTeX after them. */
function hasRoom(budget: CallBudget, entries: number): boolean {
  return budget.has({
    d1Queries: ENTRY_RESERVE.d1Queries * entries + FINISH_RESERVE.d1Queries,
    subrequests: ENTRY_RESERVE.subrequests * entries + FINISH_RESERVE.subrequests,
  });
}

function budgetUnchecked(entry: ReadEntry, index: number, budget: CallBudget): BudgetCheckedEntry {
  const spent = budget.spent();
  const { limits } = budget;
  const reason =
    spent.ms >= limits.ms
      ? `this call's time (${limits.ms} ms) ran out`
      : `this call's budget ran short (${spent.d1_queries} of ${limits.d1Queries} D1 queries, ` +
        `${spent.subrequests} of ${limits.subrequests} subrequests used)`;
  return {
    n: entry.n,
    verdict: "unchecked",
    tried: [],
    unchecked: [{ source: "call_budget", reason, retry_after_ms: null, start: index }],
  };
}

/** Where the next call starts: the first entry the budget left unchecked (null: none). */
export function firstBudgetUnchecked(entries: readonly { unchecked?: readonly { source: string }[] }[]): number | null {
  for (const entry of entries)
    for (const u of entry.unchecked ?? []) if (u.source === "call_budget") return (u as BudgetUnchecked).start;
  return null;
}
