// Where the project is, and the environment every wrangler process runs with. Its own module so
// that the seed (scripts/seed-local.ts) and the stack that runs it (dev-server.ts) do not import
// each other.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Environment for every wrangler process: no telemetry, no update check, no cf.json fetch. */
export function quietWranglerEnv(extra = {}) {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    NO_UPDATE_NOTIFIER: "1",
    ...extra,
  };
}

const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");

/** Runs the project's wrangler with these arguments and returns its stdout (a local config dir unless XDG_CONFIG_HOME is set). */
export function wranglerSync(...args: string[]): string {
  return execFileSync(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    env: quietWranglerEnv(
      process.env.XDG_CONFIG_HOME ? {} : { XDG_CONFIG_HOME: path.join(ROOT, ".wrangler", "config") },
    ),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
}
