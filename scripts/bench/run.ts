// npm run bench [-- --name <name>] [-- --count <n>]
// Starts the stack (fake upstream + wrangler dev, as a user's `npm start` would run it) and
// measures MCP end-to-end latency over loopback. Writes bench/results/<name>.json and .md.
// Later capabilities add their cases to CASES.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import os from "node:os";
import path from "node:path";
import { ROOT, startStack, startWorker, workerdPeakRss } from "../lib/dev-server.ts";
import { makeTextPdf } from "../../test/support/pdf.ts";
import { answerOf, MCP_HEADERS, mcpMessage } from "../lib/mcp-bench.ts";

const arg = (flag, fallback) => {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const name = arg("--name", "foundation");
const count = Number(arg("--count", "1000"));
const warmup = 100;

const HEADERS = MCP_HEADERS;

// The benchmark measures the server, not its per-client limiter: each request claims its own
// client address (wrangler dev passes the header through; Cloudflare's edge would set it).
let clientNumber = 0;
const clientHeader = () => ({ "cf-connecting-ip": `bench-${++clientNumber}` });

async function rpc(mcpUrl: string, method: string, params?: unknown) {
  const response = await fetch(mcpUrl, {
    method: "POST",
    headers: { ...HEADERS, ...clientHeader() },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method}: HTTP ${response.status} ${text.slice(0, 200)}`);
  const message = mcpMessage(text);
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

/** Micro-benchmarks of pure functions, bundled from src/ with esbuild and run in this Node. */
async function microBenchmarks() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-bench-"));
  try {
    const outfile = path.join(dir, "atom.mjs");
    await build({
      entryPoints: [path.join(ROOT, "src/sources/arxiv/atom.ts")],
      bundle: true,
      format: "esm",
      platform: "node",
      outfile,
      logLevel: "error",
    });
    const { parseAtomFeed } = await import(outfile);
    const xml = readFileSync(
      path.join(ROOT, "test/fixtures/arxiv-api/v2026/search_all-testing_start0_max100.xml"),
      "utf8",
    );
    const runs = 200;
    for (let i = 0; i < 20; i++) parseAtomFeed(xml);
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      const feed = parseAtomFeed(xml);
      samples.push(performance.now() - t);
      if (feed.papers.length !== 100) throw new Error("expected 100 entries");
    }
    samples.sort((a, b) => a - b);
    const round = (x) => Math.round(x * 100) / 100;
    return [
      {
        case: `parseAtomFeed, 100-entry recorded page (${Math.round(xml.length / 1024)} KB)`,
        count: runs,
        p50_ms: round(percentile(samples, 50)),
        p95_ms: round(percentile(samples, 95)),
        max_ms: round(samples.at(-1)),
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * HTML and PDF extraction inside workerd (the bench-only Worker). Each case gets a fresh
 * wrangler dev, so workerd's peak RSS (VmHWM) growth over its idle baseline is that case's own.
 */
async function extractionBenchmarks() {
  const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
  const round = (x) => Math.round(x * 10) / 10;
  const html = readFileSync(path.join(ROOT, "test/fixtures/html/arxiv-html_2501.11120v1.html"));
  const big = makeTextPdf(500);
  const pdf = (name) => readFileSync(path.join(ROOT, "test/fixtures/pdf", name));
  const cases: [string, string, Uint8Array, number, string][] = [
    ["HTML -> text, arxiv.org/html/2501.11120v1", "html", html, 11, ""],
    ...[
      "arxiv_1512.03905v1.pdf",
      "arxiv_1704.01689v1.pdf",
      "arxiv_1905.00506v2.pdf",
      "arxiv_cs_9912018v1.pdf",
      "arxiv_hep-th_9108004v1.pdf",
    ].map((name): [string, string, Uint8Array, number, string] => [`PDF -> text, ${name}`, "pdf", pdf(name), 5, ""]),
    ["PDF -> text, generated 500 pages (default page budget 300)", "pdf", big, 3, ""],
    ["PDF -> text, generated 500 pages (all 500 pages)", "pdf", big, 3, "?max_pages=500"],
  ];
  const rows = [];
  for (const [label, route, body, runs, query] of cases) {
    const worker = await startWorker(path.join(ROOT, "scripts/bench/extract-worker/wrangler.toml"));
    try {
      await fetch(`${worker.url}/ping`);
      const baseline = workerdPeakRss(worker.pid);
      const times = [];
      let result;
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        const response = await fetch(`${worker.url}/${route}${query}`, {
          method: "POST",
          body: body as Uint8Array<ArrayBuffer>,
        });
        if (!response.ok) throw new Error(`${label}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
        result = await response.json();
        times.push(performance.now() - t);
      }
      const warm = times.slice(1).sort((a, b) => a - b);
      rows.push({
        case: label,
        input_kb: Math.round(body.byteLength / 1024),
        first_ms: round(times[0]),
        warm_p50_ms: round(percentile(warm, 50)),
        chars: result.chars,
        extraction_truncated: result.truncated,
        workerd_idle_rss_mb: mb(baseline),
        workerd_peak_growth_mb: mb(workerdPeakRss(worker.pid) - baseline),
      });
    } finally {
      await worker.stop();
    }
  }
  return rows;
}

/**
 * The NBER mirror's search queries timed by D1 itself (meta.duration, ms), on the seeded local
 * database: the count and the first page, as nber_search_papers runs them.
 */
async function nberMirrorD1(stateDir) {
  const { execFileSync } = await import("node:child_process");
  const wrangler = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
  const env = {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    XDG_CONFIG_HOME: path.join(stateDir, "config"),
  };
  const queries = [
    '"monetary" "policy"',
    '"minimum" "wage" "employment"',
    '"card"',
    '"trade"',
    '"health" "insurance"',
    '"economic"',
  ];
  const rows = [];
  for (const match of queries) {
    const from = "FROM nber_papers_fts JOIN nber_papers p ON p.rowid = nber_papers_fts.rowid";
    const where = `nber_papers_fts MATCH '${match.replaceAll("'", "''")}' AND p.date <= '2020-12-31'`;
    const command = `SELECT count(*) AS n ${from} WHERE ${where}; SELECT p.* ${from} WHERE ${where} ORDER BY bm25(nber_papers_fts, 10.0, 5.0, 1.0), p.date DESC LIMIT 20`;
    const runs = [];
    let hits = 0;
    for (let i = 0; i < 3; i++) {
      const out = JSON.parse(
        execFileSync(
          process.execPath,
          [
            wrangler,
            "d1",
            "execute",
            "DB",
            "--local",
            "--persist-to",
            path.join(stateDir, "state"),
            "--json",
            "--command",
            command,
          ],
          { cwd: ROOT, env, encoding: "utf8" },
        ),
      );
      runs.push(out.reduce((sum, result) => sum + (result.meta?.duration ?? 0), 0));
      hits = out[0].results[0].n;
    }
    runs.sort((a, b) => a - b);
    rows.push({ query: match, hits, d1_ms_median_of_3: runs[1] });
  }
  return rows;
}

/** PDF extraction memory in Node under a 128 MB heap cap (workerd does not report isolate memory). */
/** A generated PDF written to `dir` (the child reads it as one buffer, as a Worker holds a fetched body). */
function generated(dir, pages, totalMb = 0) {
  const file = path.join(dir, `generated-${pages}-${totalMb}.pdf`);
  // Just under the cap: the figures fill what the text leaves of totalMb.
  const imageBytes = totalMb > 0 ? totalMb * 1_000_000 - pages * 5_000 : 0;
  writeFileSync(file, makeTextPdf(pages, 45, undefined, { imageBytes }));
  return file;
}

async function pdfMemoryBenchmarks() {
  const { execFileSync } = await import("node:child_process");
  const dir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-bench-"));
  try {
    const bundle = path.join(dir, "pdf.mjs");
    await build({
      entryPoints: [path.join(ROOT, "src/sources/text/pdf.ts")],
      bundle: true,
      format: "esm",
      platform: "node",
      outfile: bundle,
      logLevel: "error",
    });
    const cases = [
      ...["arxiv_1512.03905v1.pdf", "arxiv_1905.00506v2.pdf", "arxiv_cs_9912018v1.pdf"].map((name) => [
        name,
        path.join(ROOT, "test/fixtures/pdf", name),
        300,
      ]),
      ["generated 500 pages, page budget 300 (default)", generated(dir, 500), 300],
      ["generated 500 pages, all pages", generated(dir, 500), 500],
      // The largest PDF a read accepts (ARXIV_READ_MAX_PDF_BYTES, NBER_MAX_PDF_BYTES: 40 MB): text plus figures.
      ["generated 300 pages + figures, 40 MB (the cap)", generated(dir, 300, 40), 300],
      ["generated 500 pages + figures, 40 MB (the cap), page budget 300", generated(dir, 500, 40), 300],
    ];
    // Peaks include garbage V8 has not collected yet, so they vary run to run: the worst of three is reported.
    const runOnce = (source, maxPages) =>
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            "--max-old-space-size=128",
            "--expose-gc",
            path.join(ROOT, "scripts/bench/pdf-memory.ts"),
            bundle,
            source,
            String(maxPages),
          ],
          { encoding: "utf8" },
        )
          .trim()
          .split("\n")
          .at(-1),
      );
    return cases.map(([label, source, maxPages]) => {
      const runs = [0, 1, 2].map(() => runOnce(source, maxPages));
      const worst = runs.reduce((a, b) => (b.peak_mb > a.peak_mb ? b : a));
      return { case: label, max_pages: maxPages, runs: runs.length, ...worst };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CASES: [string, (url: string) => Promise<unknown>][] = [
  // The floor: wrangler dev's proxy + Hono's 404, no MCP. Read the MCP rows as a ratio to it.
  ["HTTP floor: GET /unknown (404, no MCP)", async (url) => (await fetch(url.replace(/\/mcp$/, "/unknown"))).text()],
  ["tools/list", (url) => rpc(url, "tools/list")],
  [
    "tools/call arxiv_list_categories (all 155)",
    (url) => rpc(url, "tools/call", { name: "arxiv_list_categories", arguments: {} }),
  ],
  [
    "tools/call arxiv_list_categories (group=cs)",
    (url) => rpc(url, "tools/call", { name: "arxiv_list_categories", arguments: { group: "cs" } }),
  ],
  // Served from the seeded arXiv mirror (1,128 papers); the mirror benchmark measures it at 1,000,000.
  [
    "tools/call arxiv_search_papers (mirror, 1,128 papers, 10 results)",
    (url) => rpc(url, "tools/call", { name: "arxiv_search_papers", arguments: { query: "testing" } }),
  ],
  // Served from the D1 cache: the first (uncounted warm-up) call fetches from the fake upstream.
  [
    "tools/call arxiv_search_papers (cache hit, 10 papers)",
    (url) =>
      rpc(url, "tools/call", { name: "arxiv_search_papers", arguments: { query: "testing", sort_by: "submitted" } }),
  ],
  [
    "tools/call arxiv_get_metadata (cache hit, 1 paper)",
    (url) => rpc(url, "tools/call", { name: "arxiv_get_metadata", arguments: { paper_ids: ["1605.08386"] } }),
  ],
  [
    "tools/call arxiv_read_paper (R2 cache hit, page 2 of 2501.11120v1)",
    (url) =>
      rpc(url, "tools/call", { name: "arxiv_read_paper", arguments: { paper_id: "2501.11120v1", start: 40000 } }),
  ],
  [
    "tools/call nber_search_papers (mirror, 30,083 papers, FTS5)",
    (url) =>
      rpc(url, "tools/call", {
        name: "nber_search_papers",
        arguments: { query: "monetary policy", end_date: "2020-12-31" },
      }),
  ],
  [
    "tools/call nber_get_paper_info (cache hit)",
    (url) => rpc(url, "tools/call", { name: "nber_get_paper_info", arguments: { paper_id: "w10000" } }),
  ],
];

const stack = await startStack({ waitFor: "ready", seed: true });
try {
  // The first request after start, sent the moment wrangler dev reports "Ready on": it pays for
  // whatever start-up is left in the Worker (first McpServer, first schema conversion, lazy imports).
  const t = performance.now();
  await rpc(stack.mcpUrl, "tools/call", { name: "arxiv_list_categories", arguments: {} });
  const startup: Record<string, number> = {
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
  const micro = await microBenchmarks();

  // Token cost of a default read page (characters / 4, the usual estimate).
  const firstPage = await rpc(stack.mcpUrl, "tools/call", {
    name: "arxiv_read_paper",
    arguments: { paper_id: "2501.11120v1" },
  });
  const pageResult = firstPage.message.result;
  const tokens = {
    default_page_text_chars: answerOf(pageResult).text.length,
    default_page_text_tokens: Math.round(answerOf(pageResult).text.length / 4),
    first_page_content_text_tokens: Math.round(pageResult.content.map((item) => item.text ?? "").join("").length / 4),
    first_page_response_bytes: firstPage.bytes,
  };
  // An NBER PDF served from R2 by /files (stored once by nber_download_paper from the fake upstream).
  await rpc(stack.mcpUrl, "tools/call", { name: "nber_download_paper", arguments: { paper_id: "w10000" } });
  const downloads = 200;
  let bytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < downloads; i++)
    bytes += (await (await fetch(`${stack.url}/files/nber/w10000.pdf`, { headers: clientHeader() })).arrayBuffer())
      .byteLength;
  const seconds = (performance.now() - t0) / 1000;
  const files = {
    downloads,
    file_kb: Math.round(bytes / downloads / 1024),
    mb_per_s: Math.round((bytes / 1048576 / seconds) * 10) / 10,
    per_download_ms: Math.round((seconds * 1000 * 100) / downloads) / 100,
  };
  const nberD1 = await nberMirrorD1(stack.stateDir);
  const extraction = await extractionBenchmarks();
  const pdfMemory = await pdfMemoryBenchmarks();

  const report = {
    name,
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
      node: process.version,
      platform: `${os.platform()} ${os.arch()}`,
    },
    transport: "Streamable HTTP over loopback to wrangler dev (protocol 2025-11-25, stateless)",
    startup,
    size,
    latency,
    micro,
    extraction,
    pdf_memory: pdfMemory,
    files,
    nber_mirror_d1: nberD1,
    tokens,
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
    ...latency.map(
      (r) =>
        `| ${r.case} | ${r.count} | ${r.p50_ms} | ${r.p95_ms} | ${r.p99_ms} | ${r.mean_ms} | ${r.requests_per_s} |`,
    ),
    "",
    "| in-process (Node) | n | p50 ms | p95 ms | max ms |",
    "|---|---|---|---|---|",
    ...micro.map((r) => `| ${r.case} | ${r.count} | ${r.p50_ms} | ${r.p95_ms} | ${r.max_ms} |`),
    "",
    "| extraction in workerd (HTTP round trip included) | input KB | first ms | warm p50 ms | characters | truncated | workerd idle RSS MB | peak RSS growth MB |",
    "|---|---|---|---|---|---|---|---|",
    ...extraction.map(
      (r) =>
        `| ${r.case} | ${r.input_kb} | ${r.first_ms} | ${r.warm_p50_ms} | ${r.chars} | ${r.extraction_truncated} | ${r.workerd_idle_rss_mb} | ${r.workerd_peak_growth_mb} |`,
    ),
    "",
    "| PDF extraction memory (Node, 128 MB heap cap; worst of 3 runs) | PDF MB | ms | characters | heap+buffers baseline MB | peak MB | growth MB |",
    "|---|---|---|---|---|---|---|",
    ...pdfMemory.map(
      (r) => `| ${r.case} | ${r.pdf_mb} | ${r.ms} | ${r.chars} | ${r.baseline_mb} | ${r.peak_mb} | ${r.growth_mb} |`,
    ),
    "",
    "| NBER mirror query in D1 (30,083 papers; count + first page of 20) | hits | D1 ms (median of 3) |",
    "|---|---|---|",
    ...nberD1.map((r) => `| ${r.query} | ${r.hits} | ${r.d1_ms_median_of_3} |`),
    "",
    `NBER PDF served from R2 by /files: ${files.downloads} sequential downloads of ${files.file_kb} KB, ${files.mb_per_s} MB/s (${files.per_download_ms} ms each).`,
    "",
    `Default arxiv_read_paper page: ${tokens.default_page_text_chars} characters of text = ${tokens.default_page_text_tokens} tokens (characters / 4); the first page's whole text content (with outline) = ${tokens.first_page_content_text_tokens} tokens; ${tokens.first_page_response_bytes} bytes on the wire (the text once, in content).`,
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
