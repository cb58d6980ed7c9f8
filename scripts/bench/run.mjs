// npm run bench [-- --name <name>] [-- --count <n>]
// Starts the stack (fake upstream + wrangler dev, as a user's `npm start` would run it) and
// measures MCP end-to-end latency over loopback. Writes bench/results/<name>.json and .md.
// Later capabilities add their cases to CASES.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, startStack } from "../lib/dev-server.mjs";

const arg = (flag, fallback) => {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const name = arg("--name", "foundation");
const count = Number(arg("--count", "1000"));
const warmup = 100;

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};

async function rpc(mcpUrl, method, params) {
  const response = await fetch(mcpUrl, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method}: HTTP ${response.status} ${text.slice(0, 200)}`);
  const data = text.startsWith("event:") ? text.split("\n").find((line) => line.startsWith("data: "))?.slice(6) : text;
  const message = JSON.parse(data);
  if (message.error || message.result?.isError) throw new Error(`${method}: ${JSON.stringify(message).slice(0, 300)}`);
  return { message, bytes: Buffer.byteLength(text) };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function measure(label, call) {
  for (let i = 0; i < warmup; i++) await call();
  const samples = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await call();
    samples.push(performance.now() - t);
  }
  const elapsed = performance.now() - started;
  samples.sort((a, b) => a - b);
  const round = (x) => Math.round(x * 100) / 100;
  return {
    case: label,
    count,
    p50_ms: round(percentile(samples, 50)),
    p95_ms: round(percentile(samples, 95)),
    p99_ms: round(percentile(samples, 99)),
    mean_ms: round(samples.reduce((a, b) => a + b, 0) / samples.length),
    requests_per_s: Math.round((count / elapsed) * 1000),
  };
}

const CASES = [
  // The floor: wrangler dev's proxy + Hono's 404, no MCP. Read the MCP rows as a ratio to it.
  ["HTTP floor: GET /unknown (404, no MCP)", async (url) => (await fetch(url.replace(/\/mcp$/, "/unknown"))).text()],
  ["tools/list", (url) => rpc(url, "tools/list")],
  ["tools/call arxiv_list_categories (all 155)", (url) => rpc(url, "tools/call", { name: "arxiv_list_categories", arguments: {} })],
  ["tools/call arxiv_list_categories (group=cs)", (url) => rpc(url, "tools/call", { name: "arxiv_list_categories", arguments: { group: "cs" } })],
];

const stack = await startStack({ waitFor: "ready" });
try {
  // The first request after start, sent the moment wrangler dev reports "Ready on": it pays for
  // whatever start-up is left in the Worker (first McpServer, first schema conversion, lazy imports).
  const t = performance.now();
  await rpc(stack.mcpUrl, "tools/call", { name: "arxiv_list_categories", arguments: {} });
  const startup = {
    wrangler_ready_ms: stack.readyAt - stack.startedAt,
    first_request_ms: Math.round((performance.now() - t) * 100) / 100,
  };
  const t2 = performance.now();
  await rpc(stack.mcpUrl, "tools/call", { name: "arxiv_list_categories", arguments: { group: "cs" } });
  startup.second_request_ms = Math.round((performance.now() - t2) * 100) / 100;

  const list = await rpc(stack.mcpUrl, "tools/list");
  const size = {
    tools: list.message.result.tools.length,
    tools_list_result_bytes: Buffer.byteLength(JSON.stringify(list.message.result)),
    tools_list_response_bytes: list.bytes,
  };

  const latency = [];
  for (const [label, call] of CASES) latency.push(await measure(label, () => call(stack.mcpUrl)));

  const report = {
    name,
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.arch()}` },
    transport: "Streamable HTTP over loopback to wrangler dev (protocol 2025-11-25, stateless)",
    startup,
    size,
    latency,
  };
  const dir = path.join(ROOT, "bench/results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  const md = [
    `# Benchmark: ${name}`,
    "",
    `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node} · ${report.transport}`,
    "",
    "| case | n | p50 ms | p95 ms | p99 ms | mean ms | req/s |",
    "|---|---|---|---|---|---|---|",
    ...latency.map((r) => `| ${r.case} | ${r.count} | ${r.p50_ms} | ${r.p95_ms} | ${r.p99_ms} | ${r.mean_ms} | ${r.requests_per_s} |`),
    "",
    "| start-up | ms |",
    "|---|---|",
    `| wrangler dev spawn -> "Ready on" (esbuild bundle + workerd start) | ${startup.wrangler_ready_ms} |`,
    `| first request after ready (tools/call, all categories) | ${startup.first_request_ms} |`,
    `| second request | ${startup.second_request_ms} |`,
    "",
    `tools/list: ${size.tools} tools, ${size.tools_list_result_bytes} bytes (result JSON), ${size.tools_list_response_bytes} bytes on the wire.`,
    "",
  ].join("\n");
  writeFileSync(path.join(dir, `${name}.md`), md);
  console.log(md);
} finally {
  await stack.stop();
}
