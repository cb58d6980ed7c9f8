// CrawlGate: one Durable Object per upstream (idFromName(gate name)). Every request to that
// upstream takes its turn here, so the limits hold across all isolates and regions:
// - spacing: departures are at least the configured delay apart;
// - leases: a request departs only with one of the upstream's concurrency leases, held until its
//   answer's headers (or its failure) are in, so the upstream never sees more requests in flight
//   than it allows (Crossref states its limit in x-concurrency-limit: learned and kept here);
// - fair shares: a client holds at most its share of the queued slots; its next request asks
//   again later instead of pushing every other client's slots further out;
// - cooldown: a rate-limit answer cools the whole upstream down, not just one isolate.
import { DurableObject } from "cloudflare:workers";

/** What every request tells the gate of its upstream (from config: upstreamSettings). */
export interface GateSettings {
  /** Minimum spacing between two requests as they arrive upstream ... */
  delayMs: number;
  /** ... kept by spacing departures this much more (spacingMs). */
  marginMs: number;
  /** Requests in flight at once until the upstream states its own limit. */
  concurrency: number;
}

export interface TurnRequest extends GateSettings {
  /** Who asks (the call's client, or "background" outside a call): its share of the queue. */
  client: string;
  /** How long a lease granted now may be held: the request's own timeout, so a crashed isolate cannot keep it. */
  leaseMs: number;
}

export interface ReserveRequest extends TurnRequest {
  /** The longest the caller may wait for its slot (its remaining time budget). */
  maxWaitMs: number;
}

/** Why a slot was refused: cooling down, the queue is past the caller's budget, or the caller holds its share. */
export type ReserveRefusal = "cooldown" | "queue_full" | "share";

export type ReserveResult =
  /** Nobody waits and a lease is free: send now, then release the lease. */
  | { granted: true; lease: string; cooling: boolean }
  /** A queued slot: sleep waitMs, then depart(slot). */
  | { granted: true; slot: string; waitMs: number; cooling: boolean }
  | { granted: false; reason: ReserveRefusal; retryAfterMs: number };

/** A slot's holder asks again just before it sends. */
export type DepartResult =
  | { go: true; lease: string }
  /** early: spacing since the last departure; busy: every lease is held. */
  | { go: false; reason: "early" | "busy"; waitMs: number }
  | { go: false; reason: "cooldown"; retryAfterMs: number };

/** How a leased request ended, given back with its lease. */
export interface ReleaseReport {
  /** ok: an answer that is no slow-down; rate_limited: 429, 503 with Retry-After, "Rate exceeded."; failed: no answer; not_sent. */
  answer: "ok" | "rate_limited" | "failed" | "not_sent";
  retryAfterMs?: number;
  /** The concurrency the upstream stated in this answer (Crossref's x-concurrency-limit). */
  statedConcurrency?: number;
}

interface QueuedSlot {
  id: string;
  client: string;
  /** When its holder is due to depart. */
  at: number;
  /** Its holder's deadline: past it the slot is dropped (the holder gave up or its isolate died). */
  expiresAt: number;
}

interface Lease {
  id: string;
  client: string;
  since: number;
  /** The request's own timeout from its departure: past it the lease is free again. */
  expiresAt: number;
}

export interface GateState {
  cooldownUntil: number;
  strikes: number;
  /** When the last request left. */
  lastDepartureAt?: number;
  queue: QueuedSlot[];
  leases: Lease[];
  /** Requests told to come back for want of a place in their client's share, until when (spread over departures). */
  deferred: { client: string; until: number }[];
  /** The concurrency the upstream last stated, and when (kept, so every isolate obeys it). */
  stated?: { limit: number; at: number };
  /** A lease's usual hold (a moving average of answered requests): the queue's slots are forecast by it. */
  holdMs?: number;
}

/** What /status shows of a gate. */
export interface GateInspection {
  cooldownUntil: number;
  strikes: number;
  lastDepartureAt: number | null;
  queue: { waiting: number; byClient: Record<string, number>; nextFreeSlotAt: number };
  inFlight: {
    leases: number;
    byClient: Record<string, number>;
    limit: number;
    limitSource: "stated" | "configured";
    statedAt: number | null;
    holdMs: number | null;
  };
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

/**
 * A client's share of the queued slots: as many as the upstream's leases, and at least 2. That
 * many waiting keep every lease busy as answers come back, so more would not make the client
 * faster, only push others back; the second covers the moment between a lease's release and the
 * next holder's departure. Another client's request then waits behind this many of each client.
 */
export function queueShare(limit: number): number {
  return Math.max(2, limit);
}

const COOLDOWN_BASE_MS = 5_000;
const COOLDOWN_CAP_MS = 10 * 60_000;
/** The shortest "ask again" hint: each ask is a Durable Object call of the caller's budget. */
const MIN_RETRY_MS = 25;
/** A lease's hold before any answer has been timed (Crossref answers in 0.3-1 s). */
const FIRST_HOLD_GUESS_MS = 250;
/** The most any upstream can state (a header past this is not believed). */
const MAX_STATED_CONCURRENCY = 50;
/** Kept slots after their holder's deadline, for the clock difference between isolate and gate. */
const SLOT_GRACE_MS = 1_000;

export class CrawlGate extends DurableObject<Env> {
  private state: GateState;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // A gate saved before leases existed has no queue or leases.
    const saved = ctx.storage.kv.get<Partial<GateState>>("state");
    this.state = {
      cooldownUntil: 0,
      strikes: 0,
      ...saved,
      queue: saved?.queue ?? [],
      leases: saved?.leases ?? [],
      deferred: saved?.deferred ?? [],
    };
  }

  /**
   * A request's turn: a lease at once when nobody waits, a queued slot otherwise, or a refusal
   * (cooling down, the slot is past the caller's budget, or the caller already holds its share).
   */
  reserve(request: ReserveRequest): ReserveResult {
    const now = Date.now();
    this.prune(now);
    const { state } = this;
    if (state.cooldownUntil > now)
      return { granted: false, reason: "cooldown", retryAfterMs: state.cooldownUntil - now };
    const cooling = state.strikes > 0;
    const limit = this.limit(request.concurrency);
    const spacing = spacingMs(request.delayMs, request.marginMs);
    if (state.queue.length === 0 && state.leases.length < limit && now >= (state.lastDepartureAt ?? 0) + spacing)
      return { granted: true, lease: this.grantLease(request, now), cooling };
    const mine = state.queue.filter((slot) => slot.client === request.client);
    if (mine.length >= queueShare(limit)) return this.deferForShare(request.client, mine[0]!, now, limit, spacing);
    const last = state.queue.at(-1);
    const at = Math.max(
      now,
      (state.lastDepartureAt ?? 0) + spacing,
      this.leaseFreeAt(now, limit, spacing),
      last ? last.at + this.forecastSpacing(spacing, limit) : 0,
    );
    if (at - now > request.maxWaitMs) return { granted: false, reason: "queue_full", retryAfterMs: at - now };
    const slot = {
      id: crypto.randomUUID(),
      client: request.client,
      at,
      expiresAt: now + request.maxWaitMs + SLOT_GRACE_MS,
    };
    this.save({ ...state, queue: [...state.queue, slot] });
    return { granted: true, slot: slot.id, waitMs: at - now, cooling };
  }

  /**
   * A slot's holder, about to send. Spacing counts between departures, not grants: a caller
   * whose timer woke early, or who follows one that left late, waits the difference; one that
   * finds every lease held asks again when the first is expected back; and a cooldown that began
   * while it waited (another caller's 429) stops it from sending at all.
   */
  depart(request: TurnRequest & { slot: string }): DepartResult {
    const now = Date.now();
    this.prune(now);
    const { state } = this;
    if (state.cooldownUntil > now) return { go: false, reason: "cooldown", retryAfterMs: state.cooldownUntil - now };
    const spacing = spacingMs(request.delayMs, request.marginMs);
    const earlyMs = Math.max(0, (state.lastDepartureAt ?? 0) + spacing - now);
    const limit = this.limit(request.concurrency);
    const busyMs = state.leases.length >= limit ? this.busyWaitMs(now, spacing) : 0;
    // Both told at once: a holder that woke early to find every lease held asks once more, not twice.
    if (earlyMs > 0 || busyMs > 0)
      return { go: false, reason: busyMs > 0 ? "busy" : "early", waitMs: Math.max(earlyMs, busyMs) };
    this.state = { ...state, queue: state.queue.filter((slot) => slot.id !== request.slot) };
    return { go: true, lease: this.grantLease(request, now) };
  }

  /**
   * A leased request is over (its answer's headers are in, or it failed): the lease is free. The
   * answer's news comes with it: a stated concurrency is kept, a slow-down starts a cooldown
   * (returned), a normal answer after one forgets the strikes.
   */
  release(lease: string, report: ReleaseReport): { cooldownMs: number | null } {
    const now = Date.now();
    const { state } = this;
    const held = state.leases.find((l) => l.id === lease);
    let next: GateState = { ...state, leases: state.leases.filter((l) => l.id !== lease) };
    if (held && (report.answer === "ok" || report.answer === "rate_limited")) {
      const hold = now - held.since;
      next.holdMs = state.holdMs === undefined ? hold : Math.round(0.7 * state.holdMs + 0.3 * hold);
    }
    const stated = report.statedConcurrency;
    if (stated !== undefined && Number.isInteger(stated) && stated >= 1 && stated <= MAX_STATED_CONCURRENCY)
      next.stated = { limit: stated, at: now };
    if (report.answer === "ok" && next.strikes !== 0) next = { ...next, strikes: 0 };
    this.save(next);
    return {
      cooldownMs: report.answer === "rate_limited" ? this.reportRateLimited(report.retryAfterMs).cooldownMs : null,
    };
  }

  /**
   * The upstream said "slow down" (429, 503 with Retry-After, arXiv's "Rate exceeded.").
   * Cooldown doubles with each strike up to a cap; an explicit Retry-After wins when larger. The
   * queue is emptied: its holders are refused at departure, and their slots would only hold later
   * requests back once the cooldown is over.
   */
  reportRateLimited(retryAfterMs?: number): { cooldownMs: number } {
    const now = Date.now();
    const strikes = this.state.strikes + 1;
    const backoff = Math.min(COOLDOWN_CAP_MS, COOLDOWN_BASE_MS * 2 ** (strikes - 1));
    const cooldownMs = Math.max(backoff, retryAfterMs ?? 0);
    const cooldownUntil = Math.max(this.state.cooldownUntil, now + cooldownMs);
    this.save({ ...this.state, strikes, cooldownUntil, queue: [], deferred: [] });
    return { cooldownMs };
  }

  /** A normal answer after a cooldown: forget the strikes. */
  reportOk(): void {
    if (this.state.strikes !== 0) this.save({ ...this.state, strikes: 0 });
  }

  /** The queue and the requests in flight, for /status; `settings` are the upstream's configured ones. */
  inspect(settings: GateSettings = { delayMs: 0, marginMs: 0, concurrency: 1 }): GateInspection {
    const now = Date.now();
    this.prune(now);
    const { state } = this;
    const limit = this.limit(settings.concurrency);
    const spacing = spacingMs(settings.delayMs, settings.marginMs);
    const last = state.queue.at(-1);
    const nextFreeSlotAt = Math.max(
      now,
      state.cooldownUntil,
      (state.lastDepartureAt ?? 0) + spacing,
      this.leaseFreeAt(now, limit, spacing),
      last ? last.at + this.forecastSpacing(spacing, limit) : 0,
    );
    return {
      cooldownUntil: state.cooldownUntil,
      strikes: state.strikes,
      lastDepartureAt: state.lastDepartureAt ?? null,
      queue: { waiting: state.queue.length, byClient: countByClient(state.queue), nextFreeSlotAt },
      inFlight: {
        leases: state.leases.length,
        byClient: countByClient(state.leases),
        limit,
        limitSource: state.stated ? "stated" : "configured",
        statedAt: state.stated?.at ?? null,
        holdMs: state.holdMs ?? null,
      },
    };
  }

  /**
   * The client holds its share: its request asks again when a place of it frees, which is when its
   * first queued slot leaves. Its requests already told to come back are spread over the departures
   * after that, one each, so that they do not all ask again at once (each ask is a subrequest).
   */
  private deferForShare(client: string, first: QueuedSlot, now: number, limit: number, spacing: number): ReserveResult {
    const { state } = this;
    const firstLeaves = Math.max(first.at, this.leaseFreeAt(now, limit, spacing));
    // Its first slot is due but every lease is held past its usual time: as a busy holder is told.
    const base = firstLeaves > now || state.leases.length < limit ? firstLeaves : now + this.busyWaitMs(now, spacing);
    const told = state.deferred.filter((deferred) => deferred.client === client).length;
    const retryAfterMs = Math.max(MIN_RETRY_MS, base + told * this.forecastSpacing(spacing, limit) - now);
    this.save({ ...state, deferred: [...state.deferred, { client, until: now + retryAfterMs }] });
    return { granted: false, reason: "share", retryAfterMs };
  }

  /** The upstream's own limit when it stated one, else the configured one. */
  private limit(configured: number): number {
    return this.state.stated?.limit ?? Math.max(1, configured);
  }

  /**
   * The slots' forecast spacing: the delay, or a lease's usual hold shared among the leases when
   * that is longer (Crossref answering in 1 s with one lease lets a request leave each second).
   * Holders woken by it rarely find every lease held, so they seldom have to ask again.
   */
  private forecastSpacing(spacing: number, limit: number): number {
    return Math.max(spacing, Math.round((this.state.holdMs ?? 0) / limit));
  }

  /** When a lease is expected free: now when one is, else when the first is due back (after the usual hold). */
  private leaseFreeAt(now: number, limit: number, spacing: number): number {
    if (this.state.leases.length < limit) return now;
    return Math.max(now, this.firstLeaseDue(spacing));
  }

  private firstLeaseDue(spacing: number): number {
    const hold = this.state.holdMs ?? Math.max(spacing, FIRST_HOLD_GUESS_MS);
    return Math.min(...this.state.leases.map((lease) => Math.min(lease.expiresAt, lease.since + hold)));
  }

  /**
   * Every lease is held: ask again when the first is due back; once it is overdue, after a quarter
   * of the time it has been held (a slow answer is asked about less and less often).
   */
  private busyWaitMs(now: number, spacing: number): number {
    const due = this.firstLeaseDue(spacing);
    if (due > now) return Math.max(MIN_RETRY_MS, due - now);
    const oldest = Math.min(...this.state.leases.map((lease) => lease.since));
    return Math.max(MIN_RETRY_MS, Math.round((now - oldest) / 4));
  }

  /** Grants a lease and notes the departure. */
  private grantLease(request: TurnRequest, now: number): string {
    const lease = { id: crypto.randomUUID(), client: request.client, since: now, expiresAt: now + request.leaseMs };
    this.save({ ...this.state, leases: [...this.state.leases, lease], lastDepartureAt: now });
    return lease.id;
  }

  /**
   * Drops the slots and leases whose holders are past their time (gave up, or their isolate died),
   * and the deferrals whose requests are due back.
   */
  private prune(now: number): void {
    const { queue, leases, deferred } = this.state;
    const live = <T>(items: T[], until: (item: T) => number) => items.filter((item) => until(item) > now);
    const next = {
      queue: live(queue, (slot) => slot.expiresAt),
      leases: live(leases, (lease) => lease.expiresAt),
      deferred: live(deferred, (deferral) => deferral.until),
    };
    if (
      next.queue.length === queue.length &&
      next.leases.length === leases.length &&
      next.deferred.length === deferred.length
    )
      return;
    this.save({ ...this.state, ...next });
  }

  private save(next: GateState): void {
    this.state = next;
    this.ctx.storage.kv.put("state", next);
  }
}

function countByClient(holders: readonly { client: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { client } of holders) counts[client] = (counts[client] ?? 0) + 1;
  return counts;
}
