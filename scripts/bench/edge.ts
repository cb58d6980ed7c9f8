// npm run bench:edge [-- --db FILE] [--rtt 0,10,30,80] [--per-class 20]
// Production is not wrangler dev: each D1 call is a network round trip from the user's data centre
// to the database's region. This runs the Worker through its own bench entry point
// (scripts/bench/edge-worker.ts), which delays every D1 call of a request by the round trip its
// x-bench-d1-rtt-ms header names (0, 10, 30 and 80 ms by default), and reports per tool and per
// search class: p50 and p95 end to end, and the D1 calls and sequential rounds the Worker's own
// tool_call lines count. Every call is made at every round trip; the pages at each round trip
// are compared with those at 0 ms (the same answers, so the quality figures of the other benches
// hold). FILE: a mirror file from bench:mirror:offline (default the 1,000,000-paper one in the
// temp dir); the NBER seed is loaded beside it. Writes bench/results/edge.{json,md}.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadSampleRecords } from "../arxiv/sample.ts";
import { buildReferenceSet } from "../citations/reference-set.ts";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { arg, MCP_HEADERS, mcpMessage, percentile, round } from "../lib/mcp-bench.ts";
import { serveMirrorFileWithNber } from "../lib/mirror-file.ts";
import { QUERIES } from "./arxiv-mirror-queries.ts";
import { knownItemSearches, loadResearchQuestions, questionText } from "./known-items.ts";

const DB_FILE = arg("--db", path.join(os.tmpdir(), "papers-mcp-mirror-1000000.sqlite"))!;
const RTTS = arg("--rtt", "0,10,30,80")!.split(",").map(Number);
const PER_CLASS = Number(arg("--per-class", "20"));
if (!existsSync(DB_FILE)) throw new Error(`${DB_FILE} is missing: build it with npm run bench:mirror:offline first`);

type Call = { group: string; method: "tools/call" | "resources/read"; params: unknown };
const tool = (group: string, name: string, args: unknown): Call => ({
  group,
  method: "tools/call",
  params: { name, arguments: args },
});

// ---- the calls: every search class, lookups, a resource, references, a bibliography, a cached page
const records = loadSampleRecords();
const ids = records.map((r) => r.id);
const every = <T>(list: T[], n: number) =>
  list.filter((_, i) => i % Math.max(1, Math.floor(list.length / n)) === 0).slice(0, n);
const searches: Call[] = [];
for (const kind of [...new Set(QUERIES.map((q) => q.kind))])
  for (const q of QUERIES.filter((q) => q.kind === kind).slice(0, PER_CLASS))
    searches.push(tool(`search: ${kind}`, "arxiv_search_papers", q.args));
for (const known of every(knownItemSearches(records, 360), PER_CLASS))
  searches.push(tool(`search: known item (${known.form})`, "arxiv_search_papers", { query: known.query }));
for (const question of every(loadResearchQuestions(), PER_CLASS))
  searches.push(tool("search: research question", "arxiv_search_papers", { query: questionText(question) }));
const referenceSet = buildReferenceSet();
const held = referenceSet.cases.filter(
  (c) =>
    c.kind === "real" &&
    c.expect.status === "match" &&
    c.expect.source !== "crossref" &&
    !["physics", "journal-version", "bibtex", "ris"].includes(c.style) &&
    !String(c.style).startsWith("noise-"),
);
const calls: Call[] = [
  ...searches,
  ...every(ids, PER_CLASS).map((id) => tool("metadata: 1 ID", "arxiv_get_metadata", { paper_ids: [id] })),
  ...Array.from({ length: PER_CLASS }, (_, i) =>
    tool("metadata: 10 IDs", "arxiv_get_metadata", { paper_ids: ids.slice(i * 10, i * 10 + 10) }),
  ),
  ...every(
    ids.filter((id) => !id.includes("/")),
    PER_CLASS,
  ).map((id) => ({
    group: "resource: arxiv://paper",
    method: "resources/read" as const,
    params: { uri: `arxiv://paper/${id}` },
  })),
  ...every(held, PER_CLASS).map((c) =>
    tool("papers_resolve_reference (mirror)", "papers_resolve_reference", { reference: c.text }),
  ),
  ...Array.from({ length: Math.max(2, Math.floor(PER_CLASS / 4)) }, (_, i) =>
    tool("papers_check_bibliography (50, mirror)", "papers_check_bibliography", {
      bibliography: held
        .filter((_, k) => k % 13 === i % 13)
        .slice(0, 50)
        .map((c, n) => `[${n + 1}] ${c.text}`)
        .join("\n"),
    }),
  ),
  ...Array.from({ length: PER_CLASS }, () =>
    tool("arxiv_read_paper (cached page)", "arxiv_read_paper", { paper_id: "2501.11120v1", max_tokens: 2000 }),
  ),
  ...Array.from({ length: PER_CLASS }, () => tool("papers_watch check", "papers_watch", { action: "check" })),
  ...Array.from({ length: PER_CLASS }, () => tool("floor: arxiv_list_categories", "arxiv_list_categories", {})),
];

// ---- the stack: the bench entry point over the mirror file and the NBER seed
const stack = await startStack({
  entry: "scripts/bench/edge-worker.ts",
  workerLogs: true,
  readyTimeoutMs: 300_000,
  prepareState: (file) => serveMirrorFileWithNber(DB_FILE, file),
});

const WORKSPACE = "edge-bench";
let client = 0;
async function send(call: Call, rtt: number) {
  const started = performance.now();
  const response = await fetch(stack.mcpUrl, {
    method: "POST",
    headers: {
      ...MCP_HEADERS,
      // A client address per call: the per-client rate limit is not what this measures.
      "cf-connecting-ip": `edge-${++client}`,
      "x-papers-workspace": WORKSPACE,
      "x-bench-d1-rtt-ms": String(rtt),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: call.method, params: call.params }),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  const message = mcpMessage(text);
  if (response.status !== 200 || message.error) throw new Error(`${call.group}: ${text.slice(0, 300)}`);
  // A tool's error answer (a search the mirror hands to arXiv's API, which the fake does not
  // hold) is counted, not timed.
  return { ms, result: message.result, failed: message.result?.isError === true };
}

/**
 * The tool_call or resource_read line of the next call, in order: every call writes exactly one,
 * after its answer has gone, so the n-th line is the n-th call's.
 */
let linesTaken = 0;
async function nextCallLine(): Promise<{ d1_calls: number; d1_sequential: number } | null> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const lines = stack
      .logs()
      .split("\n")
      .filter((line) => /"event":"(tool_call|resource_read)"/.test(line));
    if (lines.length > linesTaken) {
      const line = lines[linesTaken++]!;
      return JSON.parse(line.slice(line.indexOf("{")));
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return null;
}

/** What a page is, to compare answers across round trips (the IDs or verdicts it lists, or its text). */
const pageOf = (result: any) => {
  const s = result?.structuredContent;
  if (s?.papers) return s.papers.map((p: any) => p.id).join(",");
  if (s?.matches) return s.matches.map((m: any) => `${m.source}:${m.id}`).join(",");
  if (s?.entries) return s.entries.map((e: any) => `${e.verdict}:${e.id ?? ""}`).join(",");
  if (result?.contents) return String(result.contents[0]?.text ?? "").slice(0, 200);
  return JSON.stringify(s ?? result?.content?.[0]?.text ?? "").slice(0, 300);
};

const report: Record<string, any> = {
  name: "edge",
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  mirror: `${DB_FILE} (+ the NBER seed)`,
  rtts_ms: RTTS,
  groups: {},
};
try {
  // The watch the check reads (the Agent's storage outlives a restart).
  await send(
    tool("setup", "papers_watch", { action: "create", name: "entanglement", arxiv_query: "all:entanglement" }),
    0,
  );
  await nextCallLine();
  const pagesAtZero = new Map<number, string>();
  const mismatches: string[] = [];
  // A priming pass, not measured: what the Worker caches in D1 or R2 (a read page, citation counts
  // from OpenAlex) is cached for every measured pass alike, so no column pays an upstream's first answer.
  // A lookup of 10 IDs asks OpenAlex for at most 3 counts a call: it is primed until all 10 are cached.
  for (const call of calls)
    for (let i = 0; i < (call.group === "metadata: 10 IDs" ? 4 : 1); i++) {
      await send(call, 0);
      await nextCallLine();
    }
  for (const [pass, rtt] of RTTS.entries()) {
    // Each round trip starts from a fresh isolate (its memos and impact-list cache empty), warmed
    // by calls that are not measured, so every column pays the same first-time reads.
    await stack.restart();
    linesTaken = 0;
    for (const warm of [
      ...Array.from({ length: 3 }, () => tool("warm", "arxiv_list_categories", {})),
      tool("warm", "arxiv_search_papers", { query: "warm up the isolate" }),
      tool("warm", "arxiv_get_metadata", { paper_ids: ["0704.0001"] }),
    ]) {
      await send(warm, rtt);
      await nextCallLine();
    }
    for (const [i, call] of calls.entries()) {
      const { ms, result, failed } = await send(call, rtt);
      const line = await nextCallLine();
      const group = (report.groups[call.group] ??= {});
      const at = (group[rtt] ??= { ms: [], calls: [], sequential: [], failed: 0 });
      if (failed) {
        at.failed++;
        continue;
      }
      at.ms.push(ms);
      if (line) {
        at.calls.push(line.d1_calls);
        at.sequential.push(line.d1_sequential);
      }
      const page = pageOf(result);
      if (call.group.startsWith("papers_watch")) continue; // a check's news changes as it checks
      if (pass === 0) pagesAtZero.set(i, page);
      else if (pagesAtZero.get(i) !== page) mismatches.push(`${call.group} #${i} at ${rtt} ms`);
    }
    console.error(`edge bench: ${calls.length} calls at ${rtt} ms`);
  }
  report.pages_compared = calls.filter((c) => !c.group.startsWith("papers_watch")).length * (RTTS.length - 1);
  report.page_mismatches = mismatches;
} finally {
  await stack.stop();
}

// ---- the report
// Every ranked search together (the classes above but the listed newest-first): the targets are set on these.
const RANKED = "search: every ranked class";
const ranked: Record<number, any> = {};
for (const [group, byRtt] of Object.entries<any>(report.groups))
  if (group.startsWith("search: ") && group !== "search: newest first")
    for (const rtt of RTTS) {
      const into = (ranked[rtt] ??= { ms: [], calls: [], sequential: [], failed: 0 });
      for (const key of ["ms", "calls", "sequential"]) into[key].push(...byRtt[rtt][key]);
      into.failed += byRtt[rtt].failed;
    }
if (Object.keys(ranked).length > 0) report.groups[RANKED] = ranked;
const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : { p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)) };
};
const rows: string[] = [];
const summary: Record<string, any> = {};
for (const [group, byRtt] of Object.entries<any>(report.groups)) {
  const first = byRtt[RTTS[0]!];
  const out: Record<string, any> = {
    n: first.ms.length,
    failed: first.failed,
    d1_calls: stats(first.calls),
    d1_sequential: stats(first.sequential),
  };
  for (const rtt of RTTS)
    out[`${rtt}ms`] = { ...stats(byRtt[rtt].ms), sequential_p50: stats(byRtt[rtt].sequential)?.p50 ?? null };
  summary[group] = out;
  if (out.n === 0) continue;
  rows.push(
    `| ${group} | ${out.n}${out.failed ? ` (+${out.failed} failed)` : ""} | ${out.d1_calls?.p50 ?? "-"} / ${out.d1_calls?.p95 ?? "-"} | ${out.d1_sequential?.p50 ?? "-"} / ${out.d1_sequential?.p95 ?? "-"} | ` +
      RTTS.map((rtt) => `${out[`${rtt}ms`].p50} / ${out[`${rtt}ms`].p95} (${out[`${rtt}ms`].sequential_p50})`).join(
        " | ",
      ) +
      " |",
  );
}
report.summary = summary;
for (const group of Object.values<any>(report.groups)) for (const rtt of RTTS) delete group[rtt].ms;
mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
writeFileSync(
  path.join(ROOT, "bench/results/edge.json"),
  `${JSON.stringify({ ...report, groups: undefined }, null, 2)}\n`,
);
const md = [
  `# D1 round trips and a simulated network (${report.date.slice(0, 10)}, ${report.mirror})`,
  "",
  "Every D1 call of a request delayed by the round trip in the column head (scripts/bench/edge-worker.ts, the",
  "bench's own entry point); D1 calls and sequential rounds from the Worker's tool_call lines (p50 / p95, at 0 ms).",
  "The Agent Durable Object's own D1 calls (papers_watch check) are not delayed.",
  `Pages compared with the 0 ms run: ${report.pages_compared}, different: ${report.page_mismatches.length}.`,
  "",
  `| call | n | D1 calls | sequential | ${RTTS.map((rtt) => `${rtt} ms: p50 / p95 (rounds p50)`).join(" | ")} |`,
  `|---|---|---|---|${RTTS.map(() => "---").join("|")}|`,
  ...rows,
  "",
].join("\n");
writeFileSync(path.join(ROOT, "bench/results/edge.md"), md);
console.log(md);
