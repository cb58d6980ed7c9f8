// npm run bench:mirror [-- --papers 1000000] [-- --delay 1000] [-- --pages 6]
// The arXiv mirror's benchmarks, through wrangler dev and local D1 (workerd's SQLite):
// - size on disk and bytes per paper of a synthetic mirror (scripts/bench/arxiv-synthetic.mjs);
// - 50 fixed searches of every kind against it, end to end over MCP (count + a page of 10);
// - ingest of one 1,000-record OAI-PMH page (parse + one D1 batch, timed inside the Worker),
//   into an empty mirror and as a refresh of 1,000 held papers (new text, new categories);
// - a harvest of N pages at a crawl delay d, against the 1.05 x N x d target.
// The OAI-PMH pages come from a loopback server here: synthetic records in arXivRaw.
import { createHash } from "node:crypto";
import http from "node:http";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ROOT, startStack } from "../lib/dev-server.mjs";
import { page, recordXml } from "../arxiv/oai-xml.mjs";
import { fillMirror, samplePools, synthesize } from "./arxiv-synthetic.mjs";

const arg = (flag, fallback) => {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const PAPERS = Number(arg("--papers", "1000000"));
const DELAY_MS = Number(arg("--delay", "1000"));
const PAGES = Number(arg("--pages", "6"));
const ADMIN_TOKEN = "bench-admin-token";
const NOTE = "SYNTHETIC benchmark page (scripts/bench/arxiv-mirror.mjs): arXivRaw format, words drawn from data/arxiv-sample";
const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const NO_RECORDS = `<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-11-30T02:30:00Z</responseDate><request verb="ListRecords">https://oaipmh.arxiv.org/oai</request><error code="noRecordsMatch">The combination of the values of the from, until, set and metadataPrefix arguments results in an empty list.</error></OAI-PMH>
`;

/**
 * A loopback OAI-PMH endpoint serving the pages it is given (token b|k -> page k). Its records
 * are all dated 2026-11-30: a cold run's closed datestamp windows (which end before that) are
 * answered noRecordsMatch, and its last, open-ended window gets the pages.
 */
async function startOaiServer() {
  let pages = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, "http://localhost");
    const token = url.searchParams.get("resumptionToken");
    oaiRequests++;
    if (token === null && url.searchParams.get("until") !== null && url.searchParams.get("until") < "2026-11-30") {
      response.writeHead(200, { "content-type": "text/xml; charset=utf-8" });
      response.end(NO_RECORDS);
      return;
    }
    const index = token === null ? 0 : Number(token.split("|")[1]) - 1;
    const body = pages[index];
    response.writeHead(body ? 200 : 404, { "content-type": "text/xml; charset=utf-8" });
    response.end(body ?? "no such page");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/oai`,
    setPages(records) {
      pages = records.map((list, i) => page(list.map((r) => recordXml(r, "2026-11-30")), i + 1 < records.length ? `b|${i + 2}` : null, { note: NOTE }));
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
let client = 0;
async function callTool(mcpUrl, name, args) {
  const response = await fetch(mcpUrl, {
    method: "POST",
    headers: { ...HEADERS, "cf-connecting-ip": `bench-mirror-${++client}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await response.text();
  const data = text.startsWith("event:") ? text.split("\n").find((line) => line.startsWith("data: "))?.slice(6) : text;
  const message = JSON.parse(data);
  if (message.error || message.result?.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${JSON.stringify(message).slice(0, 400)}`);
  return message.result.structuredContent;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
async function status(url) {
  const body = await (await fetch(`${url}/status`)).json();
  return body.mirrors.find((mirror) => mirror.source === "arxiv");
}

/** Starts a cold run and waits for it to finish; returns the wall time and the final status. */
/** A cold run lists the datestamp windows too; a refresh (the mirror has a watermark) is one window. */
async function harvest(url, mode = "cold") {
  const before = await status(url);
  const t0 = performance.now();
  const started = await fetch(`${url}/admin/harvest?source=arxiv&mode=${mode}`, { method: "POST", headers: admin });
  if (started.status !== 202) throw new Error(`admin/harvest: HTTP ${started.status} ${await started.text()}`);
  for (;;) {
    const now = await status(url);
    if (now.status === "done" && now.started_at !== before.started_at) return { ms: performance.now() - t0, status: now };
    if (now.status === "error") throw new Error(`harvest failed: ${now.last_error}`);
    if (performance.now() - t0 > 600_000) throw new Error("harvest did not finish in 10 minutes");
    await sleep(20);
  }
}

const stackVars = (oai) => ({
  ARXIV_MIRROR_OAI_BASE_URL: oai.url,
  ARXIV_MIRROR_OAI_REQUEST_DELAY_MS: String(DELAY_MS),
  ADMIN_TOKEN_HASH: createHash("sha256").update(ADMIN_TOKEN).digest("hex"),
  // Newest-first searches are measured on the mirror itself, not sent to arXiv.
  ARXIV_MIRROR_RECENT_DAYS_LIVE: "0",
});

// ---- the 50 searches: single words, phrases, authors, booleans, category + date, newest first
const QUERIES = [
  ...["quantum", "energy", "theory", "field", "magnetic", "spin", "temperature", "phase", "lattice", "model", "state", "results"].map((q) => ({ kind: "word", args: { query: q } })),
  ...['"quantum field"', '"black hole"', '"magnetic field"', '"phase transition"', '"ground state"', '"dark matter"', '"we show that"', '"equation of state"'].map((q) => ({ kind: "phrase", args: { query: q } })),
  ...["au:Habib", "au:Smith", "au:Wang", "ti:quantum", 'ti:"black hole"', "co:figures"].map((q) => ({ kind: "field/author", args: { query: q } })),
  ...[
    "quantum AND entanglement", "energy ANDNOT quantum", "(spin OR magnetic) AND lattice", "ti:quantum AND abs:field", "galaxy OR star",
    "theory AND model AND field", "black AND hole ANDNOT galaxy", "abs:temperature AND abs:phase",
  ].map((q) => ({ kind: "boolean", args: { query: q } })),
  ...[
    { query: "cat:hep-th" },
    { query: "cat:hep-th", submitted_from: "2015-01-01", submitted_to: "2015-12-31" },
    { query: "quantum", category: "quant-ph", submitted_from: "2020-01-01", submitted_to: "2020-06-30" },
    { query: "cat:astro-ph.*" },
    { query: "cat:math.*", submitted_from: "2010-03-15", submitted_to: "2010-04-14" },
    { query: "energy", category: "physics" },
    { query: "field AND cat:hep-ph AND submittedDate:[201801010000 TO 201812312359]" },
    { query: "cat:cond-mat.*", submitted_from: "2024-01-01" },
    { query: "model", category: "cs" },
    { query: "spin ANDNOT cat:cond-mat.*" },
  ].map((args) => ({ kind: "category+date", args })),
  ...[
    { query: "quantum" },
    { query: "cat:hep-th" },
    { query: "energy", category: "astro-ph" },
    { query: '"black hole"' },
    { query: "cat:math.*", submitted_to: "2012-12-31" },
    { query: "au:Wang" },
  ].map((args) => ({ kind: "newest first", args: { ...args, sort_by: "submitted", sort_order: "descending" } })),
];

async function searchBench(mcpUrl) {
  const rows = [];
  for (const { kind, args } of QUERIES) {
    const times = [];
    let result;
    for (let i = 0; i < 6; i++) {
      const t = performance.now();
      result = await callTool(mcpUrl, "arxiv_search_papers", { max_results: 10, ...args });
      times.push(performance.now() - t);
    }
    if (result.served_from !== "mirror") throw new Error(`${JSON.stringify(args)} was not answered from the mirror: ${result.notices.join(" ")}`);
    rows.push({
      kind,
      args,
      total: result.total,
      lower_bound: result.total_is_lower_bound,
      returned: result.returned,
      first_ms: round(times[0]),
      median_ms: round(median(times.slice(1))),
      ordering: result.notices.find((n) => n.includes("newest first")) ? "newest_first" : args.sort_by ? "submitted" : "bm25/filter",
    });
  }
  const medians = rows.map((r) => r.median_ms).sort((a, b) => a - b);
  return { rows, p50_ms: percentile(medians, 50), p95_ms: percentile(medians, 95), max_ms: medians[medians.length - 1] };
}

function sizeOf(file, papers) {
  const db = new DatabaseSync(file, { readOnly: true });
  const parts = {};
  for (const row of db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY 2 DESC").all()) {
    if (row.bytes > 0.001 * papers) parts[row.name] = round(row.bytes / papers, 0);
  }
  db.close();
  const bytes = statSync(file).size;
  return { file_bytes: bytes, bytes_per_paper: round(bytes / papers, 0), per_paper_by_table: parts, projected_3_2m_gb: round((bytes / papers) * 3.2e6 / 1e9, 2) };
}

let oaiRequests = 0;
const pools = samplePools();
const records = (n, { seed, idOf }) => [...synthesize(n, { seed, pools })].map((r, i) => ({ ...r, id: idOf(r, i) }));

const report = { name: "mirror", date: new Date().toISOString(), machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version }, papers: PAPERS };
const oai = await startOaiServer();
try {
  // ---- 1. An empty mirror: ingest of a 1,000-record page, and the paced harvest of N pages.
  let stack = await startStack({ vars: stackVars(oai) });
  try {
    const ingestEmpty = [];
    for (let run = 0; run < 5; run++) {
      oai.setPages([records(1000, { seed: 100 + run, idOf: (_r, i) => `2611.${String(10000 + run * 1000 + i).padStart(5, "0")}` })]);
      const { status: s } = await harvest(stack.url);
      ingestEmpty.push(s.run.last_page_ms);
    }
    report.ingest_empty = { page_records: 1000, runs_ms: ingestEmpty, median_ms: median(ingestEmpty) };
    oai.setPages(Array.from({ length: PAGES }, (_, p) => records(1000, { seed: 200 + p, idOf: (_r, i) => `2610.${String(10000 + p * 1000 + i).padStart(5, "0")}` })));
    const before = oaiRequests;
    const run = await harvest(stack.url);
    // N counts every request the gate spaced: the pages and the cold run's empty datestamp windows.
    const requests = oaiRequests - before;
    report.harvest = { pages: PAGES, requests, records: PAGES * 1000, delay_ms: DELAY_MS, wall_ms: Math.round(run.ms), budget_ms: Math.round(1.05 * requests * DELAY_MS), ratio_to_n_times_d: round(run.ms / (requests * DELAY_MS), 3) };
  } finally {
    await stack.stop();
  }

  // ---- 2. A mirror of PAPERS synthetic papers: size, searches, refresh ingest.
  let d1File;
  const buildStarted = performance.now();
  stack = await startStack({
    vars: stackVars(oai),
    readyTimeoutMs: 300_000,
    prepareState: async (file) => {
      d1File = file;
      const db = new DatabaseSync(file);
      fillMirror(db, PAPERS, { pools });
      db.exec("UPDATE harvest_state SET status = 'done', mode = 'bench', last_datestamp = '2026-11-29', watermark = '2026-11-29', finished_at = '2026-11-30T00:00:00Z', complete_at = '2026-11-30T00:00:00Z', complete_scope = 'the benchmark mirror', last_success_at = '2026-11-30T00:00:00Z' WHERE source = 'arxiv'");
      db.close();
    },
  });
  report.build_s = round((performance.now() - buildStarted) / 1000, 1);
  // The refresh pages are drawn before the searches: generating them walks the whole synthetic
  // mirror (seconds), and a pause that long between requests lets the server drop the client's
  // kept-alive connection just as it is reused ("other side closed").
  const refreshPages = [];
  for (let run = 0; run < 5; run++) {
    const revised = [];
    let i = 0;
    for (const record of synthesize(PAPERS, { seed: 300 + run, pools })) if (i++ % Math.floor(PAPERS / 1000) === 0 && revised.length < 1000) revised.push(record);
    refreshPages.push(revised);
  }
  console.error(`bench: ${PAPERS} papers built in ${report.build_s} s; searching`);
  try {
    report.size = sizeOf(d1File, PAPERS);
    report.search = await searchBench(stack.mcpUrl);
    console.error("bench: searches done; refresh ingest");
    // Refresh: 1,000 held papers spread over the whole mirror, with new text and new categories.
    const refresh = [];
    for (const revised of refreshPages) {
      oai.setPages([revised]);
      const { status: s } = await harvest(stack.url, "refresh");
      refresh.push(s.run.last_page_ms);
    }
    // New papers into the full mirror.
    oai.setPages([records(1000, { seed: 400, idOf: (_r, i) => `2611.${String(50000 + i).padStart(5, "0")}` })]);
    const { status: added } = await harvest(stack.url, "refresh");
    report.ingest_full = { mirror_papers: PAPERS, refresh_runs_ms: refresh, refresh_median_ms: median(refresh), new_papers_ms: added.run.last_page_ms };
    const verify = await fetch(`${stack.url}/admin/harvest`, { headers: admin });
    report.status_after = (await verify.json()).mirrors.find((m) => m.source === "arxiv");
  } catch (error) {
    // Show what the Worker said before the failure.
    console.error(stack.logs().split("\n").filter((line) => !line.includes("POST /mcp 200")).slice(-60).join("\n"));
    throw error;
  } finally {
    await stack.stop();
  }
} finally {
  await oai.close();
}

const dir = path.join(ROOT, "bench/results");
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, "mirror.json"), `${JSON.stringify(report, null, 2)}\n`);
const md = [
  `# Benchmark: arXiv mirror (${PAPERS.toLocaleString("en-US")} synthetic papers)`,
  "",
  `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node} · wrangler dev, local D1`,
  "",
  `Size on disk: ${report.size.file_bytes.toLocaleString("en-US")} bytes = **${report.size.bytes_per_paper} bytes per paper** (3.2 million papers: ${report.size.projected_3_2m_gb} GB). By table (bytes per paper): ${Object.entries(report.size.per_paper_by_table).map(([k, v]) => `${k} ${v}`).join(", ")}.`,
  "",
  `Search, 50 queries, MCP tools/call end to end (count + page of 10), median of 5 warm calls each: **p50 ${report.search.p50_ms} ms, p95 ${report.search.p95_ms} ms**, max ${report.search.max_ms} ms.`,
  "",
  "| kind | arguments | total | lower bound | first ms | median ms |",
  "|---|---|---|---|---|---|",
  ...report.search.rows.map((r) => `| ${r.kind} | \`${JSON.stringify(r.args)}\` | ${r.total} | ${r.lower_bound} | ${r.first_ms} | ${r.median_ms} |`),
  "",
  `Ingest of one 1,000-record page (parse + one D1 batch, timed in the Worker): empty mirror median **${report.ingest_empty.median_ms} ms** (${report.ingest_empty.runs_ms.join(", ")}); refresh of 1,000 held papers in the ${PAPERS.toLocaleString("en-US")}-paper mirror, new text and categories, median **${report.ingest_full.refresh_median_ms} ms** (${report.ingest_full.refresh_runs_ms.join(", ")}); 1,000 new papers into it: ${report.ingest_full.new_papers_ms} ms.`,
  "",
  `Harvest of ${report.harvest.pages} pages (${report.harvest.records.toLocaleString("en-US")} records; N = ${report.harvest.requests} requests with the cold run's empty datestamp windows) at a crawl delay of ${report.harvest.delay_ms} ms: **${report.harvest.wall_ms} ms = ${report.harvest.ratio_to_n_times_d} x N x d** (budget 1.05: ${report.harvest.budget_ms} ms).`,
  "",
  `Building the synthetic mirror (Node's SQLite, same migrations and triggers) and starting wrangler dev: ${report.build_s} s.`,
  "",
].join("\n");
writeFileSync(path.join(dir, "mirror.md"), md);
console.log(md);
