// Where the project is, and the environment every wrangler process runs with. Its own module so
// that the seed (scripts/seed-local.ts) and the stack that runs it (dev-server.ts) do not import
// each other.
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
