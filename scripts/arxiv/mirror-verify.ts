// npm run mirror:verify: the mirror's integrity on a D1 database (local by default, --remote for
// the deployed one): SQLite's quick_check, FTS5's integrity-check against the papers table, and
// counts that must agree (every paper has its primary-category row, no orphan category rows,
// harvest_state.records = the number of papers). Exits 1 when any check fails.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { FTS_INTEGRITY_SQL, MIRROR_SCHEMA_VERSION, VERIFY_COUNTS_SQL } from "../../src/store/arxiv-row.ts";
import { ROOT, quietWranglerEnv } from "../lib/dev-server.ts";

const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const args = process.argv.slice(2);
const where = args.includes("--remote")
  ? ["--remote"]
  : ["--local", ...(args.includes("--persist-to") ? ["--persist-to", args[args.indexOf("--persist-to") + 1]] : [])];

function query(sql) {
  const out = execFileSync(process.execPath, [WRANGLER, "d1", "execute", "DB", ...where, "--json", "--command", sql], {
    cwd: ROOT,
    env: quietWranglerEnv(
      process.env.XDG_CONFIG_HOME ? {} : { XDG_CONFIG_HOME: path.join(ROOT, ".wrangler", "config") },
    ),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out)[0].results;
}

const checks = [];
const integrity = query("PRAGMA quick_check")
  .map((row) => Object.values(row)[0])
  .join("; ");
checks.push(["SQLite quick_check", integrity === "ok", integrity]);
let fts = "ok";
try {
  query(FTS_INTEGRITY_SQL);
} catch (error) {
  fts =
    String(error.stderr || error.message)
      .split("\n")
      .find((line) => /fts5|corrupt|ERROR/i.test(line)) ?? "failed";
}
checks.push(["FTS5 integrity-check (index = papers table)", fts === "ok", fts]);
const [counts] = query(VERIFY_COUNTS_SQL);
checks.push(["every paper has its primary-category row", counts.missing === 0, `${counts.missing} missing`]);
checks.push(["no category row without its paper", counts.orphans === 0, `${counts.orphans} orphans`]);
checks.push([
  "harvest_state.records = papers",
  counts.state_records === counts.papers,
  `${counts.state_records} vs ${counts.papers}`,
]);
checks.push(["schema version", counts.schema_version === MIRROR_SCHEMA_VERSION, String(counts.schema_version)]);

console.log(
  `arXiv mirror: ${counts.papers.toLocaleString("en-US")} papers, ${counts.category_rows.toLocaleString("en-US")} category rows`,
);
for (const [name, ok, detail] of checks) console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : `: ${detail}`}`);
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
