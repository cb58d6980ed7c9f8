// npm run bench:shards [-- --db FILE] [-- --shards 4] [-- --known 150] [-- --questions 300]
// The sharded mirror (issue 34) against one database, through wrangler dev and local D1, on the
// same 1,000,000-paper mirror file (bench:mirror:offline builds it): the file served as DB alone,
// then split by ID month into N shard files (scripts/bench/shard-files.ts) served as DB and
// ARXIV_SHARD_2..N. Every search of the mix runs on both (twice each; the second is timed), and
// the bench reports how many first pages are the same, latency of each, and the ratio of p95s.
// Targets: at least 99.5% of first pages the same; p95 with shards within 1.3x of one database.
// Offline (node:sqlite, the Worker's own code), on up to --offline N of the ranked searches:
// - exactness: every hit scored (reference mode) in one database and across the shards: the same
//   pages (the statistics summed across shards are one database's);
// - quality: each side's served first page against that exhaustive page (overlap@10, first same);
// - parallel latency: D1 runs the shards' statements in parallel, wrangler dev's local D1 one after
//   another in one process; the model is the slowest shard's part (its ranking and the statistics
//   read beside it on that database) plus the merge, each search's median of three runs.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { copyMirrorFile, markMirrorComplete } from "../lib/mirror-file.ts";
import { QUERIES } from "./arxiv-mirror-queries.ts";
import { samplePools } from "./arxiv-synthetic.ts";
import { knownItemSearches, knownRecords, loadResearchQuestions, questionText } from "./known-items.ts";
import { callTool, latency, round, stackVars, startOaiServer } from "./mirror-stack.ts";
import { buildShardFiles, firstKeyOf, migratedCopy, shardSpec } from "./shard-files.ts";
import { shardsMarkdown } from "./shards-report.ts";
import { d1Over } from "../lib/d1-node.ts";
import { importWorkerCode } from "../lib/worker-code.ts";

const arg = (flag: string, fallback: string) => {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1]! : fallback;
};
const DB_FILE = arg("--db", path.join(os.tmpdir(), "papers-mcp-mirror-1000000.sqlite"));
const SHARDS = Number(arg("--shards", "4"));
const KNOWN = Number(arg("--known", "150"));
const QUESTIONS = Number(arg("--questions", "300"));
const NAME = arg("--name", "mirror-shards");
const OFFLINE = Number(arg("--offline", "200"));
/** Offline timings per search: the median of this many runs (one run's p95 moves by 20% between runs). */
const TIMED_RUNS = 3;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

type Search = { kind: string; args: Record<string, unknown> };
type Answer = { ms: number; ids: string[]; total: number; lowerBound: boolean; error?: string };

/** Every search of bench:mirror's set (sorted ones too), known items, and research questions. */
function searchMix(): Search[] {
  const known = knownRecords(samplePools());
  return [
    ...(QUERIES as Search[]).map((q) => ({ kind: `bench ${q.args.sort_by ?? "relevance"}`, args: q.args })),
    ...knownItemSearches(known, KNOWN).map((k) => ({ kind: "known", args: { query: k.query } })),
    ...loadResearchQuestions()
      .filter((_q, i) => i % Math.max(1, Math.floor(1000 / QUESTIONS)) === 0)
      .slice(0, QUESTIONS)
      .map((q) => ({ kind: "question", args: { query: questionText(q) } })),
  ];
}

async function answer(mcpUrl: string, search: Search): Promise<Answer> {
  let last: Answer | undefined;
  // Twice: the second is timed (an isolate's caches warm, as in service).
  for (let i = 0; i < 2; i++) {
    const started = performance.now();
    try {
      const result = await callTool(mcpUrl, "arxiv_search_papers", { max_results: 10, ...search.args });
      last = {
        ms: performance.now() - started,
        ids: result.papers.map((p: { base_id: string }) => p.base_id),
        total: result.total,
        lowerBound: result.total_is_lower_bound,
        ...(result.served_from !== "mirror" ? { error: `not from the mirror: ${result.notices.join(" ")}` } : {}),
      };
    } catch (error) {
      last = { ms: performance.now() - started, ids: [], total: 0, lowerBound: false, error: String(error) };
    }
  }
  return last!;
}

async function serve(
  label: string,
  files: { binding: string; file: string }[],
  vars: Record<string, string>,
  mix: Search[],
) {
  const oai = await startOaiServer();
  const stack = await startStack({
    vars: { ...stackVars(oai, 3000), ...vars },
    readyTimeoutMs: 600_000,
    moreDatabases: files.slice(1).map((f) => f.binding),
    prepareState: (dbFile, shardFiles) => {
      for (const { binding, file } of files) {
        const target = binding === "DB" ? dbFile : shardFiles[binding]!;
        copyMirrorFile(file, target);
        const db = new DatabaseSync(target);
        if (binding === "DB") markMirrorComplete(db);
        db.close();
      }
    },
  });
  try {
    const answers: Answer[] = [];
    const started = performance.now();
    for (const search of mix) answers.push(await answer(stack.mcpUrl, search));
    console.error(`bench: ${label}: ${mix.length} searches in ${round((performance.now() - started) / 1000, 1)} s`);
    const health = await (await fetch(`${stack.url}/status`)).json();
    return { answers, databases: (health as { databases: unknown[] }).databases };
  } finally {
    await stack.stop();
    await oai.close();
  }
}

const report: Record<string, unknown> = {
  name: NAME,
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  file: DB_FILE,
};
const files = await buildShardFiles(DB_FILE, SHARDS);
const spec = shardSpec(files);
report.shards = files.map(({ binding, fromMonth, papers }) => ({ binding, from_month: fromMonth, papers }));
report.shard_map = spec;
const mix = searchMix();
const one = await serve("one database", [{ binding: "DB", file: DB_FILE }], {}, mix);
const sharded = await serve(`${SHARDS} shards`, files, { ARXIV_MIRROR_SHARDS: spec }, mix);

const rows = mix.map((search, i) => ({ search, one: one.answers[i]!, sharded: sharded.answers[i]! }));
const ok = rows.filter((r) => !r.one.error && !r.sharded.error);
const same = ok.filter((r) => JSON.stringify(r.one.ids) === JSON.stringify(r.sharded.ids));
const overlap = (a: string[], b: string[]) =>
  a.length === 0 ? (b.length === 0 ? 1 : 0) : a.filter((id) => b.includes(id)).length / a.length;
const byKind = new Map<string, typeof rows>();
for (const row of ok) byKind.set(row.search.kind, [...(byKind.get(row.search.kind) ?? []), row]);
const p95 = (values: number[]) => latency(values).p95_ms;
const oneLatency = latency(ok.map((r) => r.one.ms));
const shardLatency = latency(ok.map((r) => r.sharded.ms));
report.searches = mix.length;
report.failed = { one: rows.filter((r) => r.one.error).length, sharded: rows.filter((r) => r.sharded.error).length };
report.failures = rows
  .filter((r) => r.one.error || r.sharded.error)
  .slice(0, 5)
  .map((r) => ({ args: r.search.args, one: r.one.error, sharded: r.sharded.error }));
report.same_first_page = round(same.length / Math.max(1, ok.length), 4);
report.same_totals = round(
  ok.filter((r) => r.one.total === r.sharded.total && r.one.lowerBound === r.sharded.lowerBound).length /
    Math.max(1, ok.length),
  4,
);
report.mean_overlap_at_10 = round(
  ok.reduce((sum, r) => sum + overlap(r.one.ids, r.sharded.ids), 0) / Math.max(1, ok.length),
  4,
);
report.latency = {
  one: oneLatency,
  sharded: shardLatency,
  p95_ratio: round(shardLatency.p95_ms / oneLatency.p95_ms, 2),
};
report.by_kind = Object.fromEntries(
  [...byKind].map(([kind, list]) => [
    kind,
    {
      n: list.length,
      same_first_page: round(
        list.filter((r) => JSON.stringify(r.one.ids) === JSON.stringify(r.sharded.ids)).length / list.length,
        3,
      ),
      p95_one_ms: p95(list.map((r) => r.one.ms)),
      p95_sharded_ms: p95(list.map((r) => r.sharded.ms)),
    },
  ]),
);
report.differing = ok
  .filter((r) => JSON.stringify(r.one.ids) !== JSON.stringify(r.sharded.ids))
  .slice(0, 10)
  .map((r) => ({ args: r.search.args, one: r.one.ids, sharded: r.sharded.ids }));
report.targets = {
  same_first_page_at_least: 0.995,
  met_same: (report.same_first_page as number) >= 0.995,
  p95_ratio_at_most: 1.3,
  met_p95: (report.latency as { p95_ratio: number }).p95_ratio <= 1.3,
};
report.databases = sharded.databases;
report.offline = await offlineChecks(
  ok.filter(
    (r) => (!r.search.args.sort_by || r.search.args.sort_by === "relevance") && r.search.kind !== "bench submitted",
  ),
);
console.error(`bench: offline checks on ${(report.offline as { queries: number }).queries} ranked searches`);
/** Exactness, quality against exhaustive BM25, and the parallel latency model (see the header). */
async function offlineChecks(rows: { search: Search; one: Answer; sharded: Answer }[]) {
  const code = await importWorkerCode(path.join(ROOT, "scripts/bench/mirror-search-code.ts"));
  const one = d1Over(new DatabaseSync(migratedCopy(DB_FILE), { readOnly: true }));
  const dbs = files.map((f) => d1Over(new DatabaseSync(f.file, { readOnly: true })));
  const shardList = files.map((f, i) => ({
    binding: f.binding,
    db: dbs[i]!,
    firstKey: f.fromMonth ? firstKeyOf(f.fromMonth) : 0,
    endKey: files[i + 1] ? firstKeyOf(files[i + 1]!.fromMonth!) : Number.POSITIVE_INFINITY,
  }));
  const step = Math.max(1, Math.floor(rows.length / OFFLINE));
  const sample = rows.filter((_r, i) => i % step === 0).slice(0, OFFLINE);
  const overlap = (a: string[], b: string[]) =>
    b.length === 0 ? (a.length === 0 ? 1 : 0) : b.filter((id) => a.includes(id)).length / b.length;
  let exactSame = 0;
  const quality = { one: { overlap: 0, first: 0, page: 0 }, sharded: { overlap: 0, first: 0, page: 0 } };
  // Where one database's served page is the exhaustive one: do the shards serve it too?
  const whereOneExact = { n: 0, same: 0 };
  const times = { one: [] as number[], parallel: [] as number[], serial: [] as number[] };
  let counted = 0;
  const options = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10 };
  for (const row of sample) {
    const planned = code.planMirrorSearch(row.search.args.query, {
      category: row.search.args.category,
      submittedFrom: row.search.args.submitted_from,
      submittedTo: row.search.args.submitted_to,
    });
    if (!("plan" in planned) || planned.plan.match === null) continue;
    const exact = await code.searchMirror(code.oneDatabase(one), planned.plan, { ...options, reference: true });
    const exactShards = await code.searchMirror(shardList, planned.plan, { ...options, reference: true });
    if (exact.kind !== "answer" || exactShards.kind !== "answer") continue;
    counted++;
    const ids = (r: { rows: { id: string }[] }) => r.rows.map((x) => x.id.replace(/v\d+$/, ""));
    const exactIds = ids(exact);
    if (JSON.stringify(exactIds) === JSON.stringify(ids(exactShards))) exactSame++;
    for (const side of ["one", "sharded"] as const) {
      quality[side].overlap += overlap(row[side].ids, exactIds);
      if (row[side].ids[0] === exactIds[0]) quality[side].first++;
    }
    // The served page against every hit scored with the known-item rule after it (the exhaustive
    // path of the ranker, taken for every page when no page end is rescored).
    const exhaustive = await code.searchMirror(code.oneDatabase(one), planned.plan, {
      ...options,
      tuning: { rescored: 0 },
    });
    const exhaustiveIds = exhaustive.kind === "answer" ? JSON.stringify(ids(exhaustive)) : "";
    for (const side of ["one", "sharded"] as const)
      if (JSON.stringify(row[side].ids) === exhaustiveIds) quality[side].page++;
    if (JSON.stringify(row.one.ids) === exhaustiveIds) {
      whereOneExact.n++;
      if (JSON.stringify(row.sharded.ids) === exhaustiveIds) whereOneExact.same++;
    }
    // Timings, each the median of TIMED_RUNS: one database; each shard's part alone (its ranking,
    // and the statistics of a query with a phrase, which the sharded search reads beside it on the
    // same database); the sharded search whole (its parts in sequence). The merge is what the whole
    // spends beyond its parts (the rescoring, a recount).
    const { unique, readApart } = code.statisticsToRead(planned.plan.match);
    const runs = { one: [] as number[], parallel: [] as number[], serial: [] as number[] };
    for (let run = 0; run < TIMED_RUNS; run++) {
      let t = performance.now();
      await code.searchMirror(code.oneDatabase(one), planned.plan, options);
      runs.one.push(performance.now() - t);
      const parts = [];
      for (const shard of shardList) {
        t = performance.now();
        await code.searchMirror(code.oneDatabase(shard.db), planned.plan, {
          ...options,
          limit: 30,
          ignoreDateOutliers: true,
        });
        if (readApart) await code.shardStatistics(shard.db, unique);
        parts.push(performance.now() - t);
      }
      t = performance.now();
      await code.searchMirror(shardList, planned.plan, options);
      const whole = performance.now() - t;
      const sum = parts.reduce((a, b) => a + b, 0);
      runs.serial.push(whole);
      runs.parallel.push(Math.max(...parts) + Math.max(0, whole - sum));
    }
    times.one.push(median(runs.one));
    times.serial.push(median(runs.serial));
    times.parallel.push(median(runs.parallel));
  }
  const mean = (x: number) => round(x / Math.max(1, counted), 3);
  const oneLatency = latency(times.one);
  const parallel = latency(times.parallel);
  return {
    queries: counted,
    exact_same_pages: round(exactSame / Math.max(1, counted), 4),
    quality_vs_exhaustive: {
      one: {
        mean_overlap_at_10: mean(quality.one.overlap),
        first_same: mean(quality.one.first),
        page_same: mean(quality.one.page),
      },
      sharded: {
        mean_overlap_at_10: mean(quality.sharded.overlap),
        first_same: mean(quality.sharded.first),
        page_same: mean(quality.sharded.page),
      },
    },
    same_page_where_one_database_is_exhaustive: {
      searches: whereOneExact.n,
      same: round(whereOneExact.same / Math.max(1, whereOneExact.n), 4),
    },
    latency_node: { one: oneLatency, shards_in_sequence: latency(times.serial), shards_in_parallel_model: parallel },
    p95_ratio_parallel_model: round(parallel.p95_ms / oneLatency.p95_ms, 2),
  };
}

const dir = path.join(ROOT, "bench/results");
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `${NAME}.json`), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(path.join(dir, `${NAME}.md`), shardsMarkdown(report));
console.log(JSON.stringify({ ...report, differing: undefined }, null, 2));
