// The one context carried from the entry (fetch, queue, cron, a Durable Object) down through
// routes, tools, sources, harvest and upstream: the bindings, the parsed configuration, a way to
// finish work after the answer, and the structured log. Code below the entry takes this instead of
// `env` and never parses the configuration itself.
import { type Config, loadConfig } from "./config";

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
