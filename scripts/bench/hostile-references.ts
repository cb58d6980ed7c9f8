// npm run bench:hostile [-- --before REV] [--after REV] [--runs 5] [--no-check]
// The journal-reference parser on the worst inputs we know, in Node, before and after it read each
// core's journal from a bounded window (--before: default the commit before that change; --after:
// default this working tree). The cases:
// - the hostile list: 48 numbered entries, each a long run of `J. 1 1` (236 kB; issue 58);
// - one 5,000-character reference of journal-like tokens, with one core at its end;
// - one 5,000-character reference of journal references back to back (each a new one);
// - runs of digits and dots (5,000 characters each);
// - 200 numbered entries of `Phys. Rev. D 1 1 (1) ` runs (the tool's 250,000-character cap).
// For each: parseJournalRefs per entry (the slowest entry and the total, median of the runs), and
// the bibliography's whole reading: readBibliography, then each entry parsed as the resolver does
// (twice per entry before the change: the resolver and withOtherVersions; once after). With the
// check, the hostile list through the bibliography check's own code offline (checkBibliography,
// fake upstreams answering nothing) at REV and here. Target: the hostile list's parsing well under
// 1 s. Also says whether both parsers give the same answers. Writes bench/results/hostile-references.{json,md}.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { JournalRef } from "../../src/search/journal-ref.ts";
import { arg, round } from "../lib/mcp-bench.ts";
import { importWorkerCode } from "../lib/worker-code.ts";
import { ROOT } from "../lib/wrangler-env.ts";

type Parse = (text: string) => JournalRef[];
const RUNS = Number(arg("--runs", "5"));
const CHECK = !process.argv.includes("--no-check");

const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
/** The commit before the bounded window: the parent of the one that brought JOURNAL_WINDOW in. */
const introduced = git("log", "--reverse", "--format=%H", "-S", "JOURNAL_WINDOW", "--", "src/search/journal-ref.ts");
const BEFORE = arg("--before") ?? `${introduced.split("\n")[0]}~1`;
const beforeCommit = git("rev-parse", "--short", BEFORE);
const AFTER = arg("--after");
const afterCommit = AFTER
  ? git("rev-parse", "--short", AFTER)
  : `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "--", "src").length > 0 ? " with uncommitted changes" : ""}`;

/** The code at REV in a directory of its own (the node_modules here), so that both versions run side by side. */
function treeAt(rev: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-hostile-"));
  const paths = ["src", "scripts", "test/support", "migrations"];
  const archive = execFileSync("git", ["archive", "--format=tar", rev, ...paths], { cwd: ROOT, maxBuffer: 1 << 30 });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

const numbered = (entries: string[]) => entries.map((entry, i) => `${i + 1}. ${entry}`).join("\n");
const upTo = (unit: (i: number) => string, chars: number) => {
  let text = "";
  for (let i = 1; text.length + unit(i).length <= chars; i++) text += unit(i);
  return text.trim();
};
const hostileList = numbered(Array.from({ length: 48 }, () => "J. 1 1 ".repeat(700).trim()));
const CASES: { name: string; bibliography: string }[] = [
  {
    name: `the hostile list: 48 entries of "J. 1 1" runs (${Math.round(hostileList.length / 1000)} kB)`,
    bibliography: hostileList,
  },
  {
    name: "one 5,000-character reference of journal-like tokens, one core at its end",
    bibliography: `${upTo(() => "Phys. Rev. Lett. J. Phys. A Nucl. Phys. B Astrophys. J. ", 4_980)} 76, 013009 (2007)`,
  },
  {
    name: "one 5,000-character reference of journal references back to back",
    bibliography: upTo((i) => `Phys. Rev. D ${i}, ${1000 + i} (2007); `, 5_000),
  },
  { name: 'digits and dots: "1.1.1." (5,000 characters)', bibliography: upTo(() => "1.", 5_000) },
  { name: 'digits and dots: "1. 2. 3:4, " (5,000 characters)', bibliography: upTo(() => "1. 2. 3:4, ", 5_000) },
  {
    name: '200 entries of "Phys. Rev. D 1 1 (1) " runs',
    bibliography: numbered(Array.from({ length: 200 }, () => upTo(() => "Phys. Rev. D 1 1 (1) ", 1_235))),
  },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** Each measurement repeats its pass until this long has gone by: a 1 ms case is not one timer tick. */
const PASS_MS = 300;

/** Passes over `work` for at least PASS_MS: the mean pass (ms) and the mean time of each step of it. */
function passes(steps: number, work: (step: number) => void): { pass: number; steps: number[] } {
  const per = new Array<number>(steps).fill(0);
  let count = 0;
  const started = performance.now();
  do {
    for (let i = 0; i < steps; i++) {
      const at = performance.now();
      work(i);
      per[i]! += performance.now() - at;
    }
    count++;
  } while (performance.now() - started < PASS_MS);
  return { pass: (performance.now() - started) / count, steps: per.map((ms) => ms / count) };
}

interface Timing {
  parse: { total_ms: number; slowest_entry_ms: number };
  reading_ms: number;
}

/**
 * Before and after, run after run in turn (the machine's noise falls on both alike), the median of
 * RUNS: each entry parsed once (total, slowest entry); readBibliography then each entry's parse as
 * the resolver made it (`times` per entry).
 */
function timeBoth(text: string, entries: string[], versions: { parse: Parse; times: number }[]): Timing[] {
  const runs = versions.map(() => ({ totals: [] as number[], slowest: [] as number[], reading: [] as number[] }));
  for (let run = 0; run < RUNS; run++) {
    versions.forEach(({ parse, times }, v) => {
      const parsed = passes(entries.length, (i) => parse(entries[i]!));
      runs[v]!.totals.push(parsed.pass);
      runs[v]!.slowest.push(Math.max(...parsed.steps));
      const reading = passes(1, () => {
        for (const entry of readBibliography(text)) for (let t = 0; t < times; t++) parse(entry.text);
      });
      runs[v]!.reading.push(reading.pass);
    });
  }
  return runs.map((r) => ({
    parse: { total_ms: round(median(r.totals)), slowest_entry_ms: round(median(r.slowest)) },
    reading_ms: round(median(r.reading)),
  }));
}

/** The hostile list through checkBibliography's own code in `dir`, upstreams answering nothing (ms, one run: a call). */
async function timeCheck(dir: string): Promise<number | string> {
  const json = (body: unknown) =>
    new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  const nothing = (async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes("/crossref")) return json({ status: "ok", message: { items: [], "total-results": 0 } });
    if (url.includes("/openalex")) return json({ results: [], meta: { count: 0 } });
    return new Response("not found", { status: 404 });
  }) as typeof fetch;
  try {
    const { offlineChecker } = await import(pathToFileURL(path.join(dir, "scripts/lib/offline-checker.ts")).href);
    const checker = await offlineChecker(nothing);
    const started = performance.now();
    await checker.check(hostileList);
    const ms = performance.now() - started;
    checker.restore();
    return round(ms);
  } catch (error) {
    return `not measured: ${String(error).split("\n")[0]}`;
  }
}

const parserIn = async (dir: string): Promise<Parse> =>
  (await import(pathToFileURL(path.join(dir, "src/search/journal-ref.ts")).href)).parseJournalRefs;
const beforeDir = treeAt(BEFORE);
const afterDir = AFTER ? treeAt(AFTER) : ROOT;
const before = await parserIn(beforeDir);
const parseJournalRefs = await parserIn(afterDir);
const { readBibliography } = await importWorkerCode(path.join(afterDir, "src/sources/citations/entry-formats.ts"));

const rows = CASES.map(({ name, bibliography }) => {
  const entries: string[] = readBibliography(bibliography).map((entry: { text: string }) => entry.text);
  const same = entries.every((entry) => JSON.stringify(before(entry)) === JSON.stringify(parseJournalRefs(entry)));
  // A warm-up pass of each first: the figures are the steady state, not the JIT's first passes.
  for (let i = 0; i < 3; i++) for (const entry of entries) JSON.stringify([before(entry), parseJournalRefs(entry)]);
  const [was, is] = timeBoth(bibliography, entries, [
    { parse: before, times: 2 },
    { parse: parseJournalRefs, times: 1 },
  ]);
  return { name, chars: bibliography.length, entries: entries.length, same_answers: same, before: was!, after: is! };
});
const check = CHECK ? { before_ms: await timeCheck(beforeDir), after_ms: await timeCheck(afterDir) } : null;
for (const dir of new Set([beforeDir, afterDir])) if (dir !== ROOT) rmSync(dir, { recursive: true, force: true });

const report = {
  date: new Date().toISOString(),
  before: beforeCommit,
  after: afterCommit,
  node: process.version,
  runs: RUNS,
  rows,
  check,
};
const hostile = rows[0]!;
const lines = [
  `# Journal references on hostile input (${report.date.slice(0, 10)}, Node ${process.version})`,
  "",
  `Before: the parser at ${beforeCommit}; after: ${afterCommit}. Median of ${RUNS} runs after a warm-up. Parse: ` +
    "parseJournalRefs on each entry (total, slowest entry). Reading: readBibliography and each entry's parse as the " +
    "resolver made it (twice per entry before, once after).",
  "",
  "| case | chars | entries | same answers | parse before (total / slowest) | parse after | reading before | reading after |",
  "|---|---:|---:|---|---:|---:|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.chars} | ${r.entries} | ${r.same_answers ? "yes" : "**no**"} | ` +
      `${r.before.parse.total_ms} / ${r.before.parse.slowest_entry_ms} ms | ` +
      `${r.after.parse.total_ms} / ${r.after.parse.slowest_entry_ms} ms | ${r.before.reading_ms} ms | ${r.after.reading_ms} ms |`,
  ),
  "",
  `Target: the hostile list's parsing well under 1 s: ${hostile.after.parse.total_ms} ms ` +
    `(${hostile.after.parse.total_ms < 1_000 ? "met" : "**missed**"}; before ${hostile.before.parse.total_ms} ms per parse of every entry).`,
  ...(check
    ? [
        "",
        `The hostile list through checkBibliography offline (fake upstreams answering nothing, one call): ` +
          `before ${check.before_ms} ms, after ${check.after_ms} ms.`,
      ]
    : []),
];
mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
writeFileSync(path.join(ROOT, "bench/results/hostile-references.json"), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(path.join(ROOT, "bench/results/hostile-references.md"), `${lines.join("\n")}\n`);
console.log(lines.join("\n"));
