// npm run bench:harvest [-- --records 3000000] [-- --delay 10] [-- --restarts 5] [-- --name harvest]
// A simulated full-size cold harvest through wrangler dev, local Queues and local D1, against
// a loopback synthetic OAI-PMH endpoint (scripts/fake-upstream/oai-synthetic.ts: identifier
// order, datestamps in no order, pages of 1,000 and 2,000 records, tokens that expire after a
// time and are all forgotten every N pages, random 503s with Retry-After, truncated pages,
// records changed and deleted while the harvest runs). wrangler dev is killed (SIGKILL, its whole
// process group) and started again on the same state at random moments; nothing tells the
// Worker, which has to find its stalled run itself. After the cold run and a refresh, the
// mirror must equal the source exactly: the same IDs, and the same fingerprint for each paper.
import type { AddressInfo } from "node:net";
import { createHash } from "node:crypto";
import http from "node:http";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ROOT, localD1File, loopbackArgs, quietWranglerEnv, runWrangler, spawnWranglerDev } from "../lib/dev-server.ts";
import { createSyntheticOai } from "../fake-upstream/oai-synthetic.ts";
import { mulberry32 } from "../../test/support/random.ts";
import { MIRROR_COLUMNS, mirrorRowFingerprint, toMirrorRow } from "../../src/store/arxiv-row.ts";

const arg = (flag, fallback) => {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const RECORDS = Number(arg("--records", "3000000"));
const DELAY_MS = Number(arg("--delay", "10"));
const RESTARTS = Number(arg("--restarts", "5"));
/** Results go to bench/results/<name>.json and .md. */
const NAME = arg("--name", "harvest");
const ADMIN_TOKEN = "bench-harvest-admin";
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (x, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const log = (text) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${text}`);

// ---- The upstream.
const built = performance.now();
const oai = createSyntheticOai({
  n: RECORDS,
  pageSizes: [1000, 2000],
  seed: 2026,
  // Short enough that a token held across a restart (down time + stall time) has usually expired.
  tokenTtlMs: 15_000,
  forgetTokensEveryPages: 700,
  failRate: 0.01,
  truncateRate: 0.005,
  unreadableEvery: 250_000,
});
log(`synthetic upstream: ${RECORDS.toLocaleString("en-US")} records in ${round((performance.now() - built) / 1000)} s`);
let requests = 0;
const server = http.createServer(async (req, res) => {
  requests++;
  const response = await oai.handle(new Request(`http://127.0.0.1${req.url}`));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const oaiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oai`;

// ---- The Worker, on one state directory across restarts.
const stateDir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-harvest-bench-"));
const persistTo = path.join(stateDir, "state");
const wranglerEnv = quietWranglerEnv({ XDG_CONFIG_HOME: path.join(stateDir, "config") });
await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo], wranglerEnv);
const vars = {
  ARXIV_MIRROR_OAI_BASE_URL: oaiUrl,
  ARXIV_MIRROR_OAI_REQUEST_DELAY_MS: String(DELAY_MS),
  ADMIN_TOKEN_HASH: createHash("sha256").update(ADMIN_TOKEN).digest("hex"),
  // A restart loses the queued message; the watchdog finds the run after this long.
  ARXIV_MIRROR_STALL_SECONDS: "10",
  ARXIV_MIRROR_RETRY_BASE_MS: "200",
  ARXIV_MIRROR_RETRY_MAX_MS: "5000",
  ARXIV_MIRROR_AUTO_COLD: "false",
};
const workerLogs = [];
let dev;
let url;
async function startWorker() {
  // --log-level log: the Worker's console.log lines (page and verify timings) are the bench's data.
  const args = [
    ...(await loopbackArgs()).map((a) => (a === "info" ? "log" : a)),
    "--persist-to",
    persistTo,
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ];
  url = `http://127.0.0.1:${args[args.indexOf("--port") + 1]}`;
  dev = spawnWranglerDev(args, wranglerEnv);
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(200)) {
    if (dev.child.exitCode !== null) throw new Error(`wrangler dev exited:\n${dev.logs().slice(-3000)}`);
    try {
      if ((await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) })).ok) return;
    } catch {
      // not up yet
    }
  }
  throw new Error("wrangler dev did not come up");
}
async function killWorker() {
  workerLogs.push(dev.logs());
  // SIGKILL the whole group: no clean shutdown, as when a machine dies.
  try {
    process.kill(-dev.child.pid, "SIGKILL");
  } catch {
    // gone
  }
  await new Promise((resolve) => (dev.child.exitCode !== null ? resolve(undefined) : dev.child.once("exit", resolve)));
}
const arxivStatus = async () => {
  const response = await fetch(`${url}/admin/harvest`, { headers: admin, signal: AbortSignal.timeout(30_000) });
  return (await response.json()).mirrors.find((m) => m.source === "arxiv");
};

const report: Record<string, any> = {
  name: "harvest",
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  records: RECORDS,
  delay_ms: DELAY_MS,
};
const restarts = [];
try {
  await startWorker();
  const t0 = performance.now();
  const started = await fetch(`${url}/admin/harvest?source=arxiv&mode=cold`, { method: "POST", headers: admin });
  if (started.status !== 202) throw new Error(`admin/harvest: ${started.status} ${await started.text()}`);
  // Restarts at random moments of the cold run (by records written), changes at two others.
  const random = mulberry32(99);
  const killAt = Array.from({ length: RESTARTS }, (_, k) =>
    Math.floor(((k + 0.2 + random() * 0.6) / RESTARTS) * RECORDS * 0.95),
  ).sort((a, b) => a - b);
  const mutateAt = [0.3, 0.7].map((f) => Math.floor(f * RECORDS));
  let status;
  for (;;) {
    try {
      status = await arxivStatus();
    } catch (error) {
      log(`status failed (${error.message}); again`);
      await sleep(1000);
      continue;
    }
    const written = status.run.records;
    if (killAt.length > 0 && written >= killAt[0]) {
      killAt.shift();
      const at = performance.now();
      log(`kill at ${written.toLocaleString("en-US")} records (step ${status.pages} pages)`);
      await killWorker();
      await startWorker();
      const up = performance.now();
      // Nothing tells the Worker: its watchdog has to find the stalled run (the status polls are its requests).
      let moved;
      for (;;) {
        moved = await arxivStatus().catch(() => undefined);
        if (moved && moved.run.records > written) break;
        await sleep(250);
      }
      restarts.push({
        at_records: written,
        down_ms: Math.round(up - at),
        resumed_after_ms: Math.round(performance.now() - up),
      });
    }
    if (mutateAt.length > 0 && written >= mutateAt[0]) {
      mutateAt.shift();
      oai.mutate({ changed: 2000, removed: 300, seed: written });
      log(`upstream changed 2,000 records and deleted 300 at ${written.toLocaleString("en-US")}`);
    }
    if (status.status === "done" && status.complete) break;
    if (status.status === "error") throw new Error(`harvest failed: ${status.last_error}`);
    await sleep(2000);
  }
  const coldMs = performance.now() - t0;
  const coldStatus = status;
  log(`cold run complete in ${round(coldMs / 1000)} s; verifying`);
  for (; !(await arxivStatus()).verified; ) await sleep(2000);
  report.verify_after_cold = (await arxivStatus()).verified;
  report.cold = {
    wall_s: round(coldMs / 1000),
    records_written: coldStatus.run.records,
    deleted_written: coldStatus.run.deleted,
    pages: coldStatus.pages,
    oai_requests: requests,
    records_per_second: round(coldStatus.run.records / (coldMs / 1000)),
    retries: coldStatus.run.retries,
    resumes: coldStatus.run.resumes,
    window_restarts: coldStatus.run.window_restarts,
    windows: coldStatus.windows,
    restarts,
    upstream: { ...oai.stats },
    unreadable_records: coldStatus.unreadable_records,
  };

  // The next day: more changes upstream, then the refresh from the watermark.
  oai.mutate({ changed: 3000, removed: 500, seed: 7 });
  const requestsBefore = requests;
  const r0 = performance.now();
  const refresh = await fetch(`${url}/admin/harvest?source=arxiv&mode=refresh`, { method: "POST", headers: admin });
  if (refresh.status !== 202) throw new Error(`refresh: ${refresh.status} ${await refresh.text()}`);
  for (;;) {
    status = await arxivStatus();
    if (status.status === "done" && status.run.mode === "refresh" && status.verified) break;
    if (status.status === "error") throw new Error(`refresh failed: ${status.last_error}`);
    await sleep(1000);
  }
  report.refresh = {
    wall_s: round((performance.now() - r0) / 1000),
    pages: status.pages,
    records_written: status.run.records,
    oai_requests: requests - requestsBefore,
    verified: status.verified,
  };
} finally {
  if (dev) await killWorker();
  await new Promise((resolve) => server.close(resolve));
}

// ---- The mirror against the source, paper by paper.
log("comparing the mirror with the source");
const d1 = localD1File(persistTo);
const bytes = readdirSync(path.dirname(d1))
  .filter((f) => f.startsWith(path.basename(d1)))
  .reduce((sum, f) => sum + statSync(path.join(path.dirname(d1), f)).size, 0);
const db = new DatabaseSync(d1, { readOnly: true });
const columns = MIRROR_COLUMNS.filter((c) => c !== "paper_key");
const stored = new Map();
let doubled = 0;
for (const row of db.prepare(`SELECT ${columns.join(", ")} FROM arxiv_papers`).iterate()) {
  if (stored.has(row.id)) doubled++;
  stored.set(row.id, mirrorRowFingerprint(row as unknown as Parameters<typeof mirrorRowFingerprint>[0]));
}
const state = db.prepare("SELECT records FROM harvest_state WHERE source = 'arxiv'").get();
db.close();
let missing = 0;
let different = 0;
let expected = 0;
const examples = [];
for (const record of oai.records()) {
  expected++;
  const { paper_key: _k, ...row } = toMirrorRow(record, 0);
  const have = stored.get(record.id);
  if (have === undefined) {
    missing++;
    if (examples.length < 5) examples.push(`missing ${record.id}`);
  } else if (have !== mirrorRowFingerprint(row)) {
    different++;
    if (examples.length < 5) examples.push(`different ${record.id}`);
  }
  stored.delete(record.id);
}
report.comparison = {
  expected,
  stored_extra: stored.size,
  missing,
  different,
  doubled,
  state_records: state.records,
  examples,
  equal: missing === 0 && different === 0 && stored.size === 0 && doubled === 0,
};
report.d1 = { bytes, bytes_per_paper: round(bytes / expected, 0) };

// Page ingest and statement times, from the Worker's own log lines.
const allLogs = workerLogs.join("\n");
const logFile = path.join(os.tmpdir(), "papers-mcp-harvest-bench-worker.log");
writeFileSync(logFile, allLogs);
log(`the Worker's log: ${logFile}`);
const pageMs = [
  ...allLogs.matchAll(/step (\d+), window \d+ page \d+, (\d+) records written in (\d+) ms \(fetched in (\d+) ms\)/g),
].map((m) => ({ step: Number(m[1]), records: Number(m[2]), ms: Number(m[3]), fetchMs: Number(m[4]) }));
const lastTenth = pageMs.slice(Math.floor(pageMs.length * 0.9));
const verifyMs = [...allLogs.matchAll(/verify step (\w+) in (\d+) ms/g)].map((m) => ({
  phase: m[1],
  ms: Number(m[2]),
}));
report.ingest = {
  pages_logged: pageMs.length,
  per_1000_records_p50_ms: round(
    percentile(
      pageMs.map((p) => (p.ms * 1000) / Math.max(1, p.records)),
      50,
    ),
  ),
  p50_ms: percentile(
    pageMs.map((p) => p.ms),
    50,
  ),
  p95_ms: percentile(
    pageMs.map((p) => p.ms),
    95,
  ),
  max_ms: Math.max(...pageMs.map((p) => p.ms)),
  last_tenth_p50_per_1000_ms: round(
    percentile(
      lastTenth.map((p) => (p.ms * 1000) / Math.max(1, p.records)),
      50,
    ),
  ),
  total_s: round(pageMs.reduce((sum, p) => sum + p.ms, 0) / 1000),
  // Gate wait + the upstream's own time to build and send the page (the synthetic server, here).
  fetch_total_s: round(pageMs.reduce((sum, p) => sum + p.fetchMs, 0) / 1000),
};
report.verify_statements = {
  steps: verifyMs.length,
  max_ms: verifyMs.length ? Math.max(...verifyMs.map((v) => v.ms)) : null,
  by_phase_max_ms: Object.fromEntries(
    ["papers", "categories", "totals"].map((ph) => [
      ph,
      Math.max(0, ...verifyMs.filter((v) => v.phase === ph).map((v) => v.ms)),
    ]),
  ),
};
const pagesX3s = report.cold.oai_requests * 3;
report.implied_at_3s = {
  requests: report.cold.oai_requests,
  hours: round(pagesX3s / 3600, 2),
  note: "the physical limit: every request spaced 3 s (ingest runs inside the spacing)",
};
const recoveryS = restarts.reduce((sum, r) => sum + r.down_ms + r.resumed_after_ms, 0) / 1000;
report.target = {
  wall_budget_s: round((1.05 * report.cold.oai_requests * DELAY_MS) / 1000 + report.ingest.total_s),
  // The same with the upstream's serving time counted (at a real 3 s delay it is inside the spacing).
  wall_budget_with_fetch_s: round(
    (1.05 * report.cold.oai_requests * DELAY_MS) / 1000 + report.ingest.total_s + report.ingest.fetch_total_s,
  ),
  wall_s: report.cold.wall_s,
  recovery_s: round(recoveryS),
  wall_without_recovery_s: round(report.cold.wall_s - recoveryS),
};
rmSync(stateDir, { recursive: true, force: true });

const dir = path.join(ROOT, "bench/results");
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `${NAME}.json`), `${JSON.stringify(report, null, 2)}\n`);
const md = [
  `# Benchmark: simulated full-size arXiv harvest (${RECORDS.toLocaleString("en-US")} records)`,
  "",
  `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node} · wrangler dev, local Queues and D1 · crawl delay ${DELAY_MS} ms`,
  "",
  `Mirror equals source: **${report.comparison.equal ? "yes" : "NO"}** (${report.comparison.expected.toLocaleString("en-US")} records expected; missing ${report.comparison.missing}, different ${report.comparison.different}, extra ${report.comparison.stored_extra}, doubled ${report.comparison.doubled}).`,
  "",
  `Cold run: ${report.cold.wall_s} s wall, ${report.cold.records_per_second} records/s, ${report.cold.pages.toLocaleString("en-US")} pages, ${report.cold.oai_requests.toLocaleString("en-US")} OAI requests (pages, empty windows, retries, GetRecords), ${report.cold.windows.done} windows, ${report.cold.retries} retries, ${report.cold.window_restarts} window restarts after lost tokens, ${report.cold.restarts.length} wrangler dev kills (resumed ${report.cold.resumes} times by the watchdog). Upstream faults served: ${JSON.stringify(report.cold.upstream)}.`,
  "",
  `Target: wall ≤ 1.05 × requests × delay + ingest = ${report.target.wall_budget_s} s (${report.target.wall_budget_with_fetch_s} s with the upstream's serving time, ${report.ingest.fetch_total_s} s); measured ${report.target.wall_s} s, of which ${report.target.recovery_s} s were the kills' recovery (restart, then the stall time until the watchdog resumed): ${report.target.wall_without_recovery_s} s without them. Per kill: ${restarts.map((r) => `${r.down_ms} ms down + ${r.resumed_after_ms} ms to resume`).join("; ")}.`,
  "",
  `Page ingest (parse + one D1 batch, in the Worker): p50 ${report.ingest.p50_ms} ms, p95 ${report.ingest.p95_ms} ms, max ${report.ingest.max_ms} ms; per 1,000 records p50 ${report.ingest.per_1000_records_p50_ms} ms, in the last tenth of the run (mirror near full size) ${report.ingest.last_tenth_p50_per_1000_ms} ms.`,
  "",
  `Verify after the cold run: ${JSON.stringify(report.verify_after_cold)}; ${report.verify_statements.steps} sliced steps, slowest ${report.verify_statements.max_ms} ms (${JSON.stringify(report.verify_statements.by_phase_max_ms)}).`,
  "",
  `Refresh the next day: ${report.refresh.wall_s} s, ${report.refresh.pages} pages, ${report.refresh.records_written} records, ${report.refresh.oai_requests} requests.`,
  "",
  `D1 size: ${report.d1.bytes.toLocaleString("en-US")} bytes = ${report.d1.bytes_per_paper} bytes per paper. At 3 s a request the same cold run takes ${report.implied_at_3s.hours} hours (${report.implied_at_3s.requests} requests × 3 s).`,
  "",
].join("\n");
writeFileSync(path.join(dir, `${NAME}.md`), md);
console.log(md);
if (!report.comparison.equal) process.exitCode = 1;
