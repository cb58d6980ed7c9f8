// npm run mirror:verify: the mirror's integrity on a D1 database (local by default, --remote for
// the deployed one): SQLite's quick_check, FTS5's integrity-check against the papers table, and
// counts that must agree (every paper has its primary-category row, no orphan category rows,
// harvest_state.records = the number of papers). Exits 1 when any check fails.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { ROOT, quietWranglerEnv } from "../lib/dev-server.mjs";

const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const args = process.argv.slice(2);
const where = args.includes("--remote") ? ["--remote"] : ["--local", ...(args.includes("--persist-to") ? ["--persist-to", args[args.indexOf("--persist-to") + 1]] : [])];

function query(sql) {
  const out = execFileSync(process.execPath, [WRANGLER, "d1", "execute", "DB", ...where, "--json", "--command", sql], {
    cwd: ROOT,
    env: quietWranglerEnv(process.env.XDG_CONFIG_HOME ? {} : { XDG_CONFIG_HOME: path.join(ROOT, ".wrangler", "config") }),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out)[0].results;
}

const checks = [];
const integrity = query("PRAGMA quick_check").map((row) => Object.values(row)[0]).join("; ");
checks.push(["SQLite quick_check", integrity === "ok", integrity]);
let fts = "ok";
try {
  query("INSERT INTO arxiv_papers_fts (arxiv_papers_fts, rank) VALUES ('integrity-check', 1)");
} catch (error) {
  fts = String(error.stderr || error.message).split("\n").find((line) => /fts5|corrupt|ERROR/i.test(line)) ?? "failed";
}
checks.push(["FTS5 integrity-check (index = papers table)", fts === "ok", fts]);
const [counts] = query(`SELECT (SELECT count(*) FROM arxiv_papers) AS papers,
  (SELECT count(*) FROM arxiv_paper_categories) AS category_rows,
  (SELECT count(*) FROM arxiv_papers p WHERE NOT EXISTS (SELECT 1 FROM arxiv_paper_categories c WHERE c.category = json_extract(p.categories, '$[0]') AND c.paper_key = p.paper_key)) AS missing,
  (SELECT count(*) FROM arxiv_paper_categories c WHERE NOT EXISTS (SELECT 1 FROM arxiv_papers p WHERE p.paper_key = c.paper_key)) AS orphans,
  (SELECT records FROM harvest_state WHERE source = 'arxiv') AS state_records,
  (SELECT version FROM mirror_schema WHERE source = 'arxiv') AS schema_version`);
checks.push(["every paper has its primary-category row", counts.missing === 0, `${counts.missing} missing`]);
checks.push(["no category row without its paper", counts.orphans === 0, `${counts.orphans} orphans`]);
checks.push(["harvest_state.records = papers", counts.state_records === counts.papers, `${counts.state_records} vs ${counts.papers}`]);
checks.push(["schema version", counts.schema_version === 1, String(counts.schema_version)]);

console.log(`arXiv mirror: ${counts.papers.toLocaleString("en-US")} papers, ${counts.category_rows.toLocaleString("en-US")} category rows`);
for (const [name, ok, detail] of checks) console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : `: ${detail}`}`);
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
