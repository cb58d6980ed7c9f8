// npm run mirror:verify: the mirror's integrity on a D1 database (local by default, --remote for
// the deployed one): SQLite's quick_check, FTS5's integrity-check against the papers table, and
// counts that must agree (every paper has its primary-category row, no orphan category rows,
// harvest_state.records = the number of papers). A sharded mirror: --shards "DB, ARXIV_SHARD_2@2024-01"
// (ARXIV_MIRROR_SHARDS' value) checks every shard, and that each holds only its months' papers.
// Exits 1 when any check fails.
import { parseShardSpec } from "../../src/shard-spec.ts";
import { FTS_INTEGRITY_SQL, MIRROR_SCHEMA_VERSION, VERIFY_COUNTS_SQL } from "../../src/store/arxiv-row.ts";
import { monthStartKey } from "../../src/store/arxiv-key.ts";
import { wranglerSync } from "../lib/wrangler-env.ts";

/** The first key of an ID month ("2024-01"), as the Worker's shard map computes it. */
const monthKey = (month) => monthStartKey(new Date(`${month}-01T00:00:00Z`));

const args = process.argv.slice(2);
const where = args.includes("--remote")
  ? ["--remote"]
  : ["--local", ...(args.includes("--persist-to") ? ["--persist-to", args[args.indexOf("--persist-to") + 1]] : [])];
// --config FILE: a wrangler config other than wrangler.toml (one that names the shards' bindings).
if (args.includes("--config")) where.push("--config", args[args.indexOf("--config") + 1]);

const specs = parseShardSpec(args.includes("--shards") ? args[args.indexOf("--shards") + 1] : "DB");

function query(binding, sql) {
  return JSON.parse(wranglerSync("d1", "execute", binding, ...where, "--json", "--command", sql))[0].results;
}

const checks = [];
let papers = 0;
let categoryRows = 0;
for (const [index, spec] of specs.entries()) {
  const label = specs.length > 1 ? `${spec.binding}: ` : "";
  const integrity = query(spec.binding, "PRAGMA quick_check")
    .map((row) => Object.values(row)[0])
    .join("; ");
  checks.push([`${label}SQLite quick_check`, integrity === "ok", integrity]);
  let fts = "ok";
  try {
    query(spec.binding, FTS_INTEGRITY_SQL);
  } catch (error) {
    fts =
      String(error.stderr || error.message)
        .split("\n")
        .find((line) => /fts5|corrupt|ERROR/i.test(line)) ?? "failed";
  }
  checks.push([`${label}FTS5 integrity-check (index = papers table)`, fts === "ok", fts]);
  const [counts] = query(spec.binding, VERIFY_COUNTS_SQL);
  papers += counts.papers;
  categoryRows += counts.category_rows;
  checks.push([`${label}every paper has its primary-category row`, counts.missing === 0, `${counts.missing} missing`]);
  checks.push([`${label}no category row without its paper`, counts.orphans === 0, `${counts.orphans} orphans`]);
  checks.push([
    `${label}harvest_state.records = papers`,
    counts.state_records === counts.papers,
    `${counts.state_records} vs ${counts.papers}`,
  ]);
  checks.push([
    `${label}schema version`,
    counts.schema_version === MIRROR_SCHEMA_VERSION,
    String(counts.schema_version),
  ]);
  if (specs.length > 1) {
    const first = spec.fromMonth ? monthKey(spec.fromMonth) : 0;
    const next = specs[index + 1];
    const end = next ? monthKey(next.fromMonth) : Number.MAX_SAFE_INTEGER;
    const [outside] = query(
      spec.binding,
      `SELECT count(*) AS n FROM arxiv_papers WHERE paper_key < ${first} OR paper_key >= ${end}`,
    );
    checks.push([`${label}every paper in this shard's months`, outside.n === 0, `${outside.n} outside`]);
  }
}

console.log(
  `arXiv mirror: ${papers.toLocaleString("en-US")} papers, ${categoryRows.toLocaleString("en-US")} category rows` +
    (specs.length > 1 ? ` in ${specs.length} shards` : ""),
);
for (const [name, ok, detail] of checks) console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : `: ${detail}`}`);
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
