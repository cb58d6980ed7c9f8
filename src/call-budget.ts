// What one call (a tool call over /mcp or from a page) may spend of the platform's per-invocation
// limits: D1 queries, subrequests (fetches and Durable Object calls) and time. Cloudflare ends an
// invocation that passes them (D1: 1,000 queries on the paid plan, 50 on the free one; subrequests:
// 10,000 paid, 50 free), and an untyped D1 error would fail the whole call; so the call counts
// what it spends here, a step that would pass the budget is refused with a typed error before it
// starts, and a long task (a bibliography) asks `has()` before each piece and answers the rest as
// unchecked, with where to continue.
// nodejs_compat provides node:async_hooks in the Worker (declared in src/node-async-hooks.d.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import { PapersError } from "./errors";

export interface CallLimits {
  /**
   * D1 calls: a statement run alone, or a batch (D1's limit is "queries per Worker invocation
   * (read subrequest limits)": a call to the database is a subrequest, and a batch is one call).
   */
  d1Queries: number;
  /** fetch() calls and Durable Object calls. */
  subrequests: number;
  /** Wall time from the call's start. */
  ms: number;
}

export interface CallSpend {
  d1_queries: number;
  subrequests: number;
  ms: number;
}

/** The call's budget ran out: nothing was sent; `retryable` (a new call has a new budget). */
export class CallBudgetSpent extends PapersError {
  override name = "CallBudgetSpent";
}

export const isCallBudgetSpent = (error: unknown): error is CallBudgetSpent => error instanceof CallBudgetSpent;

export class CallBudget {
  private d1 = 0;
  private sub = 0;
  /** How many steps the budget refused (a step that caught the refusal may have answered less). */
  refused = 0;
  readonly startedAt: number;

  constructor(
    readonly limits: CallLimits,
    now = Date.now(),
  ) {
    this.startedAt = now;
  }

  /** Epoch ms by which the call's work must be over. */
  get deadline(): number {
    return this.startedAt + this.limits.ms;
  }

  /** Is there room for this much more (and time left)? */
  has(need: { d1Queries?: number; subrequests?: number } = {}): boolean {
    return (
      this.d1 + (need.d1Queries ?? 0) <= this.limits.d1Queries &&
      this.sub + (need.subrequests ?? 0) <= this.limits.subrequests &&
      Date.now() < this.deadline
    );
  }

  /** Counts D1 calls about to be made; refuses them (nothing counted) when they would pass the limit. */
  spendD1(calls: number): void {
    if (this.d1 + calls > this.limits.d1Queries) {
      this.refused++;
      throw spent(`its ${this.limits.d1Queries} D1 queries`, this.d1, calls);
    }
    this.d1 += calls;
  }

  /**
   * Counts D1 calls that must be made whatever is left (the call's closing cache writes): the
   * limits keep headroom under the platform's for them (900 of 1,000 by default).
   */
  spendD1Anyway(calls: number): void {
    this.d1 += calls;
  }

  /** Counts subrequests about to be made (a fetch, a Durable Object call); refuses them past the limit. */
  spendSubrequests(count: number, what: string): void {
    if (this.sub + count > this.limits.subrequests) {
      this.refused++;
      throw spent(`its ${this.limits.subrequests} subrequests (${what})`, this.sub, count);
    }
    this.sub += count;
  }

  spent(now = Date.now()): CallSpend {
    return { d1_queries: this.d1, subrequests: this.sub, ms: now - this.startedAt };
  }
}

function spent(what: string, used: number, asked: number): CallBudgetSpent {
  return new CallBudgetSpent(
    "call_budget_spent",
    `This call has used ${used} of ${what}; ${asked} more would pass it.`,
    {
      retryable: true,
      recovery: "Call again for the rest (a bibliography answers next_start); work done so far is cached.",
    },
  );
}

/** A budget that never refuses (background work: a harvest step has its own limits). */
export const unlimitedBudget = (): CallBudget =>
  new CallBudget({
    d1Queries: Number.POSITIVE_INFINITY,
    subrequests: Number.POSITIVE_INFINITY,
    ms: Number.POSITIVE_INFINITY,
  });

/**
 * The platform counts per invocation (one HTTP request), not per tool call: a JSON-RPC batch of 20
 * calls is one invocation. The route runs the request's work inside one budget; every tool call
 * in it spends from that one (runTool makes its own only outside such a request: the pages, tests).
 */
const invocation = new AsyncLocalStorage<CallBudget>();

export function withInvocationBudget<T>(budget: CallBudget, work: () => T): T {
  return invocation.run(budget, work);
}

export function invocationBudget(): CallBudget | undefined {
  return invocation.getStore();
}
