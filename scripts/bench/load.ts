// npm run bench:load [-- --clients 32] [-- --calls 60]
// Many clients at once, end to end over MCP through wrangler dev with the production spacing of
// the upstream gates: 32 clients x 60 mixed calls (NBER searches and paper info, arXiv searches
// and lookups from the mirror, the taxonomy, reference resolution), all clients concurrent. Reports
// latency and every upstream request the fake upstream saw, per distinct request: identical
// requests must reach the upstream once per cache lifetime. Writes bench/results/load.{json,md}.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { arg, MCP_HEADERS, mcpMessage, percentile } from "../lib/mcp-bench.ts";

const CLIENTS = Number(arg("--clients", "32"));
const CALLS = Number(arg("--calls", "60"));

// Three distinct NBER searches (the fake upstream has answers for them), two NBER papers, and calls the mirror answers.
const MIX = [
  ["nber_search_papers", { query: "artificial intelligence" }],
  ["nber_search_papers", { query: "nothing matches this" }],
  ["nber_search_papers", { query: "nothing matches this", per_page: 50 }],
  ["nber_get_paper_info", { paper_id: "w10000" }],
  ["nber_get_paper_info", { paper_id: "w33509" }],
  ["arxiv_search_papers", { query: "quantum" }],
  ["arxiv_search_papers", { query: "ti:lattice AND cat:hep-lat" }],
  ["arxiv_get_metadata", { paper_ids: ["0704.0001", "0704.0007"] }],
  ["arxiv_list_categories", { group: "cs" }],
  [
    "papers_resolve_reference",
    { reference: "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies, 2007" },
  ],
];

async function call(mcpUrl, clientId, name, args) {
  const started = performance.now();
  const response = await fetch(mcpUrl, {
    method: "POST",
    headers: { ...MCP_HEADERS, "cf-connecting-ip": clientId },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  let outcome = `http_${response.status}`;
  try {
    const message = mcpMessage(text);
    outcome = message.error
      ? "jsonrpc_error"
      : message.result?.isError
        ? `error:${JSON.parse(message.result.content[0].text).error.reason}`
        : "ok";
  } catch {
    // not JSON: counted by its HTTP status
  }
  return { name, ms, outcome };
}

const round1 = (x) => Math.round(x * 10) / 10;

const stack = await startStack({ waitFor: "health", seed: true });
try {
  const url = stack.mcpUrl;
  const t0 = performance.now();
  const results = (
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const out = [];
        for (let i = 0; i < CALLS; i++) {
          const [name, args] = MIX[(c + i) % MIX.length];
          out.push(await call(url, `load-${c}`, name, args));
        }
        return out;
      }),
    )
  ).flat();
  const wall = performance.now() - t0;
  const hits = await (await fetch(`${stack.fake.origin}/_hits`)).json();
  const perRequest = new Map();
  for (const hit of hits) perRequest.set(hit.path, (perRequest.get(hit.path) ?? 0) + 1);
  const all = results.map((r) => r.ms).sort((a, b) => a - b);
  const byTool = Object.fromEntries(
    [...new Set(results.map((r) => r.name))].map((name) => {
      const ms = results
        .filter((r) => r.name === name)
        .map((r) => r.ms)
        .sort((a, b) => a - b);
      return [
        name,
        {
          calls: ms.length,
          p50_ms: round1(percentile(ms, 50)),
          p95_ms: round1(percentile(ms, 95)),
          max_ms: round1(ms.at(-1)),
        },
      ];
    }),
  );
  const outcomes = {};
  for (const r of results) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
    clients: CLIENTS,
    calls_per_client: CALLS,
    calls: results.length,
    wall_ms: Math.round(wall),
    latency: { p50_ms: round1(percentile(all, 50)), p95_ms: round1(percentile(all, 95)), max_ms: round1(all.at(-1)) },
    by_tool: byTool,
    outcomes,
    upstream_requests: hits.length,
    upstream_by_request: Object.fromEntries([...perRequest].sort((a, b) => b[1] - a[1])),
  };
  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench/results/load.json"), `${JSON.stringify(report, null, 2)}\n`);
  const md = [
    "# Benchmark: load",
    "",
    `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node} · wrangler dev with the production gate spacing (NBER 1,000 ms, arXiv 3,000 ms)`,
    "",
    `${CLIENTS} concurrent clients × ${CALLS} mixed calls = ${results.length} calls in ${(wall / 1000).toFixed(1)} s: p50 ${report.latency.p50_ms} ms, p95 ${report.latency.p95_ms} ms, max ${report.latency.max_ms} ms. Outcomes: ${Object.entries(
      outcomes,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}.`,
    "",
    "| tool | calls | p50 ms | p95 ms | max ms |",
    "|---|---|---|---|---|",
    ...Object.entries(byTool).map(
      ([name, r]: [string, any]) => `| ${name} | ${r.calls} | ${r.p50_ms} | ${r.p95_ms} | ${r.max_ms} |`,
    ),
    "",
    `Upstream requests: ${hits.length} in all.`,
    "",
    "| upstream request | times |",
    "|---|---|",
    ...[...perRequest].sort((a, b) => b[1] - a[1]).map(([p, n]) => `| \`${p}\` | ${n} |`),
    "",
  ].join("\n");
  writeFileSync(path.join(ROOT, "bench/results/load.md"), md);
  console.log(md);
} finally {
  await stack.stop();
}
