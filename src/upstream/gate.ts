// CrawlGate: one Durable Object per upstream (idFromName(upstream name)). Every request to that
// upstream first reserves a slot here, so the configured spacing holds across all isolates and
// regions, and a rate-limit answer cools the whole upstream down, not just one isolate.
import { DurableObject } from "cloudflare:workers";

export interface ReserveRequest {
  /** Minimum spacing between two requests as they arrive upstream ... */
  delayMs: number;
  /** ... kept by spacing departures this much more (spacingMs). */
  marginMs: number;
  /** The longest the caller may wait for its slot (its remaining time budget). */
  maxWaitMs: number;
}

export type ReserveResult =
  | { granted: true; waitMs: number; cooling: boolean }
  | { granted: false; reason: "cooldown" | "queue_full"; retryAfterMs: number };

/** A caller that waited for its slot asks again just before it sends. */
export type DepartResult =
  | { go: true }
  | { go: false; reason: "early"; waitMs: number }
  | { go: false; reason: "cooldown"; retryAfterMs: number };

export interface GateState {
  nextSlotAt: number;
  cooldownUntil: number;
  strikes: number;
  /** When the last request actually left (a slot's holder confirmed it, or it left at once). */
  lastDepartureAt?: number;
}

/**
 * Spacing kept between departures: the configured delay plus a margin (CRAWL_GATE_MARGIN_MS), so
 * that the gaps measured at the upstream stay at or above the delay despite the jitter between
 * leaving and arriving (measured up to 26 ms through wrangler dev: bench:gate). With the default
 * 40 ms, arXiv's 3 s becomes 3.04 s and NBER's 1 s 1.04 s. No delay, no margin.
 */
export function spacingMs(delayMs: number, marginMs: number): number {
  return delayMs <= 0 ? 0 : delayMs + marginMs;
}

const COOLDOWN_BASE_MS = 5_000;
const COOLDOWN_CAP_MS = 10 * 60_000;

export class CrawlGate extends DurableObject<Env> {
  private state: GateState;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.state = ctx.storage.kv.get<GateState>("state") ?? { nextSlotAt: 0, cooldownUntil: 0, strikes: 0 };
  }

  /** Grants the next free slot, or refuses at once (cooling down, or the wait exceeds the budget). */
  reserve(request: ReserveRequest): ReserveResult {
    const now = Date.now();
    if (this.state.cooldownUntil > now) {
      return { granted: false, reason: "cooldown", retryAfterMs: this.state.cooldownUntil - now };
    }
    const spacing = spacingMs(request.delayMs, request.marginMs);
    const slot = Math.max(now, this.state.nextSlotAt, (this.state.lastDepartureAt ?? 0) + spacing);
    const waitMs = slot - now;
    if (waitMs > request.maxWaitMs) {
      return { granted: false, reason: "queue_full", retryAfterMs: waitMs };
    }
    this.save({ ...this.state, nextSlotAt: slot + spacing });
    return { granted: true, waitMs, cooling: this.state.strikes > 0 };
  }

  /**
   * A slot's holder, about to send. Spacing counts between departures, not grants: a caller
   * whose timer woke early, or who follows one that left late, waits the difference; and a
   * cooldown that began while it waited (another caller's 429) stops it from sending at all.
   */
  depart(request: { delayMs: number; marginMs: number }): DepartResult {
    const now = Date.now();
    if (this.state.cooldownUntil > now)
      return { go: false, reason: "cooldown", retryAfterMs: this.state.cooldownUntil - now };
    const earliest = (this.state.lastDepartureAt ?? 0) + spacingMs(request.delayMs, request.marginMs);
    if (now < earliest) return { go: false, reason: "early", waitMs: earliest - now };
    this.save({ ...this.state, lastDepartureAt: now });
    return { go: true };
  }

  /**
   * The upstream said "slow down" (429, 503 with Retry-After, arXiv's "Rate exceeded.").
   * Cooldown doubles with each strike up to a cap; an explicit Retry-After wins when larger.
   */
  reportRateLimited(retryAfterMs?: number): { cooldownMs: number } {
    const now = Date.now();
    const strikes = this.state.strikes + 1;
    const backoff = Math.min(COOLDOWN_CAP_MS, COOLDOWN_BASE_MS * 2 ** (strikes - 1));
    const cooldownMs = Math.max(backoff, retryAfterMs ?? 0);
    const cooldownUntil = Math.max(this.state.cooldownUntil, now + cooldownMs);
    this.save({ strikes, cooldownUntil, nextSlotAt: Math.max(this.state.nextSlotAt, cooldownUntil) });
    return { cooldownMs };
  }

  /** A normal answer after a cooldown: forget the strikes. */
  reportOk(): void {
    if (this.state.strikes !== 0) this.save({ ...this.state, strikes: 0 });
  }

  inspect(): GateState {
    return { ...this.state };
  }

  private save(next: GateState): void {
    this.state = next;
    this.ctx.storage.kv.put("state", next);
  }
}
