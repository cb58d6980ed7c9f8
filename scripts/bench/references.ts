// npm run bench:references [-- --db FILE] [--limit N] [--upstream-latency-ms 30] [--crossref-pool polite|public]
// The reference set (scripts/citations/reference-set.ts) end to end over MCP through wrangler dev:
// every real reference in 15 styles, physics references without a title, works outside the mirrors
// (a fake Crossref from recorded works), the fabricated ones and the near misses sent to
// papers_resolve_reference one at a time; then 100-entry bibliographies to
// papers_check_bibliography. Reports recall, wrong matches and latency per style and source,
// and each near miss's verdict. Default: the seeded sample (1,128 arXiv, 30,083 NBER papers).
// --db FILE: a mirror file from bench:mirror:offline (1,000,000 papers with the sample's mixed
// in), with the NBER seed loaded beside it: the full-size figures.
// Writes bench/results/references[-<papers>].{json,md}.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildReferenceSet, isRightAnswer, type ReferenceCase } from "../citations/reference-set.ts";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { arg, callTool, percentile, round } from "../lib/mcp-bench.ts";
import { serveMirrorFileWithNber } from "../lib/mirror-file.ts";

const DB_FILE = arg("--db");
// The fake Crossref answers after a realistic round trip (scripts/fake-upstream/crossref.ts).
process.env.FAKE_UPSTREAM_LATENCY_MS ??= arg("--upstream-latency-ms", "30");
const LIMIT = Number(arg("--limit", "0"));
// A deployment names itself (CROSSREF_MAILTO) and is served from Crossref's polite pool, 10 requests
// a second; --crossref-pool public measures the anonymous pool's 5.
const CROSSREF_POOL = arg("--crossref-pool", "polite");
const set = buildReferenceSet();
const cases = LIMIT > 0 ? set.cases.filter((_, i) => i % Math.ceil(set.cases.length / LIMIT) === 0) : set.cases;

const latency = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? null
    : {
        n: sorted.length,
        p50_ms: round(percentile(sorted, 50)),
        p95_ms: round(percentile(sorted, 95)),
        max_ms: round(sorted.at(-1)!),
      };
};

const stack = await startStack({
  seed: !DB_FILE,
  vars: CROSSREF_POOL === "polite" ? { CROSSREF_MAILTO: "bench@papers-mcp.invalid" } : {},
  readyTimeoutMs: 300_000,
  prepareState: DB_FILE ? (file) => serveMirrorFileWithNber(DB_FILE, file) : undefined,
});
const report: Record<string, any> = {
  name: "references",
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  mirror: DB_FILE ? `${DB_FILE} (+ the NBER seed)` : "the seeded sample",
  crossref_pool: CROSSREF_POOL,
};
try {
  const url = stack.mcpUrl;
  const status = await callTool(url, "arxiv_get_metadata", { paper_ids: ["0704.0001"] });
  if (!status.papers?.length) throw new Error("the mirror does not answer");
  const hitsBefore = (await (await fetch(`${stack.fake.origin}/_hits`)).json()).length;
  // Warm-up: the isolate's first calls compile and fill caches.
  for (const c of cases.slice(0, 20))
    await callTool(url, "papers_resolve_reference", { reference: c.text }).catch(() => {});

  // Half outside the mirrors: 50 references to mirror papers, 50 to works only Crossref holds,
  // Crossref answering after FAKE_UPSTREAM_LATENCY_MS, through its crawl gate at the default spacing.
  const hitCount = async () => (await (await fetch(`${stack.fake.origin}/_hits`)).json()).length as number;
  const realCases = set.cases.filter((c) => c.kind === "real" && c.style !== "bibtex" && c.style !== "ris");
  const outsideCases = set.cases.filter(
    (c) => c.kind === "real" && c.expect.status === "match" && c.expect.source === "crossref",
  );
  const half = [...realCases.slice(0, 50), ...outsideCases.filter((_, i) => i % 3 === 1).slice(0, 50)]
    .map((c, i) => `[${i + 1}] ${c.text.replace(/\s*\n\s*/g, " ")}`)
    .join("\n");
  // First, before any single reference has filled the Crossref cache; then again, cached.
  const halfOutside = [];
  for (const pass of ["uncached", "cached"]) {
    const beforeHalf = await hitCount();
    const started = performance.now();
    const halfResult = await callTool(url, "papers_check_bibliography", { bibliography: half });
    halfOutside.push({
      ms: round(performance.now() - started),
      summary: halfResult.summary,
      format: `numbered list, 50 outside the mirrors, ${pass}`,
      upstream_requests: (await hitCount()) - beforeHalf,
    });
  }
  const outcomes: {
    c: ReferenceCase;
    ms: number;
    top: string | null;
    status: string;
    conflict: string | null;
    best: any;
  }[] = [];
  for (const c of cases) {
    const t = performance.now();
    let result: any;
    try {
      result = await callTool(url, "papers_resolve_reference", { reference: c.text });
    } catch (error) {
      result = { status: `error: ${String(error).slice(0, 200)}`, matches: [], near_misses: [] };
    }
    const ms = performance.now() - t;
    const top = result.matches[0] ? `${result.matches[0].source}:${result.matches[0].id}` : null;
    outcomes.push({
      c,
      ms,
      top,
      status: result.status,
      conflict: result.conflict ?? null,
      best: result.matches[0] ?? result.near_misses?.[0] ?? null,
    });
  }

  // Recall and wrong answers per kind, style and source.
  const groups = new Map<string, { n: number; found: number; wrong: number; ms: number[] }>();
  const misses: any[] = [];
  for (const o of outcomes) {
    const source = o.c.expect.status === "match" ? o.c.expect.source : "none";
    const key = `${o.c.kind}\t${o.c.style}\t${source}`;
    const g = groups.get(key) ?? { n: 0, found: 0, wrong: 0, ms: [] };
    g.n++;
    g.ms.push(o.ms);
    const want = o.c.expect.status === "match" ? `${o.c.expect.source}:${o.c.expect.id}` : null;
    if (isRightAnswer(o.c, o.top)) g.found++;
    else
      misses.push({
        kind: o.c.kind,
        style: o.c.style,
        near: o.c.near,
        want,
        got: o.top,
        status: o.status,
        text: o.c.text.slice(0, 300),
        best: o.best,
      });
    if (o.top !== null && !isRightAnswer(o.c, o.top)) g.wrong++;
    groups.set(key, g);
  }
  const rows = [...groups.entries()].map(([key, g]) => {
    const [kind, style, source] = key.split("\t");
    return {
      kind,
      style,
      source,
      n: g.n,
      right: g.found,
      rate: round(g.found / g.n),
      wrong: g.wrong,
      ...latency(g.ms),
    };
  });
  const real = outcomes.filter((o) => o.c.kind === "real");
  const realFound = real.filter((o) => o.c.expect.status === "match" && isRightAnswer(o.c, o.top)).length;
  const near = new Map<string, { n: number; verdicts: Record<string, number>; conflicts: number }>();
  for (const o of outcomes.filter((x) => x.c.kind === "near")) {
    const g = near.get(o.c.near!.change) ?? { n: 0, verdicts: {}, conflicts: 0 };
    g.n++;
    const verdict =
      o.top === null
        ? "no_match"
        : o.top === o.c.near!.from
          ? "match (the paper it was made from)"
          : `match (${o.top})`;
    g.verdicts[verdict] = (g.verdicts[verdict] ?? 0) + 1;
    if (o.conflict) g.conflicts++;
    near.set(o.c.near!.change, g);
  }
  report.resolve = {
    cases: outcomes.length,
    real: { n: real.length, found: realFound, recall: round(realFound / real.length) },
    wrong_matches: outcomes.filter((o) => o.top !== null && !isRightAnswer(o.c, o.top)).length,
    fabricated: {
      n: outcomes.filter((o) => o.c.kind === "fabricated").length,
      matched: outcomes.filter((o) => o.c.kind === "fabricated" && o.top !== null).length,
    },
    latency: latency(outcomes.map((o) => o.ms)),
    latency_real: latency(real.map((o) => o.ms)),
    // The target's figure: a reference the mirrors hold (no Crossref round trip in it), clean and noisy.
    latency_mirror_held: latency(
      real.filter((o) => o.c.expect.status === "match" && o.c.expect.source !== "crossref").map((o) => o.ms),
    ),
    latency_mirror_held_clean: latency(
      real
        .filter(
          (o) =>
            o.c.expect.status === "match" &&
            o.c.expect.source !== "crossref" &&
            !String(o.c.style).startsWith("noise-"),
        )
        .map((o) => o.ms),
    ),
    latency_fabricated: latency(outcomes.filter((o) => o.c.kind === "fabricated").map((o) => o.ms)),
    by_style: rows,
    near_misses: Object.fromEntries(near),
    misses: misses.slice(0, 50),
  };

  // Whole bibliographies: 100 real references a call, in turns of the styles, as a numbered list.
  const bibliographies = [0, 1, 2].map((k) =>
    realCases
      .filter((_, i) => i % 3 === k)
      .slice(0, 100)
      .map((c, i) => `[${i + 1}] ${c.text.replace(/\s*\n\s*/g, " ")}`)
      .join("\n"),
  );
  const checks = [];
  for (const bibliography of bibliographies) {
    const before = await hitCount();
    const t = performance.now();
    const result = await callTool(url, "papers_check_bibliography", { bibliography });
    checks.push({
      ms: round(performance.now() - t),
      summary: result.summary,
      upstream_requests: (await hitCount()) - before,
    });
  }
  const bibtex = set.cases
    .filter((c) => c.style === "bibtex" && c.kind === "real")
    .slice(0, 100)
    .map((c) => c.text)
    .join("\n\n");
  let t = performance.now();
  const bibResult = await callTool(url, "papers_check_bibliography", { bibliography: bibtex });
  checks.push({ ms: round(performance.now() - t), summary: bibResult.summary, format: "bibtex" });
  // A list with 30 fabricated entries among 70 real ones: the fabricated take every walk.
  const fabricated = set.cases.filter((c) => c.kind === "fabricated" && c.style !== "bibtex" && c.style !== "ris");
  const mixed = [...realCases.slice(0, 70), ...fabricated.slice(0, 30)]
    .map((c, i) => `[${i + 1}] ${c.text.replace(/\s*\n\s*/g, " ")}`)
    .join("\n");
  t = performance.now();
  const mixedResult = await callTool(url, "papers_check_bibliography", { bibliography: mixed });
  checks.push({
    ms: round(performance.now() - t),
    summary: mixedResult.summary,
    format: "numbered list, 30 fabricated",
  });
  report.check_bibliography = [...checks, ...halfOutside];
  // The floor of a call on this machine in this run: a tool that reads nothing.
  const floor: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    await callTool(url, "arxiv_list_categories", { group: "econ" });
    floor.push(performance.now() - t0);
  }
  report.floor_list_categories = latency(floor);
  const hits = ((await (await fetch(`${stack.fake.origin}/_hits`)).json()) as { path: string }[]).slice(hitsBefore);
  report.upstream_requests = hits.length;
  report.upstream_requests_by_upstream = Object.fromEntries(
    [...new Set(hits.map((hit) => hit.path.split("/")[1]))].map((prefix) => [
      prefix,
      hits.filter((hit) => hit.path.split("/")[1] === prefix).length,
    ]),
  );
} finally {
  await stack.stop();
}

const suffix = DB_FILE ? `-${path.basename(DB_FILE).replace(/\D+/g, "") || "db"}` : "";
mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
writeFileSync(path.join(ROOT, `bench/results/references${suffix}.json`), `${JSON.stringify(report, null, 2)}\n`);
const r = report.resolve;
const md = [
  `# References resolved (${report.date.slice(0, 10)}, ${report.mirror})`,
  "",
  `${r.cases} references through papers_resolve_reference over MCP (wrangler dev): real ${r.real.found}/${r.real.n} found (recall ${r.real.recall}), ${r.wrong_matches} wrong matches, ${r.fabricated.matched}/${r.fabricated.n} fabricated matched.`,
  `Latency: all p50 ${r.latency.p50_ms} ms, p95 ${r.latency.p95_ms}, max ${r.latency.max_ms}; real p50 ${r.latency_real.p50_ms}, p95 ${r.latency_real.p95_ms}; held by the mirrors p50 ${r.latency_mirror_held.p50_ms}, p95 ${r.latency_mirror_held.p95_ms} (without the noisy titles p50 ${r.latency_mirror_held_clean.p50_ms}, p95 ${r.latency_mirror_held_clean.p95_ms}); fabricated p50 ${r.latency_fabricated.p50_ms}, p95 ${r.latency_fabricated.p95_ms}. The floor in the same run (arxiv_list_categories, 100 calls): p50 ${report.floor_list_categories.p50_ms} ms.`,
  "",
  "| kind | style | source | n | right | rate | wrong | p50 ms | p95 ms |",
  "|---|---|---|---|---|---|---|---|---|",
  ...r.by_style.map(
    (row) =>
      `| ${row.kind} | ${row.style} | ${row.source} | ${row.n} | ${row.right} | ${row.rate} | ${row.wrong} | ${row.p50_ms} | ${row.p95_ms} |`,
  ),
  "",
  "## Near misses (a real paper with one thing changed; the right answer is no_match)",
  "",
  "| change | n | verdicts | conflict reported |",
  "|---|---|---|---|",
  ...Object.entries(r.near_misses).map(
    ([change, g]: [string, any]) =>
      `| ${change} | ${g.n} | ${Object.entries(g.verdicts)
        .map(([v, k]) => `${v}: ${k}`)
        .join(", ")} | ${g.conflicts} |`,
  ),
  "",
  "## papers_check_bibliography",
  "",
  ...report.check_bibliography.map(
    (c) =>
      `- ${c.format ?? "numbered list"}, ${c.summary.entries} entries: ${c.ms} ms; ${c.summary.verified} verified, ${c.summary.differs} differs, ${c.summary.not_found} not_found, ${c.summary.unchecked} unchecked, ${c.summary.unreadable} unreadable; upstream requests ${c.upstream_requests ?? "-"}`,
  ),
  "",
  `Upstream requests during the run: ${report.upstream_requests} (${JSON.stringify(report.upstream_requests_by_upstream)}); Crossref answered after ${process.env.FAKE_UPSTREAM_LATENCY_MS} ms each, from its ${CROSSREF_POOL} pool (gate spacing ${CROSSREF_POOL === "polite" ? 100 : 200} ms).`,
  "",
].join("\n");
writeFileSync(path.join(ROOT, `bench/results/references${suffix}.md`), md);
console.log(md);
