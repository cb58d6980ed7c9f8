// npm run bench:overhead [-- --count 2000]
// Where a cheap MCP call's time goes (issue 11, item 9). Through wrangler dev on loopback, one run, the same
// machine: a bare Node HTTP server (the machine's floor), the Worker's 404 (Hono, no MCP), an MCP ping, tools/list
// and tools/call arxiv_list_categories. Then the Worker is profiled through wrangler dev's inspector (V8's
// sampling profiler, Chrome DevTools protocol) while it answers the same tools/call, and its CPU time is split by
// the module each sample's function comes from (esbuild marks every module in the bundle with a `// path`
// comment): our code in src/, the MCP SDK, the agents SDK, Hono, zod, other libraries, and the runtime.
// Writes bench/results/overhead.json and .md.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { MCP_HEADERS, arg, percentile } from "../lib/mcp-bench.ts";

const COUNT = Number(arg("--count", "2000"));
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

async function time(label: string, call: () => Promise<unknown>, count = COUNT): Promise<Timing> {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    case: label,
    count,
    p50_ms: round(percentile(samples, 50)),
    p95_ms: round(percentile(samples, 95)),
    mean_ms: round(samples.reduce((a, b) => a + b, 0) / count),
  };
}

/** A minimal Chrome DevTools protocol client over the inspector's WebSocket. */
async function inspector(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
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
  for (const node of profile.nodes) {
    const { scriptId } = node.callFrame;
    if (scriptId === "0" || marksByScript.has(scriptId)) continue;
    const { scriptSource } = await cdp.send("Debugger.getScriptSource", { scriptId });
    marksByScript.set(scriptId, typeof scriptSource === "string" ? moduleLines(scriptSource) : []);
  }
  await cdp.send("Debugger.disable");
  cdp.close();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [i, id] of profile.samples.entries()) {
    const node = nodes.get(id)!;
    const { scriptId, lineNumber, functionName, url } = node.callFrame;
    const marks = marksByScript.get(scriptId) ?? [];
    let module: string | undefined;
    for (const mark of marks) if (mark.line <= lineNumber) module = mark.module;
    const group = groupOf(module ?? (url && !url.includes(".wrangler") ? url : undefined), functionName);
    const us = profile.timeDeltas[i] ?? 0;
    byGroup.set(group, (byGroup.get(group) ?? 0) + us);
    if (group === "ours: src/") {
      const key = `${functionName || "(anonymous)"} (${module})`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    }
  }
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
    our_functions: [...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([fn, us]) => ({ function: fn, ms_per_call: perCall(us) })),
  };
}

const bare = createServer((_request, response) => response.end("{}"));
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
const stack = await startStack();
try {
  const listCategories = () =>
    post(stack.mcpUrl, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "arxiv_list_categories", arguments: {} },
    });
  const timings = [
    await time("bare Node HTTP server (the machine's floor)", () => fetch(bareUrl).then((r) => r.text())),
    await time("Worker: GET /unknown (Hono 404, no MCP)", () => fetch(`${stack.url}/unknown`).then((r) => r.text())),
    await time("MCP ping", () => post(stack.mcpUrl, { jsonrpc: "2.0", id: 1, method: "ping" })),
    await time("MCP tools/list", () => post(stack.mcpUrl, { jsonrpc: "2.0", id: 1, method: "tools/list" })),
    await time("MCP tools/call arxiv_list_categories (all 155)", listCategories),
  ];
  const profiled = await profile(stack, listCategories);
  const report = {
    at: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}`,
    node: process.version,
    timings,
    profile: { case: "tools/call arxiv_list_categories", ...profiled },
  };
  const dir = path.join(ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "overhead.json"), `${JSON.stringify(report, null, 2)}\n`);
  const md = [
    "# Benchmark: the per-call MCP overhead",
    "",
    `${report.at} · ${report.machine} · Node ${report.node} · wrangler dev on loopback, one run`,
    "",
    "| case | calls | p50 ms | p95 ms | mean ms |",
    "|---|---|---|---|---|",
    ...timings.map((t) => `| ${t.case} | ${t.count} | ${t.p50_ms} | ${t.p95_ms} | ${t.mean_ms} |`),
    "",
    `## Where the Worker's CPU goes: ${report.profile.case}, ${profiled.calls} calls`,
    "",
    `Wall time ${profiled.wall_ms_per_call} ms a call while profiled; the Worker's isolate was busy ${profiled.worker_cpu_ms_per_call} ms a call (V8 sampling profiler, 50 µs).`,
    "",
    "| part | ms per call | share of the isolate's CPU |",
    "|---|---|---|",
    ...profiled.groups.map((g) => `| ${g.group} | ${g.ms_per_call} | ${g.share}% |`),
    "",
    "Our functions with the most self time:",
    "",
    "| function (module) | ms per call |",
    "|---|---|",
    ...profiled.our_functions.map((f) => `| ${f.function} | ${f.ms_per_call} |`),
    "",
  ].join("\n");
  writeFileSync(path.join(dir, "overhead.md"), md);
  console.log(md);
} finally {
  await stack.stop();
  bare.close();
}
