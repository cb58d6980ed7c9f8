// The one context carried from the entry (fetch, queue, cron, a Durable Object) down through
// routes, tools, sources, harvest and upstream: the bindings, the parsed configuration, a way to
// finish work after the answer, and the structured log. Code below the entry takes this instead of
// `env` and never parses the configuration itself.
import type { CallBudget } from "./call-budget";
import { type Config, loadConfig } from "./config";

/**
 * One call's own state, made once where the call starts (runTool) and read below it: who is
 * calling, what the call may still spend, its D1 sessions (one per database, so every read of the
 * call sees one state) and what it has read once (the mirror's state). Absent for background work.
 */
export interface CallScope {
  /** The rate limits' key for the caller (an OAuth user, a token digest, an IP): its fair share of the upstream gates. */
  readonly client: string;
  readonly budget: CallBudget;
  /** D1 sessions by binding name (read replication), opened on first use. */
  readonly sessions: Map<string, D1DatabaseSession>;
  /** Bookmarks a session starts from (a search's next page continues where its first page read); set before the first read. */
  readonly since: Record<string, string>;
  /** Reads made once per call, by name (the mirror's state). */
  readonly once: Map<string, Promise<unknown>>;
  /** Work the call finishes with, awaited before its answer is logged (the cache's write batch). */
  readonly atEnd: (() => Promise<void>)[];
  /** The call has answered: work still running writes as it would outside a call. */
  ended: boolean;
}

/** A scope for a call: empty sessions and memos. */
export function callScope(client: string, budget: CallBudget, since: Record<string, string> = {}): CallScope {
  return { client, budget, sessions: new Map(), since, once: new Map(), atEnd: [], ended: false };
}

/** Runs the call's `atEnd` work (each once; a failure is logged, never the call's answer). */
export async function finishCall(scope: CallScope): Promise<void> {
  scope.ended = true;
  const work = scope.atEnd.splice(0);
  await Promise.all(
    work.map((finish) => finish().catch((error: unknown) => console.error("a call's closing work failed", error))),
  );
}

/** The call's memo of `name`: `read` runs once per call (every time outside a call). */
export function oncePerCall<T>(
  ctx: { call?: CallScope | undefined },
  name: string,
  read: () => Promise<T>,
): Promise<T> {
  const once = ctx.call?.once;
  if (!once) return read();
  let promise = once.get(name) as Promise<T> | undefined;
  if (!promise) {
    promise = read();
    once.set(name, promise);
    // A failed read is not kept: the next step of the call may try again.
    promise.catch(() => once.delete(name));
  }
  return promise;
}

export interface AppContext {
  /** The Worker's bindings: D1, R2, Durable Objects, queues, rate limiters, secrets. */
  readonly env: Env;
  /** The configuration, parsed and validated once per env (see config.ts). */
  readonly config: Config;
  /** Lets work (cache writes, logs) finish after the answer is sent. */
  waitUntil(promise: Promise<unknown>): void;
  /**
   * Structured log lines, for the operator (JSON on stdout, one line each; off when
   * LOG_TOOL_CALLS=false). Lines given together are written in one console call.
   */
  log(...lines: Record<string, unknown>[]): void;
  /** The call this work belongs to (see CallScope); absent outside a call. */
  readonly call?: CallScope;
}

/** Outside a request (a test, a queue consumer that awaits its work) nothing outlives the caller: report failures. */
const settleInBackground = (promise: Promise<unknown>): void => {
  promise.catch((error: unknown) => console.error("background work failed", error));
};

/** The context for an env. Throws ConfigError when the configuration is invalid. */
export function appContext(env: Env, waitUntil: (promise: Promise<unknown>) => void = settleInBackground): AppContext {
  const config = loadConfig(env);
  return {
    env,
    config,
    waitUntil,
    log(...lines) {
      if (!config.LOG_TOOL_CALLS || lines.length === 0) return;
      const text = lines.map((line) => JSON.stringify(line)).join("\n");
      // Written after the answer has gone, and a call's lines in one write: under wrangler dev each console
      // call costs a millisecond or two (it crosses the inspector to wrangler's process, which shares the
      // machine's CPUs with the Worker), and nothing in the answer waits for it (bench:overhead).
      waitUntil(new Promise<void>((resolve) => setTimeout(() => resolve(console.log(text)), 0)));
    },
  };
}

/**
 * A log that holds its lines until `flush` writes them with the last one, in one write. Lines
 * logged after that (work the call left running) are written as they come.
 */
export function heldLog(log: AppContext["log"]): { log: AppContext["log"]; flush: AppContext["log"] } {
  let lines: Record<string, unknown>[] | null = [];
  return {
    log: (...more) => {
      if (lines) lines.push(...more);
      else log(...more);
    },
    flush: (...last) => {
      const all = [...(lines ?? []), ...last];
      lines = null;
      log(...all);
    },
  };
}
