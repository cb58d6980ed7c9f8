// npm run bench:rank-pages -- --db FILE --out pages.json [--compare other.json]
// The pages the mirror's search gives, for proving that a change to the ranker changes none:
// the Worker's planner and ranker (bundled by esbuild) against a mirror file under node:sqlite
// (as bench:mirror:offline), over the bench's queries, 360 pasted known items and the 1,000
// research questions: the first two pages of each (IDs in order), the method, the total. With
// --compare, the queries whose pages differ from another run's are listed (exit 1 when any). Each
// first page is also timed (a second call, the first having warmed the file's pages), p50 and
// p95 per class, to compare two versions of the ranker in one sitting.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { d1Over } from "../lib/d1-node.ts";
import { arg } from "../lib/mcp-bench.ts";
import { importWorkerCode } from "../lib/worker-code.ts";
import { ROOT } from "../lib/wrangler-env.ts";
import { samplePools } from "./arxiv-synthetic.ts";
import { knownItemSearches, knownRecords, loadResearchQuestions, questionText } from "./known-items.ts";

const FILE = arg("--db");
const OUT = arg("--out");
if (!FILE || !OUT) throw new Error("usage: rank-pages.ts --db FILE --out pages.json [--compare other.json]");
const db = d1Over(new DatabaseSync(FILE, { readOnly: true }));
const code = await importWorkerCode(path.join(ROOT, "scripts/bench/mirror-search-code.ts"));
const { QUERIES } = await import("./arxiv-mirror-queries.ts");

interface SearchArgs {
  query: string;
  category?: string;
  submitted_from?: string;
  submitted_to?: string;
  sort_by?: string;
  sort_order?: string;
}
const queries: { kind: string; args: SearchArgs }[] = [
  ...QUERIES.map((q) => ({ kind: "bench", args: q.args })),
  ...knownItemSearches(knownRecords(samplePools()), 360).map((k) => ({ kind: "known", args: { query: k.query } })),
  ...loadResearchQuestions().map((q) => ({ kind: "question", args: { query: questionText(q) } })),
];
const pages: Record<string, { method?: string; total?: number; pages: string[][] }> = {};
/** Per query class: how many queries took each path, and how often each candidate source ran (the ranker's trace). */
const paths: Record<string, Record<string, number>> = {};
/** Per query class: each first page's time (ms), measured on a second call (the first warms the file's pages). */
const times: Record<string, number[]> = {};
for (const { kind, args } of queries) {
  const planned = code.planMirrorSearch(args.query, {
    category: args.category,
    submittedFrom: args.submitted_from,
    submittedTo: args.submitted_to,
  });
  const key = `${kind} ${JSON.stringify(args)}`;
  if (!("plan" in planned)) {
    pages[key] = { pages: [] };
    continue;
  }
  const seen: string[][] = [];
  let method: string | undefined;
  let total: number | undefined;
  for (const start of [0, 10]) {
    const trace: Record<string, number> = {};
    const result = await code.searchMirror(code.oneDatabase(db), planned.plan, {
      sortBy: args.sort_by ?? "relevance",
      sortOrder: args.sort_order ?? "descending",
      start,
      limit: 10,
      trace,
    });
    if (start === 0) {
      const t = performance.now();
      await code.searchMirror(code.oneDatabase(db), planned.plan, {
        sortBy: args.sort_by ?? "relevance",
        sortOrder: args.sort_order ?? "descending",
        start,
        limit: 10,
      });
      (times[kind] ??= []).push(performance.now() - t);
      const counts = (paths[kind] ??= {});
      const route = `path ${result.kind === "answer" ? (result.method ?? "listed") : "live"}`;
      counts[route] = (counts[route] ?? 0) + 1;
      // Each source that ran: how often, and how many candidates it gave in all.
      for (const [key, n] of Object.entries(trace).filter(([name]) => name.startsWith("source_"))) {
        counts[key] = (counts[key] ?? 0) + 1;
        counts[`${key} candidates`] = (counts[`${key} candidates`] ?? 0) + n;
      }
    }
    if (result.kind !== "answer") break;
    seen.push(result.rows.map((row) => row.id));
    method ??= result.method;
    total ??= result.total;
  }
  pages[key] = { method, total, pages: seen };
}
writeFileSync(OUT, `${JSON.stringify(pages, null, 1)}\n`);
console.error(`rank-pages: ${Object.keys(pages).length} queries written to ${OUT}`);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! * 100) / 100;
};
for (const [kind, values] of Object.entries(times))
  console.error(
    `rank-pages: ${kind}: first page p50 ${percentile(values, 50)} ms, p95 ${percentile(values, 95)} ms (${values.length} queries)`,
  );
for (const [kind, counts] of Object.entries(paths))
  console.error(
    `rank-pages: ${kind}: ${Object.entries(counts)
      .map(([key, n]) => `${key.replace("source_", "")} ${n}`)
      .join(", ")}`,
  );

const other = arg("--compare");
if (other) {
  const before = JSON.parse(readFileSync(other, "utf8")) as typeof pages;
  const differ = Object.keys(pages).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(pages[key]));
  for (const key of differ.slice(0, 20)) console.error(`differs: ${key}`);
  console.error(`rank-pages: ${differ.length} of ${Object.keys(pages).length} queries differ from ${other}`);
  if (differ.length > 0) process.exitCode = 1;
}
