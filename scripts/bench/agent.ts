// npm run bench:agent [-- --count <n>]
// The research agent end to end over MCP through wrangler dev, on the seeded mirror: a watch
// check and a library list for a client with 50 watches and 200 saved papers; the daily digest
// for 1,000 watches (20 clients x 50, each client's agent computing its own); and eviction:
// wrangler dev SIGKILLed and restarted on the same state, every watch and paper still there.
// Writes bench/results/agent.{json,md}.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { loadSampleRecords } from "../arxiv/sample.ts";
import { arg, callTool, measure, percentile, round } from "../lib/mcp-bench.ts";

const count = Number(arg("--count", "200"));
const call = (url, workspace, name, args) => callTool(url, name, args, { "x-papers-workspace": workspace });

// Watch queries: title words of the sample papers (each watch a real phrase of the mirror's vocabulary).
const records = loadSampleRecords();
const words = [...new Set(records.flatMap((record) => record.title.toLowerCase().match(/[a-z]{6,}/g) ?? []))].slice(
  0,
  200,
);
const watchesFor = (c) =>
  Array.from({ length: 50 }, (_, i) => ({ name: `w${i}`, arxiv_query: `ti:${words[(c * 50 + i) % words.length]}` }));
const savedIds = records
  .filter((record) => /^\d{4}\./.test(record.id))
  .slice(0, 200)
  .map((record) => record.id);

const stack = await startStack({ waitFor: "health", seed: true });
try {
  const url = stack.mcpUrl;
  const CLIENTS = 20;
  for (let c = 0; c < CLIENTS; c++)
    for (const watch of watchesFor(c)) await call(url, `bench-${c}`, "papers_watch", { action: "create", ...watch });
  for (let i = 0; i < savedIds.length; i += 50)
    await call(url, "bench-0", "papers_library", {
      action: "add",
      ids: savedIds.slice(i, i + 50),
      tags: [i < 100 ? "first-half" : "second-half"],
    });

  const rows = [
    await measure("papers_watch check, one watch (client with 50 watches)", count, (i) =>
      call(url, "bench-0", "papers_watch", { action: "check", watch: `w${i % 50}` }),
    ),
    await measure("papers_watch list (50 watches)", count, () =>
      call(url, "bench-0", "papers_watch", { action: "list" }),
    ),
    await measure("papers_library list (200 papers, latest versions from the mirror)", count, () =>
      call(url, "bench-0", "papers_library", { action: "list" }),
    ),
    await measure("papers_library list, one tag (100 papers)", count, () =>
      call(url, "bench-0", "papers_library", { action: "list", tag: "first-half" }),
    ),
  ];
  // The daily digest: every watch of every client computed (each agent its own 50, one after another here).
  const perClient = [];
  const t0 = performance.now();
  for (let c = 0; c < CLIENTS; c++) {
    const t = performance.now();
    const result = await call(url, `bench-${c}`, "papers_watch", { action: "check" });
    if (result.news.length !== 50) throw new Error(`client ${c}: ${result.news.length} watches checked`);
    perClient.push(performance.now() - t);
  }
  const digest = {
    watches: CLIENTS * 50,
    clients: CLIENTS,
    total_ms: round(performance.now() - t0),
    per_client_max_ms: round(Math.max(...perClient)),
    per_client_p50_ms: round(
      percentile(
        [...perClient].sort((a, b) => a - b),
        50,
      ),
    ),
  };

  // Eviction: kill wrangler dev outright and start it again on the same state.
  const before = {
    watches: (await call(url, "bench-7", "papers_watch", { action: "list" })).watches.length,
    papers: (await call(url, "bench-0", "papers_library", { action: "list" })).papers.length,
  };
  await stack.restart();
  const after = {
    watches: (await call(url, "bench-7", "papers_watch", { action: "list" })).watches.length,
    papers: (await call(url, "bench-0", "papers_library", { action: "list" })).papers.length,
  };
  if (after.watches !== before.watches || after.papers !== before.papers)
    throw new Error(`state lost in the restart: ${JSON.stringify({ before, after })}`);

  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
    latency: rows,
    digest,
    eviction: { before, after },
  };
  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench/results/agent.json"), `${JSON.stringify(report, null, 2)}\n`);
  const md = [
    "# Benchmark: research agent",
    "",
    `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node} · MCP over Streamable HTTP to wrangler dev · seeded mirror (1,128 arXiv papers, 30,083 NBER papers)`,
    "",
    "| case | n | p50 ms | p95 ms | max ms |",
    "|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.case} | ${r.count} | ${r.p50_ms} | ${r.p95_ms} | ${r.max_ms} |`),
    "",
    `Daily digest: ${digest.watches} watches (${digest.clients} clients x 50) in ${digest.total_ms} ms; one client's 50 watches p50 ${digest.per_client_p50_ms} ms, max ${digest.per_client_max_ms} ms (each client's agent runs its own in its alarm).`,
    `Eviction: wrangler dev SIGKILLed and restarted on the same state: ${after.watches} of ${before.watches} watches and ${after.papers} of ${before.papers} saved papers still there.`,
    "",
  ].join("\n");
  writeFileSync(path.join(ROOT, "bench/results/agent.md"), md);
  console.log(md);
} finally {
  await stack.stop();
}
