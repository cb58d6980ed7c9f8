// npm start: migrate the local D1, load bundled sample data when it is missing, then run
// wrangler dev on 127.0.0.1:8787 with telemetry, update checks and the cf.json fetch off.
// Upstreams are the real arXiv/NBER hosts unless .dev.vars points them elsewhere
// (npm run upstream:fake prints the lines for a fully offline run).
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { ROOT, quietWranglerEnv } from "./lib/dev-server.ts";
import { seedLocal } from "./seed-local.ts";

const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const port = process.env.PORT ?? "8787";
const env = quietWranglerEnv();

execFileSync(process.execPath, [WRANGLER, "d1", "migrations", "apply", "DB", "--local"], {
  cwd: ROOT,
  env,
  stdio: "inherit",
});
seedLocal();

console.log(`\npapers-mcp: MCP endpoint http://127.0.0.1:${port}/mcp  (landing page http://127.0.0.1:${port}/)\n`);
const dev = spawn(process.execPath, [WRANGLER, "dev", "--ip", "127.0.0.1", "--port", port, ...process.argv.slice(2)], {
  cwd: ROOT,
  env,
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
