// The caller's side of the CrawlGate: a request's turn (a lease at once, or a queued slot, a wait
// and a departure) and the lease given back once the answer's headers are in. Every gate call is
// a Durable Object call, counted like the fetch itself in the call's subrequest budget.
import type { UpstreamSettings } from "../config";
import { PapersError, type PapersErrorOptions } from "../errors";
import type { AppContext } from "../context";
// Types only: the gate's module imports cloudflare:workers, which the offline checker's bundle lacks.
import type { CrawlGate, GateSettings, ReleaseReport, ReserveRefusal } from "./gate";

type GateStub = DurableObjectStub<CrawlGate>;

/** Requests made outside a tool call (the harvest, a cron) queue under this name. */
export const BACKGROUND_CLIENT = "background";

/** Why our own gate did not let a request go; `deadline`: the call's time ran out while it waited its turn. */
export type GateRefusalKind = ReserveRefusal | "deadline";

/**
 * Our own crawl gate said "not now" (it is cooling down after the upstream's 429, its queue is past
 * the caller's budget, the caller already holds its share of it, or the caller's time ran out
 * while it waited): nothing was sent upstream. A harvest waits and tries again without counting a
 * failure; a reference lookup does not fall back to another source for it.
 */
export class GateRefusal extends PapersError {
  override name = "GateRefusal";
  constructor(
    readonly kind: GateRefusalKind,
    reason: "rate_limited" | "timeout",
    message: string,
    options: PapersErrorOptions,
  ) {
    super(reason, message, options);
  }
}

/**
 * What a request that waits its turn costs at least: reserve, depart, the fetch and the lease's
 * release (a request that finds the gate free leaves with its reserve: 3). A call checks it has
 * that much room before reserving, so that no request is left half made.
 */
export const REQUEST_SUBREQUESTS = 4;

/** A lease outlives its request's timeout by this much: the gate's grant before the fetch, the release after it. */
const LEASE_GRACE_MS = 1_000;

/** A request's lease: its holder sends, then gives it back with endTurn. */
export interface Turn {
  gate: GateStub;
  lease: string;
  /** The gate is recovering from a cooldown. */
  cooling: boolean;
}

export function gateFor(ctx: AppContext, name: string): GateStub {
  return ctx.env.CRAWL_GATE.get(ctx.env.CRAWL_GATE.idFromName(name));
}

/**
 * Waits for a request's turn at the upstream's gate: a lease, within `deadline`. A client holding
 * its share of the queue asks again when a place of it frees; every other "not now" is a
 * GateRefusal; a call whose budget cannot pay for the request gets CallBudgetSpent.
 */
export async function takeTurn(
  ctx: AppContext,
  upstream: string,
  settings: UpstreamSettings,
  deadline: number,
): Promise<Turn> {
  const gate = gateFor(ctx, settings.gate);
  const client = ctx.call?.client ?? BACKGROUND_CLIENT;
  let releaseCounted = false;
  for (;;) {
    if (Date.now() >= deadline) throw deadlineRefusal(upstream);
    // The release is counted with the turn's first call: a request holding a lease can always give it back.
    const reserveCost = releaseCounted ? 1 : 2;
    spendSubrequests(ctx, upstream, reserveCost, reserveCost + 2, `the ${settings.gate} gate's reserve`);
    releaseCounted = true;
    const answer = await gate.reserve({
      ...gateSettings(settings),
      client,
      leaseMs: leaseMs(settings, deadline),
      maxWaitMs: Math.max(0, deadline - Date.now()),
    });
    if (answer.granted && "lease" in answer) return { gate, lease: answer.lease, cooling: answer.cooling };
    if (answer.granted) {
      await sleep(answer.waitMs);
      const lease = await departWhenClear(ctx, gate, upstream, settings, { slot: answer.slot, client, deadline });
      return { gate, lease, cooling: answer.cooling };
    }
    // Its own requests fill its share: this one waits for a place rather than queueing ahead of others.
    if (answer.reason === "share" && Date.now() + answer.retryAfterMs < deadline) {
      await sleep(answer.retryAfterMs);
      continue;
    }
    throw reserveRefusal(upstream, answer.reason, answer.retryAfterMs);
  }
}

/** Gives the lease back with how the request ended; the gate's cooldown when the answer was a slow-down. */
export async function endTurn(turn: Turn, report: ReleaseReport): Promise<number | null> {
  try {
    return (await turn.gate.release(turn.lease, report)).cooldownMs;
  } catch (error) {
    // The lease is freed at its request's timeout anyway; the answer is not lost for this.
    console.error("crawl gate: a lease could not be released", error);
    return null;
  }
}

/** After waiting for a slot: send only when the gate agrees (spacing since the last departure, a free lease, no cooldown). */
async function departWhenClear(
  ctx: AppContext,
  gate: GateStub,
  upstream: string,
  settings: UpstreamSettings,
  holder: { slot: string; client: string; deadline: number },
): Promise<string> {
  for (;;) {
    // Sending with less time than this would spend the upstream's slot on a certain timeout.
    if (holder.deadline - Date.now() < minUsefulMs(settings.timeoutMs)) throw deadlineRefusal(upstream);
    spendSubrequests(ctx, upstream, 1, 2, `the ${settings.gate} gate's depart`);
    const answer = await gate.depart({
      ...gateSettings(settings),
      slot: holder.slot,
      client: holder.client,
      leaseMs: leaseMs(settings, holder.deadline),
    });
    if (answer.go) return answer.lease;
    if (answer.reason === "cooldown") {
      throw new GateRefusal(
        "cooldown",
        "rate_limited",
        `${upstream} asked us to slow down while this call waited; papers-mcp is cooling down before contacting it again.`,
        { retryable: true, retryAfterMs: answer.retryAfterMs, recovery: retryIn(answer.retryAfterMs) },
      );
    }
    if (Date.now() + answer.waitMs > holder.deadline) throw deadlineRefusal(upstream);
    await sleep(answer.waitMs);
  }
}

/**
 * Counts `count` subrequests about to be made in the call's budget, after checking there is room
 * for `need` (what the request still has to make): none is made when the rest could not be.
 * Outside a call (the harvest) nothing is counted.
 */
export function spendSubrequests(ctx: AppContext, upstream: string, count: number, need: number, what: string): void {
  const budget = ctx.call?.budget;
  if (!budget) return;
  if (!budget.has({ subrequests: need })) {
    if (Date.now() >= budget.deadline) throw deadlineRefusal(upstream);
    // No room: this throws CallBudgetSpent, counted as a refusal of the call's budget.
    budget.spendSubrequests(need, `${what} and the rest of a request to ${upstream}`);
  }
  budget.spendSubrequests(count, what);
}

function gateSettings(settings: UpstreamSettings): GateSettings {
  return { delayMs: settings.delayMs, marginMs: settings.marginMs, concurrency: settings.concurrency };
}

/** A lease lasts its request's own timeout: the fetch is aborted by then. */
function leaseMs(settings: UpstreamSettings, deadline: number): number {
  return Math.min(settings.timeoutMs, Math.max(0, deadline - Date.now())) + LEASE_GRACE_MS;
}

/** At least this much of a call's budget must be left to send a request. */
function minUsefulMs(timeoutMs: number): number {
  return Math.min(1000, Math.floor(timeoutMs / 4));
}

function reserveRefusal(upstream: string, reason: ReserveRefusal, retryAfterMs: number): GateRefusal {
  const message = {
    cooldown: `${upstream} asked us to slow down; papers-mcp is cooling down before contacting it again.`,
    queue_full: `${upstream} is busy: the next free request slot is later than this call's time budget allows.`,
    share: `${upstream}'s queue holds this client's share of requests, and none leaves within this call's time budget.`,
  }[reason];
  return new GateRefusal(reason, "rate_limited", message, {
    retryable: true,
    retryAfterMs,
    recovery: retryIn(retryAfterMs),
  });
}

export function deadlineRefusal(upstream: string): GateRefusal {
  return new GateRefusal(
    "deadline",
    "timeout",
    `This call's time ran out while it waited its turn to ask ${upstream}.`,
    {
      retryable: true,
      recovery: "Retry later, or narrow the request; nothing was sent upstream.",
    },
  );
}

const retryIn = (ms: number) => `Retry after ${Math.ceil(ms / 1000)} s.`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
