// npm run bench:limits
// The worst calls against the platform's per-invocation limits, through wrangler dev on the seeded
// mirror with the fake upstreams: for each, the D1 queries and subrequests its tool_call line counts
// (the call's budget, src/call-budget.ts), the CPU workerd spent on it (its /proc times, 10 ms ticks)
// and its wall time, beside each plan's limits. The cases:
// - 200 references outside the mirrors with Crossref answering in 1 s a request (bench-made
//   references no recording holds; the fake answers Crossref's recorded empty list), where we also
//   count Crossref's requests in flight from the fake's log (each arrival is in flight for the 1 s
//   the fake waits) against its stated concurrency;
// - the hostile list: 48 numbered entries of `J. 1 1` runs, 236 kB (issue 58's reproduction);
// - one 5,000-character reference of journal-like tokens;
// - a 50-result search, the 2,831-author paper's metadata, the largest recorded paper's read.
// Targets: no call over the paid plan's limits; the hostile list answered within 1 s; Crossref never
// past its stated concurrency. Writes bench/results/limits.{json,md}.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { MCP_HEADERS, mcpMessage, round } from "../lib/mcp-bench.ts";

/** The platform's per-invocation limits (docs/operations.md, "A call's budget"). */
const PLANS = {
  paid: { d1: 1_000, subrequests: 10_000, subrequestsOlder: 1_000, cpuMs: 30_000 },
  free: { d1: 50, subrequests: 50, cpuMs: 10 },
};
const CROSSREF_LATENCY_MS = 1_000;
/** Crossref's stated concurrency for the public pool (x-concurrency-limit; 3 in the polite pool). */
const CROSSREF_PUBLIC_CONCURRENCY = 1;

const TICK_MS = 1000 / 100;

/** utime + stime (ms) of every workerd process below this one. */
function workerdCpuMs(): number {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      const pid = Number(entry);
      names.set(pid, stat.slice(stat.indexOf("(") + 1, close));
      parents.set(pid, Number(fields[1]));
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // the process ended while we read
    }
  }
  const below = (pid: number) => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  let total = 0;
  for (const [pid, name] of names) if (name.startsWith("workerd") && below(pid)) total += ticks.get(pid) ?? 0;
  return total * TICK_MS;
}

let client = 0;
async function rpc(url: string, name: string, args: unknown) {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, "cf-connecting-ip": `limits-${++client}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  return { status: response.status, message: mcpMessage(await response.text()) };
}

const outside = Array.from(
  { length: 200 },
  (_, i) =>
    `[${i + 1}] Q. Nobody${i} and R. Noone, “A theory of everything that was never written, part ${i + 1},” ` +
    `Journal of Imaginary Results, vol. ${i + 1}, pp. 1–2, 2011.`,
).join("\n");
// 48 numbered entries, each a long run of "J. 1 1": 236 kB in all.
const hostile = Array.from({ length: 48 }, (_, i) => `${i + 1}. ${"J. 1 1 ".repeat(700)}`).join("\n");
const longReference = `${"Phys. Rev. D 1 1 (1) J. Phys. 2, 3 (1999) ".repeat(120)}`.slice(0, 5_000);

interface Case {
  label: string;
  tool: string;
  args: Record<string, unknown>;
  crossrefLatency?: boolean;
}

const CASES: Case[] = [
  {
    label: "200 references outside the mirrors, Crossref at 1 s a request",
    tool: "papers_check_bibliography",
    args: { bibliography: outside },
    crossrefLatency: true,
  },
  {
    label: `the hostile list: 48 entries of "J. 1 1" runs (${Math.round(hostile.length / 1000)} kB)`,
    tool: "papers_check_bibliography",
    args: { bibliography: hostile },
  },
  {
    label: "one 5,000-character reference of journal-like tokens",
    tool: "papers_resolve_reference",
    args: { reference: longReference },
  },
  {
    label: "a 50-result search (cat:hep-ex)",
    tool: "arxiv_search_papers",
    args: { query: "cat:hep-ex", max_results: 50 },
  },
  {
    label: "the 2,831-author paper, whole author list",
    tool: "arxiv_get_metadata",
    args: { paper_ids: ["1411.4413"], full_authors: true },
  },
  {
    label: "the largest recorded paper's read (683 kB HTML)",
    tool: "arxiv_read_paper",
    args: { paper_id: "2501.11120v1" },
  },
];

/** The most Crossref requests in flight at once: each arrival is in flight for the fake's latency. */
function mostInFlight(arrivals: number[], latencyMs: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= latencyMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

const stack = await startStack({ waitFor: "health", seed: true, workerLogs: true });
const rows = [];
let crossref = { requests: 0, most_in_flight: 0 };
try {
  for (const c of CASES) {
    const hitsBefore = (await (await fetch(`${stack.fake.origin}/_hits`)).json()).length;
    const logsBefore = stack.logs().length;
    process.env.FAKE_UPSTREAM_LATENCY_MS = c.crossrefLatency ? String(CROSSREF_LATENCY_MS) : "0";
    const cpuBefore = workerdCpuMs();
    const started = performance.now();
    const { status, message } = await rpc(stack.mcpUrl, c.tool, c.args);
    const wallMs = round(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cpuMs = workerdCpuMs() - cpuBefore;
    process.env.FAKE_UPSTREAM_LATENCY_MS = "0";
    const line = stack
      .logs()
      .slice(logsBefore)
      .split("\n")
      .find((text) => text.includes('"event":"tool_call"'));
    const call = line ? JSON.parse(line.slice(line.indexOf("{"))) : {};
    const result = message?.result;
    const summary = result?.structuredContent?.summary;
    // Why the answer's unchecked entries are unchecked: the call's budget, or a source and its reason.
    const uncheckedBy: Record<string, number> = {};
    for (const entry of result?.structuredContent?.entries ?? [])
      for (const u of entry.unchecked ?? []) {
        const key = `${u.source}: ${u.source === "call_budget" ? "budget" : u.reason}`;
        uncheckedBy[key] = (uncheckedBy[key] ?? 0) + 1;
      }
    const nextStart = result?.structuredContent?.next_start;
    if (c.crossrefLatency) {
      const hits = ((await (await fetch(`${stack.fake.origin}/_hits`)).json()) as { at: number; path: string }[])
        .slice(hitsBefore)
        .filter((hit) => hit.path.startsWith("/crossref/"));
      crossref = {
        requests: hits.length,
        most_in_flight: mostInFlight(
          hits.map((hit) => hit.at),
          CROSSREF_LATENCY_MS,
        ),
      };
    }
    const row = {
      case: c.label,
      tool: c.tool,
      http: status,
      outcome: call.outcome ?? (result?.isError ? "error" : "?"),
      d1_queries: call.d1_queries,
      subrequests: call.subrequests,
      cpu_ms: cpuMs,
      wall_ms: wallMs,
      ...(summary ? { summary, unchecked_by: uncheckedBy, next_start: nextStart } : {}),
      over_paid: call.d1_queries > PLANS.paid.d1 || call.subrequests > PLANS.paid.subrequestsOlder,
      over_free: call.d1_queries > PLANS.free.d1 || call.subrequests > PLANS.free.subrequests,
    };
    rows.push(row);
    console.log(
      `${row.over_paid ? "OVER" : "ok  "} ${c.label}: ${row.outcome}, ${row.d1_queries} D1, ${row.subrequests} subrequests, ` +
        `${row.cpu_ms} ms CPU, ${row.wall_ms} ms${summary ? ` ${JSON.stringify(summary)} ${JSON.stringify(uncheckedBy)} next_start ${nextStart}` : ""}`,
    );
  }
} finally {
  await stack.stop();
}

const hostileRow = rows[1]!;
const targets = {
  calls_over_paid: rows.filter((row) => row.over_paid).length,
  hostile_list_ms: hostileRow.wall_ms,
  hostile_list_within_1s: hostileRow.wall_ms < 1_000,
  crossref_most_in_flight: crossref.most_in_flight,
  crossref_within_stated_concurrency: crossref.most_in_flight <= CROSSREF_PUBLIC_CONCURRENCY,
};
const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  plans: PLANS,
  crossref: { latency_ms: CROSSREF_LATENCY_MS, stated_concurrency: CROSSREF_PUBLIC_CONCURRENCY, ...crossref },
  targets,
  cases: rows,
};
mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
writeFileSync(path.join(ROOT, "bench/results/limits.json"), `${JSON.stringify(report, null, 2)}\n`);
const md = [
  "# The worst calls against the platform's limits (npm run bench:limits)",
  "",
  `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node}`,
  "",
  "Through wrangler dev on the seeded mirror, upstreams faked. D1 queries and subrequests: the call's tool_call line " +
    "(its budget's counts). CPU: workerd's own /proc times over the call (10 ms ticks; wrangler dev's workerd, so an " +
    "upper bound of the Worker's CPU). Limits per invocation: paid 1,000 D1 queries, 10,000 subrequests (1,000 on " +
    "older accounts), 30 s CPU by default; free 50, 50, 10 ms CPU.",
  "",
  "| case | tool | outcome | D1 queries (paid 1,000 / free 50) | subrequests (paid 1,000-10,000 / free 50) | CPU ms | wall ms |",
  "|---|---|---|--:|--:|--:|--:|",
  ...rows.map(
    (row) =>
      `| ${row.case} | ${row.tool} | ${row.outcome} | ${row.d1_queries}${row.d1_queries > PLANS.free.d1 ? " (over free)" : ""} | ` +
      `${row.subrequests}${row.subrequests > PLANS.free.subrequests ? " (over free)" : ""} | ${row.cpu_ms} | ${row.wall_ms} |`,
  ),
  "",
  `Crossref (fake, ${CROSSREF_LATENCY_MS} ms a request, stated concurrency ${CROSSREF_PUBLIC_CONCURRENCY}): ` +
    `${crossref.requests} requests, at most ${crossref.most_in_flight} in flight.`,
  "",
  ...rows
    .filter((row) => row.summary)
    .map(
      (row) =>
        `- ${row.case}: the answer's entries ${JSON.stringify(row.summary)}; unchecked by ${JSON.stringify(row.unchecked_by)}; next_start ${row.next_start}`,
    ),
  "",
  "## Targets",
  "",
  `- calls over the paid plan's limits: ${targets.calls_over_paid} (target 0)`,
  `- the hostile list: ${targets.hostile_list_ms} ms (target under 1,000)`,
  `- Crossref's requests in flight: at most ${targets.crossref_most_in_flight} (target: never past ${CROSSREF_PUBLIC_CONCURRENCY})`,
  "",
  "Over the free plan's limits, a bibliography stops at its budget (`CALL_MAX_D1_QUERIES=45`, " +
    "`CALL_MAX_SUBREQUESTS=45`) and answers the rest `unchecked` with a start; with the defaults (900, 900) the " +
    "figures above are what a paid plan's call spends.",
];
writeFileSync(path.join(ROOT, "bench/results/limits.md"), `${md.join("\n")}\n`);
console.log(JSON.stringify(targets));
