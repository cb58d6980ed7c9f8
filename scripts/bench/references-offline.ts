// npm run bench:references:offline -- --db FILE
// The reference set through the Worker's own resolver (bundled by esbuild) on a mirror file under
// node:sqlite, with no MCP, HTTP or wrangler around it: how the resolver's techniques were chosen
// (docs/citations.md), in seconds instead of minutes. FILE is a mirror file with the NBER seed
// loaded (bench:references loads it into its copy); it is opened read-write only to mark the
// mirror complete. Prints recall and wrong matches per kind and style, latency, and the misses.
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { buildReferenceSet } from "../citations/reference-set.ts";
import { ROOT } from "../lib/dev-server.ts";
import { d1Over } from "../lib/d1-node.ts";
import { arg, percentile, round } from "../lib/mcp-bench.ts";
import { markMirrorComplete } from "../lib/mirror-file.ts";
import { importWorkerCode } from "../lib/worker-code.ts";

const FILE = arg("--db");
if (!FILE) throw new Error("usage: npm run bench:references:offline -- --db FILE");
const { referenceInput, resolveReference, loadConfig } = await importWorkerCode(
  path.join(ROOT, "scripts/citations/resolver-code.ts"),
);
const sqlite = new DatabaseSync(FILE);
markMirrorComplete(sqlite);
const d1 = d1Over(sqlite) as D1Database & { withSession: () => D1Database };
d1.withSession = () => d1;
// The mirrors only: no Crossref or OpenAlex here (no gate, no network; bench:references fakes them).
const config = loadConfig({ CROSSREF_ENABLED: "false", OPENALEX_RESOLVE_ENABLED: "false" });
const ctx = { env: { DB: d1 }, config, waitUntil: () => {}, log: () => {} };

const groups = new Map<string, { n: number; right: number; wrong: number }>();
const times: number[] = [];
const misses: string[] = [];
const mirrorCases = buildReferenceSet().cases.filter(
  (c) => c.expect.status !== "match" || c.expect.source !== "crossref",
);
for (const c of mirrorCases) {
  const started = performance.now();
  let top: string | null = null;
  try {
    const result = await resolveReference(ctx, referenceInput({ reference: c.text }));
    top = result.matches[0] ? `${result.matches[0].source}:${result.matches[0].id}` : null;
  } catch (error) {
    top = `error: ${String(error).slice(0, 80)}`;
  }
  times.push(performance.now() - started);
  const want = c.expect.status === "match" ? `${c.expect.source}:${c.expect.id}` : null;
  const group = groups.get(`${c.kind} ${c.style}`) ?? { n: 0, right: 0, wrong: 0 };
  group.n++;
  if (top === want) group.right++;
  else misses.push(`${c.kind} ${c.style}: got ${top}, want ${want}: ${c.text.slice(0, 120).replace(/\s+/g, " ")}`);
  if (top !== null && top !== want) group.wrong++;
  groups.set(`${c.kind} ${c.style}`, group);
}
for (const [key, g] of [...groups].sort()) console.log(`${key.padEnd(26)} ${g.right}/${g.n} right, ${g.wrong} wrong`);
const sorted = times.sort((a, b) => a - b);
console.log(
  `latency p50 ${round(percentile(sorted, 50))} ms, p95 ${round(percentile(sorted, 95))} ms, max ${round(sorted.at(-1)!)} ms`,
);
console.log(misses.length === 0 ? "no misses" : `${misses.length} misses:\n${misses.join("\n")}`);
