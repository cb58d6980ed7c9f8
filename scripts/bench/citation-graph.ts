// npm run bench:citation-graph [-- --count <n>]
// papers_citations end to end over MCP through wrangler dev against the fake OpenAlex (recorded
// pages, test/fixtures/openalex): a cached citation page (target p50 under 20 ms), and a first page
// (a free work lookup and one list call; OPENALEX_*_TTL_SECONDS=0 makes every call one) with the
// fake's own latency subtracted: each request the fake answered is replayed straight to it and its
// median time taken off. Also the share of a recorded page's works that resolve to our IDs.
// Writes bench/results/citation-graph.{json,md}.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FAKE_OPENALEX_KEY } from "../fake-upstream/router.ts";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { arg, callTool, measure, percentile, round, timed } from "../lib/mcp-bench.ts";

const count = Number(arg("--count", "200"));
const PAGES = [
  { label: "2007.14454, cited_by (3 works)", args: { id: "2007.14454" } },
  { label: "2007.14454, references (41 works)", args: { id: "2007.14454", direction: "references", limit: 50 } },
  { label: "10.1145/3383583.3398584, cited_by, newest", args: { id: "10.1145/3383583.3398584", sort: "newest" } },
];

async function hitsOf(origin: string): Promise<{ path: string }[]> {
  return (await fetch(`${origin}/_hits`)).json();
}

/** The fake's own time for a request, its median over 15 replays (straight from Node, no Worker). */
async function fakeMs(origin: string, hitPath: string): Promise<number> {
  const url = new URL(hitPath, origin);
  url.searchParams.set("api_key", FAKE_OPENALEX_KEY);
  const samples: number[] = [];
  for (let i = 0; i < 15; i++) samples.push((await timed(async () => (await fetch(url)).arrayBuffer())).ms);
  samples.sort((a, b) => a - b);
  return percentile(samples, 50);
}

async function cachedRows(url: string) {
  const rows = [];
  for (const page of PAGES) {
    rows.push(
      await measure(
        `cached page: ${page.label}`,
        count,
        () => callTool(url, "papers_citations", page.args),
        (r) => {
          if (r.works.length === 0) throw new Error(`${page.label}: no works`);
        },
      ),
    );
  }
  return rows;
}

/** First pages (TTL 0: every call asks OpenAlex), minus the fake's time for the requests each made. */
async function firstPageRows(url: string, origin: string) {
  const rows = [];
  for (const page of PAGES) {
    const samples: number[] = [];
    const net: number[] = [];
    const replay = new Map<string, number>();
    for (let i = 0; i < Math.max(20, Math.round(count / 10)); i++) {
      const before = (await hitsOf(origin)).length;
      const { ms } = await timed(() => callTool(url, "papers_citations", page.args));
      const made = (await hitsOf(origin)).slice(before).map((hit) => hit.path);
      let fake = 0;
      for (const hit of made) {
        const key = hit.replace(/api_key=[^&]*/, "");
        if (!replay.has(key)) replay.set(key, await fakeMs(origin, key));
        fake += replay.get(key)!;
      }
      if (i >= 3) {
        samples.push(ms);
        net.push(round(ms - fake));
      }
    }
    samples.sort((a, b) => a - b);
    net.sort((a, b) => a - b);
    rows.push({
      case: `first page: ${page.label}`,
      count: samples.length,
      p50_ms: round(percentile(samples, 50)),
      p95_ms: round(percentile(samples, 95)),
      p50_without_fake_ms: round(percentile(net, 50)),
      p95_without_fake_ms: round(percentile(net, 95)),
      fake_ms_per_call: round([...replay.values()].reduce((a, b) => a + b, 0)),
    });
  }
  return rows;
}

function resolutionShare(page: {
  works: { arxiv_id: string | null; nber_id: string | null; matched_by: string | null }[];
}) {
  const ours = page.works.filter((work) => work.arxiv_id || work.nber_id);
  const by: Record<string, number> = {};
  for (const work of ours) by[work.matched_by ?? "?"] = (by[work.matched_by ?? "?"] ?? 0) + 1;
  return { works: page.works.length, ours: ours.length, share: round(ours.length / page.works.length), by };
}

const cachedStack = await startStack({ waitFor: "health", seed: true });
let cached;
let resolution;
try {
  cached = await cachedRows(cachedStack.mcpUrl);
  const references = await callTool(cachedStack.mcpUrl, "papers_citations", PAGES[1]!.args);
  const citing = await callTool(cachedStack.mcpUrl, "papers_citations", PAGES[0]!.args);
  resolution = { references_of_2007_14454: resolutionShare(references), citing_2007_14454: resolutionShare(citing) };
} finally {
  await cachedStack.stop();
}
// First pages twice: with the production spacing (OPENALEX_REQUEST_DELAY_MS 100, which a call's
// lookup and list call each wait out after the previous departure) and without it (the server's own time).
const first = [];
for (const delay of ["100", "0"]) {
  const coldStack = await startStack({
    waitFor: "health",
    seed: true,
    vars: {
      OPENALEX_LIST_TTL_SECONDS: "0",
      OPENALEX_COUNTS_TTL_SECONDS: "0",
      OPENALEX_DAILY_LIST_CALLS: "1000000",
      OPENALEX_REQUEST_DELAY_MS: delay,
    },
  });
  try {
    for (const row of await firstPageRows(coldStack.mcpUrl, coldStack.fake.origin))
      first.push({ ...row, case: `${row.case} (delay ${delay} ms)` });
  } finally {
    await coldStack.stop();
  }
}

const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  mirror: "seeded: 1,128 real arXiv papers, 30,083 NBER papers",
  target: "cached page p50 < 20 ms",
  cached,
  first,
  resolution,
  cached_target_met: cached.every((row) => row.p50_ms < 20),
};
const dir = path.join(ROOT, "bench/results");
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, "citation-graph.json"), `${JSON.stringify(report, null, 2)}\n`);
const table = (rows: Record<string, unknown>[]) => {
  const keys = Object.keys(rows[0]!);
  return [
    `| ${keys.join(" | ")} |`,
    `|${keys.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${keys.map((k) => row[k]).join(" | ")} |`),
  ].join("\n");
};
const md = [
  "# papers_citations through wrangler dev (fake OpenAlex, recorded pages)",
  "",
  `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node} · ${report.mirror}`,
  "",
  `Cached pages (target p50 < 20 ms: ${report.cached_target_met ? "met" : "NOT met"}):`,
  "",
  table(cached),
  "",
  "First pages (a work lookup and a list call each, spaced by OPENALEX_REQUEST_DELAY_MS + 40 ms from the request before; 0 shows the server's own time), and without the fake's own time:",
  "",
  table(first),
  "",
  "Works of recorded pages that resolve to our IDs (arXiv or NBER), and how:",
  "",
  "```json",
  JSON.stringify(resolution, null, 2),
  "```",
  "",
].join("\n");
writeFileSync(path.join(dir, "citation-graph.md"), md);
console.log(md);
