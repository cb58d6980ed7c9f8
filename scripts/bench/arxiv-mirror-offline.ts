// npm run bench:mirror:offline -- --papers 3200000 [--db FILE] [--quality-sample 100] [--build-only]
// The mirror's search at a size wrangler dev is slow to start on (the 3.2 million run): the
// Worker's own planner and ranker (bundled by esbuild) against a node:sqlite file through a
// D1-shaped wrapper, so each time is the database's time plus the ranker's TypeScript, with no
// MCP or HTTP around it. Builds the file first (synthetic + real papers, ranking tables) unless
// --db names one that exists. Writes bench/results/mirror-offline-<papers>.md and .json.
import { latency, round } from "./mirror-stack.ts";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ROOT } from "../lib/dev-server.ts";
import { d1Over } from "../lib/d1-node.ts";
import { importWorkerCode } from "../lib/worker-code.ts";
import { buildRankTables } from "../arxiv/rank-tables.ts";
import { fillMirror, samplePools } from "./arxiv-synthetic.ts";
import { knownItemSearches, knownRecords, loadResearchQuestions, questionText } from "./known-items.ts";
import { createMirrorFile } from "../lib/mirror-file.ts";

const arg = (flag, fallback) => {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const PAPERS = Number(arg("--papers", "1000000"));
const FILE = arg("--db", path.join(os.tmpdir(), `papers-mcp-mirror-${PAPERS}.sqlite`));
const QUALITY_SAMPLE = Number(arg("--quality-sample", "100"));

const report: Record<string, any> = {
  name: "mirror-offline",
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  papers: PAPERS,
  file: FILE,
};
const pools = samplePools();
const known = knownRecords(pools);
if (!existsSync(FILE)) {
  const started = performance.now();
  const db = createMirrorFile(FILE);
  fillMirror(db, PAPERS, { pools }, known);
  report.fill_s = round((performance.now() - started) / 1000, 1);
  console.error(`offline bench: ${PAPERS} papers filled in ${report.fill_s} s; ranking tables`);
  report.rank_tables = await buildRankTables(db);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  report.build_s = round((performance.now() - started) / 1000, 1);
  console.error(`offline bench: ${FILE} built in ${report.build_s} s`);
}
// --build-only: the file for the benches that serve one (bench:refresh --db, bench:edge --db), no searches.
if (process.argv.includes("--build-only")) process.exit(0);
const sqlite = new DatabaseSync(FILE, { readOnly: true });
const papers = Number(sqlite.prepare("SELECT count(*) AS n FROM arxiv_papers").get()!.n);
const bytes = statSync(FILE).size;
report.size = { papers, file_bytes: bytes, bytes_per_paper: Math.round(bytes / papers) };
const db = d1Over(sqlite);
const code = await importWorkerCode(path.join(ROOT, "scripts/bench/mirror-search-code.ts"));
const { QUERIES } = await import("./arxiv-mirror-queries.ts");

async function timed(args) {
  const planned = code.planMirrorSearch(args.query, {
    category: args.category,
    submittedFrom: args.submitted_from,
    submittedTo: args.submitted_to,
  });
  if (!("plan" in planned)) return null;
  const options = {
    sortBy: args.sort_by ?? "relevance",
    sortOrder: args.sort_order ?? "descending",
    start: 0,
    limit: 10,
  };
  await code.searchMirror(code.oneDatabase(db), planned.plan, options); // warm: the file's pages for this query
  const t = performance.now();
  const result = await code.searchMirror(code.oneDatabase(db), planned.plan, options);
  const ms = performance.now() - t;
  return { planned, ms, ids: result.kind === "answer" ? result.rows.map((r) => r.id) : [], method: result.method };
}

const classes = {
  bench: QUERIES.map((q) => q.args),
  known: knownItemSearches(known, 360).map((k) => ({ query: k.query, id: k.id })),
  question: loadResearchQuestions().map((q) => ({ query: questionText(q) })),
};
const rows = [];
for (const [kind, list] of Object.entries(classes)) {
  for (const args of list) {
    const r = await timed(args);
    if (r) rows.push({ kind, args, ...r });
  }
  console.error(`offline bench: ${kind} done`);
}
report.latency = {
  all: latency(rows.map((r) => r.ms)),
  ...Object.fromEntries(
    Object.keys(classes).map((k) => [k, latency(rows.filter((r) => r.kind === k).map((r) => r.ms))]),
  ),
};
const knownRows = rows.filter((r) => r.kind === "known");
report.known_items = {
  n: knownRows.length,
  rank1: knownRows.filter((r) => r.ids[0] === r.args.id).length,
  top10: knownRows.filter((r) => r.ids.includes(r.args.id)).length,
};
// Quality against every hit scored (a sample of each class: exhaustive ranking is slow at this size).
const quality = [];
for (const kind of Object.keys(classes)) {
  const of = rows.filter(
    (r) => r.kind === kind && (!r.args.sort_by || r.args.sort_by === "relevance") && r.planned.plan.match !== null,
  );
  const step = Math.max(1, Math.floor(of.length / QUALITY_SAMPLE));
  for (let i = 0; i < of.length && quality.filter((q) => q.kind === kind).length < QUALITY_SAMPLE; i += step) {
    const r = of[i];
    const exact = await code.searchMirror(code.oneDatabase(db), r.planned.plan, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 10,
      reference: true,
    });
    const ids = exact.rows.map((x) => x.id);
    quality.push({
      kind,
      overlap: ids.length === 0 ? 1 : ids.filter((id) => r.ids.includes(id)).length / ids.length,
      first: ids[0] === r.ids[0],
    });
  }
}
const summarize = (list) => ({
  queries: list.length,
  mean_overlap_at_10: round(list.reduce((a, q) => a + q.overlap, 0) / Math.max(1, list.length), 3),
  first_same: round(list.filter((q) => q.first).length / Math.max(1, list.length), 3),
});
report.quality = {
  all: summarize(quality),
  ...Object.fromEntries(Object.keys(classes).map((k) => [k, summarize(quality.filter((q) => q.kind === k))])),
};

mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
const base = path.join(ROOT, "bench/results", `mirror-offline-${PAPERS}`);
writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
const lat = (l) => `p50 ${l.p50_ms} ms, p95 ${l.p95_ms} ms, max ${l.max_ms} ms (${l.n})`;
const md = [
  `# Benchmark: the mirror's search offline, ${papers.toLocaleString("en-US")} papers`,
  "",
  `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node} · node:sqlite through a D1-shaped wrapper (database time + the ranker's TypeScript; no MCP, no HTTP)`,
  "",
  `Size: ${bytes.toLocaleString("en-US")} bytes = **${report.size.bytes_per_paper} bytes per paper**.${report.build_s ? ` Build: ${report.fill_s} s to fill, ranking tables ${report.rank_tables.seconds} s (${report.rank_tables.lists.toLocaleString("en-US")} lists), ${report.build_s} s in all.` : ""}`,
  "",
  `- All searches: **${lat(report.latency.all)}**; bench ${lat(report.latency.bench)}; known items ${lat(report.latency.known)}; research questions ${lat(report.latency.question)}.`,
  `- Known items: ${report.known_items.rank1} of ${report.known_items.n} first, ${report.known_items.top10} in the top 10.`,
  `- Against exhaustive BM25: ${report.quality.all.queries} queries, mean overlap@10 ${report.quality.all.mean_overlap_at_10}, first the same ${report.quality.all.first_same} (bench ${report.quality.bench.mean_overlap_at_10}/${report.quality.bench.first_same}, known ${report.quality.known.mean_overlap_at_10}/${report.quality.known.first_same}, questions ${report.quality.question.mean_overlap_at_10}/${report.quality.question.first_same}).`,
  "",
].join("\n");
writeFileSync(`${base}.md`, md);
console.log(md);
