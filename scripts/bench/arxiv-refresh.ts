// npm run bench:refresh [-- --db FILE] [-- --papers 1000000] [-- --changed 20000] [-- --full-minutes 5]
// Search while the mirror refreshes (issue 34, item 2), through wrangler dev and local D1:
// 1. idle: a stream of mirror searches (the bench's mix: its relevance searches, known items,
//    research questions), one after another, after a warm-up round;
// 2. the same stream while a refresh lists CHANGED revised papers (pages of 1,000, new text,
//    spread over the whole mirror), verifies, and merges its changes into the ranking tables;
// 3. the same stream for --full-minutes of a full rebuild of the ranking tables (rank=full), to
//    show what the merge saves (at 1,000,000 papers a full rebuild takes about 8 minutes of SQL).
// Reports each phase's latencies, searches over 2 s and failures, the refresh's database time
// (whole run, the ranking tables' share, per phase, longest statement and longest call, from the
// Worker's harvest_step lines), and quality against an exhaustive BM25 ranking of the served file
// before and after the merge.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { buildRankTables } from "../arxiv/rank-tables.ts";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { copyMirrorFile, markMirrorComplete } from "../lib/mirror-file.ts";
import { QUERIES } from "./arxiv-mirror-queries.ts";
import { fillMirror, samplePools, synthesize } from "./arxiv-synthetic.ts";
import { knownItemSearches, knownRecords, loadResearchQuestions, questionText } from "./known-items.ts";
import {
  admin,
  callTool,
  latency,
  loopbackFetch,
  qualityAgainstExhaustive,
  round,
  sleep,
  stackVars,
  startOaiServer,
  status,
  summarizeQuality,
} from "./mirror-stack.ts";

const arg = (flag: string, fallback: string | undefined) => {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const PAPERS = Number(arg("--papers", "1000000"));
const CHANGED = Number(arg("--changed", "20000"));
const FULL_MINUTES = Number(arg("--full-minutes", "5"));
// --db FILE: serve a copy of a mirror built before (bench:mirror:offline: the same fill and tables).
const DB_FILE = arg("--db", undefined);
const NAME = arg("--name", "mirror-refresh");
// --no-quality: skip the exhaustive rankings before and after (minutes each at 3.2 million papers).
const QUALITY = !process.argv.includes("--no-quality");
const SLOW_MS = 2_000;

type Search = { kind: string; args: Record<string, unknown> };
type Timed = { kind: string; args: Record<string, unknown>; at: number; ms: number; ids: string[]; error?: string };

const pools = samplePools();
const known = knownRecords(pools);

/** The bench's mix: its relevance searches, 60 known items, 60 research questions, interleaved. */
function searchMix(): Search[] {
  const bench = (QUERIES as Search[])
    .filter((q) => !q.args.sort_by || q.args.sort_by === "relevance")
    .map((q) => ({ kind: "bench", args: q.args }));
  const items = knownItemSearches(known, 60).map((k) => ({ kind: "known", args: { query: k.query } }));
  const questions = loadResearchQuestions()
    .filter((_q, i) => i % 16 === 0)
    .slice(0, 60)
    .map((q) => ({ kind: "question", args: { query: questionText(q) } }));
  const mix: Search[] = [];
  for (let i = 0; i < Math.max(bench.length, items.length, questions.length); i++)
    for (const list of [bench, items, questions]) if (list[i]) mix.push(list[i]!);
  return mix;
}

async function timedSearch(mcpUrl: string, search: Search, t0: number): Promise<Timed> {
  const started = performance.now();
  try {
    const result = await callTool(mcpUrl, "arxiv_search_papers", { max_results: 10, ...search.args });
    const ms = performance.now() - started;
    if (result.served_from !== "mirror")
      return { ...search, at: started - t0, ms, ids: [], error: `not from the mirror: ${result.notices.join(" ")}` };
    return { ...search, at: started - t0, ms, ids: result.papers.map((p: { base_id: string }) => p.base_id) };
  } catch (error) {
    return {
      ...search,
      at: started - t0,
      ms: performance.now() - started,
      ids: [],
      error: String(error).slice(0, 300),
    };
  }
}

/** Searches the mix round after round until `done()` says stop (checked between searches). */
async function stream(mcpUrl: string, mix: Search[], done: (count: number) => boolean): Promise<Timed[]> {
  const out: Timed[] = [];
  const t0 = performance.now();
  for (let i = 0; !done(out.length); i++) out.push(await timedSearch(mcpUrl, mix[i % mix.length]!, t0));
  return out;
}

const summary = (rows: Timed[]) => ({
  ...latency(rows.map((r) => r.ms)),
  over_2s: rows.filter((r) => r.ms > SLOW_MS).length,
  failed: rows.filter((r) => r.error).length,
  failures: rows
    .filter((r) => r.error)
    .slice(0, 5)
    .map((r) => r.error),
});

/** The Worker's harvest_step lines of one run: SQL time, longest statement and call, by step kind and phase. */
function stepCosts(logs: string, runId: string) {
  const steps = logs
    .split("\n")
    .filter((line) => line.includes('"event":"harvest_step"') && line.includes(runId))
    .map((line) => JSON.parse(line.slice(line.indexOf("{"))));
  const byPhase: Record<
    string,
    {
      steps: number;
      sql_ms: number;
      slowest_ms: number;
      slowest_call_ms: number;
      rows_read: number;
      rows_written: number;
    }
  > = {};
  for (const step of steps) {
    const key = step.kind === "rank" ? `rank:${step.phase}` : step.kind;
    const into = (byPhase[key] ??= {
      steps: 0,
      sql_ms: 0,
      slowest_ms: 0,
      slowest_call_ms: 0,
      rows_read: 0,
      rows_written: 0,
    });
    into.steps++;
    into.sql_ms = round(into.sql_ms + step.sql_duration_ms, 1);
    into.slowest_ms = Math.max(into.slowest_ms, step.slowest_ms);
    into.slowest_call_ms = Math.max(into.slowest_call_ms, step.slowest_call_ms);
    into.rows_read += step.rows_read;
    into.rows_written += step.rows_written;
  }
  return byPhase;
}

/** Starts a refresh and streams searches until it and its ranking steps are over (or `limitMs` into its rank phase). */
async function searchDuringRefresh(
  url: string,
  mcpUrl: string,
  mix: Search[],
  rank: "merge" | "full",
  limitMs: number,
) {
  const before = await status(url);
  const started = await loopbackFetch(
    `${url}/admin/harvest?source=arxiv&mode=refresh${rank === "full" ? "&rank=full" : ""}`,
    {
      method: "POST",
      headers: admin,
    },
  );
  if (started.status !== 202) throw new Error(`admin/harvest: HTTP ${started.status} ${await started.text()}`);
  const { run_id: runId } = (await started.json()) as { run_id: string };
  const t0 = performance.now();
  let finished = false;
  let rankSince: number | null = null;
  let last = before;
  // What the run was at when: each search is counted in the step that was to come when it started.
  const timeline: { at: number; step: string }[] = [];
  const poller = (async () => {
    for (;;) {
      last = await status(url);
      timeline.push({ at: performance.now() - t0, step: String(last.run.pending_step) });
      if (last.status === "error") throw new Error(`the refresh failed: ${last.last_error}`);
      if (rankSince === null && String(last.run.pending_step).startsWith("rank")) rankSince = performance.now();
      if (last.status === "done" && last.started_at !== before.started_at && last.run.pending_step === null) break;
      if (rankSince !== null && performance.now() - rankSince > limitMs) return;
      await sleep(200);
    }
    finished = true;
  })();
  let stop = false;
  void poller.finally(() => (stop = true)).catch(() => undefined);
  const rows = await stream(mcpUrl, mix, () => stop);
  await poller;
  const stepAt = (at: number) => timeline.filter((p) => p.at <= at).at(-1)?.step ?? "list";
  const byStep: Record<string, Timed[]> = {};
  for (const row of rows) (byStep[stepAt(row.at)] ??= []).push(row);
  return {
    runId,
    finished,
    wall_s: round((performance.now() - t0) / 1000, 1),
    rows,
    by_step: Object.fromEntries(Object.entries(byStep).map(([step, list]) => [step, summary(list)])),
    rankStartedS: rankSince === null ? null : round((rankSince - t0) / 1000, 1),
    status: last,
  };
}

const report: Record<string, any> = {
  name: NAME,
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  papers: PAPERS,
  changed: CHANGED,
};
const oai = await startOaiServer();
let d1File = "";
const stack = await startStack({
  // The production crawl delay (3 s a request): a refresh's pages come as far apart as arXiv has them.
  vars: stackVars(oai, 3000),
  readyTimeoutMs: 600_000,
  workerLogs: true,
  prepareState: async (file) => {
    d1File = file;
    if (DB_FILE) copyMirrorFile(DB_FILE, file);
    const db = new DatabaseSync(file);
    if (!DB_FILE) {
      fillMirror(db, PAPERS, { pools }, known);
      report.rank_tables = await buildRankTables(db);
    }
    report.papers_total = (db.prepare("SELECT count(*) AS n FROM arxiv_papers").get() as { n: number }).n;
    markMirrorComplete(db);
    db.close();
  },
});
try {
  // The changed papers: held papers spread over the whole mirror, with new text (another seed).
  const every = Math.max(1, Math.floor(PAPERS / CHANGED));
  const revised = [];
  let i = 0;
  for (const record of synthesize(PAPERS, { seed: 900, pools }))
    if (i++ % every === 0 && revised.length < CHANGED) revised.push(record);
  const pages = [];
  for (let p = 0; p < revised.length; p += 1000) pages.push(revised.slice(p, p + 1000));
  oai.setPages(pages);
  console.error(
    `bench: ${report.papers_total} papers served; ${revised.length} changed papers in ${pages.length} pages`,
  );

  const mix = searchMix();
  report.mix = {
    searches: mix.length,
    kinds: Object.fromEntries(["bench", "known", "question"].map((k) => [k, mix.filter((m) => m.kind === k).length])),
  };
  await stream(stack.mcpUrl, mix, (n) => n >= mix.length); // warm-up
  const idle = await stream(stack.mcpUrl, mix, (n) => n >= mix.length);
  report.idle = summary(idle);
  const qualityOf = async (rows: Timed[]) =>
    QUALITY &&
    summarizeQuality(
      await qualityAgainstExhaustive(
        d1File,
        rows.filter((r) => !r.error).map((r) => ({ kind: r.kind, args: r.args, ids: r.ids })),
      ),
    );
  report.quality_before = await qualityOf(idle);
  console.error(`bench: idle ${JSON.stringify(report.idle)}; refreshing`);

  const merge = await searchDuringRefresh(stack.url, stack.mcpUrl, mix, "merge", 3_600_000);
  const logs = stack.logs();
  report.refresh = {
    finished: merge.finished,
    wall_s: merge.wall_s,
    rank_started_s: merge.rankStartedS,
    searches: summary(merge.rows),
    during_rank: summary(merge.rows.filter((r) => merge.rankStartedS !== null && r.at / 1000 >= merge.rankStartedS)),
    searches_by_step: merge.by_step,
    p95_ratio_to_idle: round(latency(merge.rows.map((r) => r.ms)).p95_ms / report.idle.p95_ms, 2),
    database: merge.status.run.database,
    by_phase: stepCosts(logs, merge.runId),
  };
  const after = await stream(stack.mcpUrl, mix, (n) => n >= mix.length);
  report.after = summary(after);
  report.quality_after = await qualityOf(after);
  console.error(
    `bench: refresh ${JSON.stringify(report.refresh.searches)}; quality after ${JSON.stringify(report.quality_after)}`,
  );

  if (FULL_MINUTES > 0) {
    const full = await searchDuringRefresh(stack.url, stack.mcpUrl, mix, "full", FULL_MINUTES * 60_000);
    const during = full.rows.filter((r) => full.rankStartedS !== null && r.at / 1000 >= full.rankStartedS);
    report.full_rebuild = {
      finished: full.finished,
      measured_minutes: FULL_MINUTES,
      during_rank: summary(during),
      p95_ratio_to_idle: round(latency(during.map((r) => r.ms)).p95_ms / report.idle.p95_ms, 2),
      by_phase: stepCosts(stack.logs(), full.runId),
    };
  }
} finally {
  await stack.stop();
  await oai.close();
}

const dir = path.join(ROOT, "bench/results");
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `${NAME}.json`), `${JSON.stringify(report, null, 2)}\n`);
const lat = (l) =>
  `p50 ${l.p50_ms} ms, p95 ${l.p95_ms} ms, max ${l.max_ms} ms (${l.n}; over 2 s: ${l.over_2s}; failed: ${l.failed})`;
const phases = (byPhase) =>
  Object.entries(byPhase)
    .map(
      ([k, v]: [string, any]) =>
        `| ${k} | ${v.steps} | ${v.sql_ms} | ${v.slowest_ms} | ${v.slowest_call_ms} | ${v.rows_read.toLocaleString("en-US")} | ${v.rows_written.toLocaleString("en-US")} |`,
    )
    .join("\n");
const r = report.refresh;
const md = [
  `# Benchmark: searching while the mirror refreshes (${report.papers_total.toLocaleString("en-US")} papers, ${CHANGED.toLocaleString("en-US")} changed)`,
  "",
  `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node} · wrangler dev, local D1 · one stream of mirror searches over MCP (${report.mix.searches} searches a round: ${Object.entries(
    report.mix.kinds,
  )
    .map(([k, v]) => `${v} ${k}`)
    .join(", ")})`,
  "",
  `- Idle: ${lat(report.idle)}.`,
  `- During the refresh (list ${CHANGED.toLocaleString("en-US")} changed papers, verify, merge into the ranking tables; ${r.wall_s} s, the ranking steps from ${r.rank_started_s} s): **${lat(r.searches)}**; p95 **${r.p95_ratio_to_idle}x** idle (target at most 2x, none over 2 s, no failure). While the ranking steps ran: ${lat(r.during_rank)}.`,
  `- After it: ${lat(report.after)}.`,
  report.quality_before
    ? `- Quality against an exhaustive BM25 ranking of the served file: before ${report.quality_before.queries} searches, overlap@10 ${report.quality_before.mean_overlap_at_10}, first ${report.quality_before.first_same}; after the merge ${report.quality_after.queries}, overlap@10 **${report.quality_after.mean_overlap_at_10}**, first **${report.quality_after.first_same}**.`
    : "- Quality against an exhaustive ranking: not measured in this run (--no-quality).",
  `- The refresh's database time: **${r.database.sql_ms} ms of SQL**, of which the ranking tables **${r.database.rank_rebuild_sql_ms} ms**; rows read ${r.database.rows_read.toLocaleString("en-US")}, written ${r.database.rows_written.toLocaleString("en-US")}; longest statement ${r.database.slowest_statement_ms} ms.`,
  "",
  "| step | steps | SQL ms | longest statement ms | longest call ms | rows read | rows written |",
  "|---|---|---|---|---|---|---|",
  phases(r.by_phase),
  "",
  "Searches by the step the refresh was at when they started:",
  "",
  ...Object.entries(r.searches_by_step).map(([step, l]) => `- ${step}: ${lat(l)}`),
  "",
  ...(report.full_rebuild
    ? [
        `A full rebuild of the ranking tables (rank=full), searched for its first ${report.full_rebuild.measured_minutes} minutes${report.full_rebuild.finished ? " (it finished)" : " (not finished then; the bench stops there)"}: ${lat(report.full_rebuild.during_rank)}; p95 ${report.full_rebuild.p95_ratio_to_idle}x idle.`,
        "",
        "| step | steps | SQL ms | longest statement ms | longest call ms | rows read | rows written |",
        "|---|---|---|---|---|---|---|",
        phases(report.full_rebuild.by_phase),
        "",
      ]
    : []),
].join("\n");
writeFileSync(path.join(dir, `${NAME}.md`), md);
console.log(md);
