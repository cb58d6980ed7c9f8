// npm run bench:overhead [-- --count 2000] [-- --before <git ref>]
// Where a cheap MCP call's time goes (issue 11, item 9). Through wrangler dev on loopback, one run, the same
// machine: a bare Node HTTP server (the machine's floor), the Worker's 404 (Hono, no MCP), an MCP ping, tools/list
// and tools/call arxiv_list_categories. Then the Worker is profiled through wrangler dev's inspector (V8's
// sampling profiler, Chrome DevTools protocol) while it answers the same tools/call, and its CPU time is split by
// the module each sample's function comes from (esbuild marks every module in the bundle with a `// path`
// comment): our code in src/, the MCP SDK, the agents SDK, Hono, zod, other libraries, and the runtime.
// With --before, a second stack runs the Worker of that commit (a git worktree) in the same run, and every case is
// timed on both, in alternating blocks, so the machine's drift falls on both alike.
// With --search-db FILE (a mirror file built by bench:mirror:offline), the Worker serves that mirror and a
// research question per call (arxiv_search_papers) is timed and profiled as well: where a search's time goes
// besides our ranker (D1's client reading and parsing the rows, the runtime). The same run times the mirror's cheaper
// calls beside it (a lookup by ID, one common word) and the same searches offline (the Worker's code on node:sqlite
// over the same file, no MCP or HTTP), so that a search's time splits into the call's floor, the database and ranker,
// and what carrying D1's rows to the Worker adds. Writes overhead-search.json and .md.
// Writes bench/results/overhead.json and .md.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import os from "node:os";
import path from "node:path";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { copyMirrorFile, markMirrorComplete } from "../lib/mirror-file.ts";
import { MCP_HEADERS, arg, percentile } from "../lib/mcp-bench.ts";
import { d1Over } from "../lib/d1-node.ts";
import { importWorkerCode } from "../lib/worker-code.ts";
import { QUERIES } from "./arxiv-mirror-queries.ts";
import { loadResearchQuestions, questionText } from "./known-items.ts";

const COUNT = Number(arg("--count", "2000"));
const BEFORE = arg("--before");
const SEARCH_DB = arg("--search-db");
const WARMUP = 200;

let client = 0;
const post = (url: string, body: unknown) =>
  fetch(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, "cf-connecting-ip": `overhead-${++client}` },
    body: JSON.stringify(body),
  }).then(async (response) => {
    const text = await response.text();
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
    return text;
  });

interface Timing {
  case: string;
  count: number;
  p50_ms: number;
  p95_ms: number;
  mean_ms: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function summary(label: string, samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    case: label,
    count: sorted.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    mean_ms: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
  };
}

/** Times `calls` (one per stack) in alternating blocks of 100, after a warm-up of each. */
async function time(calls: (() => Promise<unknown>)[]): Promise<number[][]> {
  for (const call of calls) for (let i = 0; i < WARMUP; i++) await call();
  const samples = calls.map((): number[] => []);
  for (let done = 0; done < COUNT; done += 100) {
    for (const [which, call] of calls.entries()) {
      for (let i = 0; i < Math.min(100, COUNT - done); i++) {
        const started = performance.now();
        await call();
        samples[which]!.push(performance.now() - started);
      }
    }
  }
  return samples;
}

/** A minimal Chrome DevTools protocol client over the inspector's WebSocket. */
async function inspector(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  // The inspector proxy accepts localhost origins only (Node's WebSocket sends none unless told; undici takes headers).
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl, {
    headers: { origin: "http://localhost" },
  } as unknown as string[]);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let nextId = 0;
  const pending = new Map<number, (result: any) => void>();
  const scripts = new Map<string, string>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data));
    if (message.method === "Debugger.scriptParsed") scripts.set(message.params.scriptId, message.params.url);
    if (message.id !== undefined) pending.get(message.id)?.(message.result ?? { error: message.error });
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<any>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, scripts, close: () => socket.close() };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; scriptId: string; url: string; lineNumber: number };
  /** Samples by source line (1-based) inside this node's function. */
  positionTicks?: { line: number; ticks: number }[];
  children?: number[];
}

/** Line -> module, from esbuild's `// path` comments that open each module's code in the bundle. */
function moduleLines(source: string): { line: number; module: string }[] {
  const marks: { line: number; module: string }[] = [];
  source.split("\n").forEach((text, line) => {
    const match = /^\/\/ ((?:\.\.\/)*(?:src|node_modules|scripts)\/[^\s]+\.(?:[cm]?[jt]s|json))$/.exec(text);
    if (match) marks.push({ line, module: match[1]!.replace(/^(\.\.\/)+/, "") });
  });
  return marks;
}

function groupOf(module: string | undefined, functionName: string): string {
  if (module === undefined) {
    if (functionName === "(garbage collector)") return "runtime: garbage collector";
    if (functionName === "(idle)") return "idle";
    if (functionName === "(program)") return "runtime: (program)";
    return "runtime: native and unmapped";
  }
  if (module.startsWith("src/")) return "ours: src/";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module)?.[1] ?? module;
  if (pkg.startsWith("@modelcontextprotocol/")) return "MCP SDK (@modelcontextprotocol/*)";
  if (pkg === "agents") return "agents SDK (createMcpHandler)";
  if (pkg === "hono") return "hono";
  if (pkg === "zod") return "zod";
  return `library: ${pkg}`;
}

async function profile(stack: { inspectorPort: number; mcpUrl: string }, call: () => Promise<unknown>) {
  const cdp = await inspector(stack.inspectorPort);
  await cdp.send("Debugger.enable");
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 50 });
  await cdp.send("Profiler.start");
  const started = performance.now();
  for (let i = 0; i < COUNT; i++) await call();
  const wallMs = performance.now() - started;
  const { profile } = (await cdp.send("Profiler.stop")) as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  const marksByScript = new Map<string, { line: number; module: string }[]>();
  const linesByScript = new Map<string, string[]>();
  for (const node of profile.nodes) {
    const { scriptId } = node.callFrame;
    if (scriptId === "0" || marksByScript.has(scriptId)) continue;
    const { scriptSource } = await cdp.send("Debugger.getScriptSource", { scriptId });
    marksByScript.set(scriptId, typeof scriptSource === "string" ? moduleLines(scriptSource) : []);
    linesByScript.set(scriptId, typeof scriptSource === "string" ? scriptSource.split("\n") : []);
  }
  const moduleAt = (scriptId: string, line: number) => {
    let module: string | undefined;
    for (const mark of marksByScript.get(scriptId) ?? []) if (mark.line <= line) module = mark.module;
    return module;
  };
  await cdp.send("Debugger.disable");
  cdp.close();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const anyFunction = new Map<string, number>();
  for (const [i, id] of profile.samples.entries()) {
    const node = nodes.get(id)!;
    const { scriptId, lineNumber, functionName, url } = node.callFrame;
    const module = moduleAt(scriptId, lineNumber);
    const group = groupOf(module ?? (url && !url.includes(".wrangler") ? url : undefined), functionName);
    const us = profile.timeDeltas[i] ?? 0;
    byGroup.set(group, (byGroup.get(group) ?? 0) + us);
    if (group !== "idle") {
      const key = `${functionName || "(anonymous)"} (${group})`;
      anyFunction.set(key, (anyFunction.get(key) ?? 0) + us);
    }
    if (group === "ours: src/") {
      const key = `${functionName || "(anonymous)"} (${module})`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    }
  }
  // Our hottest lines: the profiler's ticks per line of our functions, shown as the bundled line's code.
  const tickUs = profile.timeDeltas.reduce((a, b) => a + b, 0) / Math.max(1, profile.samples.length);
  const byLine = new Map<string, number>();
  for (const node of profile.nodes) {
    const { scriptId, lineNumber } = node.callFrame;
    const module = moduleAt(scriptId, lineNumber);
    if (!module?.startsWith("src/")) continue;
    for (const { line, ticks } of node.positionTicks ?? []) {
      const code = (linesByScript.get(scriptId)?.[line - 1] ?? "").trim().slice(0, 90);
      const key = `${moduleAt(scriptId, line - 1)}: ${code}`;
      byLine.set(key, (byLine.get(key) ?? 0) + ticks * tickUs);
    }
  }
  // Inclusive time of our functions (with everything they call), outermost frames of a name counted once.
  const selfUs = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const inclusive = new Map<string, number>();
  const walkTree = (id: number, open: Set<string>): number => {
    const node = nodes.get(id)!;
    const module = moduleAt(node.callFrame.scriptId, node.callFrame.lineNumber);
    const key = module?.startsWith("src/") ? `${node.callFrame.functionName || "(anonymous)"} (${module})` : null;
    const entering = key !== null && !open.has(key);
    if (entering) open.add(key!);
    let total = selfUs.get(id) ?? 0;
    for (const child of node.children ?? []) total += walkTree(child, open);
    if (entering) {
      open.delete(key!);
      inclusive.set(key!, (inclusive.get(key!) ?? 0) + total);
    }
    return total;
  };
  walkTree(profile.nodes[0]!.id, new Set());
  const perCall = (us: number) => Math.round((us / COUNT / 1000) * 1000) / 1000;
  const busy = [...byGroup].filter(([group]) => group !== "idle").reduce((sum, [, us]) => sum + us, 0);
  return {
    calls: COUNT,
    wall_ms_per_call: Math.round((wallMs / COUNT) * 1000) / 1000,
    worker_cpu_ms_per_call: perCall(busy),
    groups: [...byGroup]
      .filter(([group]) => group !== "idle")
      .sort((a, b) => b[1] - a[1])
      .map(([group, us]) => ({ group, ms_per_call: perCall(us), share: Math.round((us / busy) * 1000) / 10 })),
    our_inclusive: [...inclusive]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([fn, us]) => ({ function: fn, ms_per_call: perCall(us) })),
    our_lines: [...byLine]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([line, us]) => ({ line, ms_per_call: perCall(us) })),
    any_functions: [...anyFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([fn, us]) => ({ function: fn, ms_per_call: perCall(us) })),
    our_functions: [...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([fn, us]) => ({ function: fn, ms_per_call: perCall(us) })),
  };
}

/** The Worker of another commit, from a git worktree that shares this checkout's node_modules. */
async function startBefore(ref: string) {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), "papers-mcp-before-")), "tree");
  execFileSync("git", ["worktree", "add", "--detach", dir, ref], { cwd: ROOT, stdio: "ignore" });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  const commit = execFileSync("git", ["rev-parse", "--short", ref], { cwd: ROOT }).toString().trim();
  const { startStack: startThat } = (await import(path.join(dir, "scripts/lib/dev-server.ts"))) as {
    startStack: typeof startStack;
  };
  const stack = await startThat(searchState);
  return {
    commit,
    stack,
    stop: async () => {
      await stack.stop();
      execFileSync("git", ["worktree", "remove", "--force", dir], { cwd: ROOT, stdio: "ignore" });
      rmSync(path.dirname(dir), { recursive: true, force: true });
    },
  };
}

/** IDs of papers the mirror file holds, spread over its keys (month x 10^6 + position). */
function mirrorPaperIds(file: string, count: number): string[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const { low, high } = db
      .prepare("SELECT min(paper_key) AS low, max(paper_key) AS high FROM arxiv_papers")
      .get() as { low: number; high: number };
    const next = db.prepare("SELECT id FROM arxiv_papers WHERE paper_key >= ? ORDER BY paper_key LIMIT 1");
    const ids = new Set<string>();
    for (let i = 0; i < count; i++) {
      const row = next.get(Math.floor(low + ((high - low) * i) / count)) as { id: string } | undefined;
      if (row) ids.add(row.id);
    }
    return [...ids];
  } finally {
    db.close();
  }
}

/** Each query set searched by the Worker's own code over the mirror file (read-only), a page of 10 by relevance. */
async function offlineSearches(file: string, sets: { label: string; queries: string[] }[]) {
  const code = await importWorkerCode(path.join(ROOT, "scripts/bench/mirror-search-code.ts"));
  const sqlite = new DatabaseSync(file, { readOnly: true });
  const db = d1Over(sqlite);
  const options = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10 };
  try {
    const out: { label: string; samples: number[] }[] = [];
    for (const { label, queries } of sets) {
      const samples: number[] = [];
      for (let i = 0; i < WARMUP + COUNT; i++) {
        const planned = code.planMirrorSearch(queries[i % queries.length], {});
        if (!("plan" in planned)) continue;
        const started = performance.now();
        await code.searchMirror(code.oneDatabase(db), planned.plan, options);
        if (i >= WARMUP) samples.push(performance.now() - started);
      }
      out.push({ label, samples });
    }
    return out;
  } finally {
    sqlite.close();
  }
}

const bare = createServer((_request, response) => response.end("{}"));
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
/** Serves the --search-db mirror file (copied, as the mirror bench does). */
const searchState = SEARCH_DB
  ? {
      vars: { ARXIV_MIRROR_RECENT_DAYS_LIVE: "0" },
      readyTimeoutMs: 300_000,
      prepareState: (file: string) => {
        copyMirrorFile(SEARCH_DB, file);
        const db = new DatabaseSync(file);
        markMirrorComplete(db);
        db.close();
      },
    }
  : {};
const stack = await startStack(searchState);
const before = BEFORE ? await startBefore(BEFORE) : undefined;
try {
  const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT }).toString().trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "src"], { cwd: ROOT }).toString().trim() !== "";
  const thisBuild = `this tree (${head}${dirty ? " + uncommitted src" : ""})`;
  const listCategories = (mcpUrl: string) => () =>
    post(mcpUrl, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "arxiv_list_categories", arguments: {} },
    });
  // A research question per call, each stack taking them in the same order.
  const questions = loadResearchQuestions().map(questionText);
  // The bench's one-word searches (each word's champions: a small page of candidates), and papers the mirror holds.
  const words = QUERIES.filter((q) => q.kind === "word").map((q) => q.args.query as string);
  const paperIds = SEARCH_DB ? mirrorPaperIds(SEARCH_DB, 200) : [];
  const rotating = (name: string, argumentsOf: (i: number) => Record<string, unknown>) => (s: { mcpUrl: string }) => {
    let next = 0;
    return () =>
      post(s.mcpUrl, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: argumentsOf(next++) },
      });
  };
  const search = rotating("arxiv_search_papers", (i) => ({ query: questions[i % questions.length] }));
  const stacks = [
    { label: thisBuild, stack },
    ...(before ? [{ label: `before (${before.commit})`, stack: before.stack }] : []),
  ];
  const cases: { label: string; call: (s: { url: string; mcpUrl: string }) => () => Promise<unknown> }[] = [
    {
      label: "Worker: GET /unknown (Hono 404, no MCP)",
      call: (s) => () => fetch(`${s.url}/unknown`).then((r) => r.text()),
    },
    { label: "MCP ping", call: (s) => () => post(s.mcpUrl, { jsonrpc: "2.0", id: 1, method: "ping" }) },
    { label: "MCP tools/list", call: (s) => () => post(s.mcpUrl, { jsonrpc: "2.0", id: 1, method: "tools/list" }) },
    { label: "MCP tools/call arxiv_list_categories (all 155)", call: (s) => listCategories(s.mcpUrl) },
    ...(SEARCH_DB
      ? [
          {
            label: "MCP tools/call arxiv_get_metadata (one paper, from the mirror: one D1 round trip)",
            call: rotating("arxiv_get_metadata", (i) => ({ paper_ids: [paperIds[i % paperIds.length]] })),
          },
          {
            label: "MCP tools/call arxiv_search_papers (one common word, on the mirror: about 20 candidates)",
            call: rotating("arxiv_search_papers", (i) => ({ query: words[i % words.length] })),
          },
          { label: "MCP tools/call arxiv_search_papers (a research question, on the mirror)", call: search },
        ]
      : []),
  ];
  const [bareSamples] = await time([() => fetch(bareUrl).then((r) => r.text())]);
  const timings: (Timing & { build: string })[] = [
    { ...summary("bare Node HTTP server (the machine's floor)", bareSamples!), build: "-" },
  ];
  for (const { label, call } of cases) {
    const samples = await time(stacks.map((s) => call(s.stack)));
    for (const [i, s] of stacks.entries()) timings.push({ ...summary(label, samples[i]!), build: s.label });
  }
  // The same searches without MCP, HTTP or D1's transport, while wrangler dev is idle.
  if (SEARCH_DB) {
    const offline = await offlineSearches(SEARCH_DB, [
      { label: "offline: a research question (node:sqlite, the Worker's search code)", queries: questions },
      { label: "offline: one common word (node:sqlite, the Worker's search code)", queries: words },
    ]);
    for (const { label, samples } of offline) timings.push({ ...summary(label, samples), build: thisBuild });
  }
  const profiled = await profile(stack, SEARCH_DB ? search(stack) : listCategories(stack.mcpUrl));
  const report = {
    at: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}`,
    node: process.version,
    builds: stacks.map((s) => s.label),
    timings,
    profile: {
      case: SEARCH_DB ? "tools/call arxiv_search_papers (research questions)" : "tools/call arxiv_list_categories",
      build: thisBuild,
      ...(SEARCH_DB ? { mirror: SEARCH_DB } : {}),
      ...profiled,
    },
  };
  const dir = path.join(ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const name = SEARCH_DB ? "overhead-search" : "overhead";
  writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  const md = [
    "# Benchmark: the per-call MCP overhead",
    "",
    `${report.at} · ${report.machine} · Node ${report.node} · wrangler dev on loopback, one run${before ? `; the two builds timed in alternating blocks of 100 calls` : ""}${SEARCH_DB ? `; the mirror: ${SEARCH_DB}` : ""}`,
    "",
    "| case | build | calls | p50 ms | p95 ms | mean ms |",
    "|---|---|---|---|---|---|",
    ...timings.map((t) => `| ${t.case} | ${t.build} | ${t.count} | ${t.p50_ms} | ${t.p95_ms} | ${t.mean_ms} |`),
    "",
    `## Where the Worker's CPU goes: ${report.profile.case}, ${profiled.calls} calls, ${thisBuild}`,
    "",
    `Wall time ${profiled.wall_ms_per_call} ms a call while profiled; the Worker's isolate was busy ${profiled.worker_cpu_ms_per_call} ms a call (V8 sampling profiler, 50 µs).`,
    "",
    "| part | ms per call | share of the isolate's CPU |",
    "|---|---|---|",
    ...profiled.groups.map((g) => `| ${g.group} | ${g.ms_per_call} | ${g.share}% |`),
    "",
    "All functions with the most self time (the runtime's and libraries' too):",
    "",
    "| function (part) | ms per call |",
    "|---|---|",
    ...profiled.any_functions.map((f) => `| ${f.function} | ${f.ms_per_call} |`),
    "",
    "Our functions with the most self time:",
    "",
    "| function (module) | ms per call |",
    "|---|---|",
    ...profiled.our_functions.map((f) => `| ${f.function} | ${f.ms_per_call} |`),
    "",
    "Our functions with what they call (inclusive):",
    "",
    "| function (module) | ms per call |",
    "|---|---|",
    ...profiled.our_inclusive.map((f) => `| ${f.function} | ${f.ms_per_call} |`),
    "",
    "Our hottest lines (the bundled code):",
    "",
    "| module: line | ms per call |",
    "|---|---|",
    ...profiled.our_lines.map((l) => `| ${l.line.replaceAll("|", "\\|")} | ${l.ms_per_call} |`),
    "",
  ].join("\n");
  writeFileSync(path.join(dir, `${name}.md`), md);
  console.log(md);
} finally {
  await stack.stop();
  await before?.stop();
  bare.close();
}
