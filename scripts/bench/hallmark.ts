// npm run bench:hallmark [-- --limit N] [--show KIND]
// HALLMARK's dev split (test/fixtures/hallmark, 1,119 BibTeX entries, 14 kinds of hallucination)
// through the Worker's own papers_check_bibliography code (bundled by esbuild, on node:sqlite with
// the migrations applied), each entry its own call, against a fake world built from the split's
// VALID entries only (scripts/citations/hallmark-world.ts): arXiv's API, Crossref and OpenAlex
// answer from it; no network. A hallucinated entry is detected when its verdict is differs or
// not_found (or unreadable); a VALID entry so judged is a false positive; unchecked is neither and
// is counted apart. Reports detection, false positives, F1 and MCC, per kind and per tier, beside
// the published checkers' figures (test/fixtures/hallmark/baseline_results). Writes
// bench/results/hallmark.{json,md}.
import { readdirSync, readFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bibtexOf, runHallmark } from "../citations/hallmark-run.ts";
import { HALLMARK_DIR } from "../citations/hallmark-world.ts";
import { ROOT } from "../lib/dev-server.ts";
import { arg, percentile, round } from "../lib/mcp-bench.ts";

const LIMIT = Number(arg("--limit", "0"));
const MISSES = process.argv.includes("--misses");
const SHOW = arg("--show");
/** --key K: print the whole answer for entry K. */
const KEY = arg("--key");
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const dir = HALLMARK_DIR(ROOT);

const run = await runHallmark({
  select: (entry, i, all) =>
    KEY ? entry.bibtex_key === KEY : LIMIT > 0 ? i % Math.ceil(all.length / LIMIT) === 0 : true,
  onResult: (entry, row, answer) => {
    if (KEY) console.log(bibtexOf(entry), JSON.stringify(answer, null, 1));
    const detected = row.verdict === "differs" || row.verdict === "not_found" || row.verdict === "unreadable";
    if (MISSES && (entry.label === "VALID") === detected)
      console.log(
        `MISS ${row.kind.padEnd(22)} ${row.verdict.padEnd(9)} ${row.differences.padEnd(14)} ${JSON.stringify(entry.fields).slice(0, 260)}`,
      );
    if (SHOW && SHOW === row.kind)
      console.log(
        `${row.verdict.padEnd(10)} ${row.differences.padEnd(20)} ${JSON.stringify(entry.fields).slice(0, 220)}`,
      );
  },
});
const { rows, world, overall, perKind, perTier, unchecked, errors } = run;
const asked = run.requests;
const times = rows.map((r) => r.ms).sort((a, b) => a - b);
// The hard part: hallucinated entries whose title is a work the world holds (perturbed real records), caught only
// by comparing their fields, never by "no such title".
const held = new Set(world.map((w) => w.title.toLowerCase().replace(/[^a-z0-9]/g, "")));
const ofHeld = rows.filter(
  (r) => r.label === "HALLUCINATED" && held.has((r.fields.title ?? "").toLowerCase().replace(/[^a-z0-9]/g, "")),
);
const heldDetected = ofHeld.filter((r) => r.verdict === "differs" || r.verdict === "unreadable").length;

const published = readdirSync(path.join(dir, "baseline_results"))
  // Some published files write NaN for a figure they could not compute: read as null.
  .map((file) => ({
    file,
    r: JSON.parse(readFileSync(path.join(dir, "baseline_results", file), "utf8").replace(/\bNaN\b/g, "null")),
  }))
  .map(({ file, r }) => ({
    // The file names the variant (cascade_db_diagnosis_aggressive); tool_name alone repeats.
    tool: file.replace(/_dev_public\.json$/, ""),
    detection_rate: r3(r.detection_rate),
    false_positive_rate: r3(r.false_positive_rate),
    f1: r3(r.f1_hallucination ?? 0),
    mcc: r.mcc === null || r.mcc === undefined ? null : r3(r.mcc),
    num_uncertain: r.num_uncertain ?? null,
  }))
  .sort((a, b) => b.f1 - a.f1);

const report = {
  split: "dev_public",
  entries: rows.length,
  world: {
    works: world.length,
    arxiv: world.filter((w) => w.arxiv).length,
    crossref: world.filter((w) => w.doi).length,
    openalex: world.length,
  },
  overall,
  unchecked,
  unchecked_share: r3(unchecked / rows.length),
  title_held: { hallucinated: ofHeld.length, differs: heldDetected },
  errors: errors.length,
  per_kind: perKind,
  per_tier: perTier,
  requests: { ...asked },
  latency_ms: { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), max: round(times.at(-1) ?? 0) },
  published,
};
console.log(JSON.stringify({ overall, unchecked, errors: errors.length, requests: asked }, null, 1));
for (const [kind, figures] of Object.entries(perKind))
  console.log(
    `${kind.padEnd(24)} ${String(figures.n).padStart(4)}  flagged ${figures.flagged}  ${JSON.stringify(figures.verdicts)}`,
  );
for (const row of errors.slice(0, 5)) console.log(row.key, row.verdict);

if (LIMIT === 0) {
  const out = path.join(ROOT, "bench/results");
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, "hallmark.json"), `${JSON.stringify(report, null, 2)}\n`);
  const table = (r: { detection_rate: number; false_positive_rate: number; f1: number; mcc: number | null }) =>
    `${r.detection_rate} | ${r.false_positive_rate} | ${r.f1} | ${r.mcc ?? ""}`;
  writeFileSync(
    path.join(out, "hallmark.md"),
    [
      "# bench:hallmark: HALLMARK dev split through papers_check_bibliography",
      "",
      `${rows.length} entries (${overall.hallucinated} hallucinated, ${overall.valid} valid), each checked in its own call, offline,`,
      `against a world of ${world.length} works built from the split's VALID entries (see "What the world makes easier").`,
      "Detected: `differs`, `not_found` or `unreadable`. `unchecked` is neither: " +
        `${unchecked} entries (${report.unchecked_share}).`,
      "",
      "| checker | detection | false positives | F1 | MCC |",
      "|---|--:|--:|--:|--:|",
      `| **papers-mcp** | ${table(overall)} |`,
      ...published.map((p) => `| ${p.tool} | ${table(p)} |`),
      "",
      "## Per kind (share flagged; for valid, the false-positive rate)",
      "",
      "| kind | n | flagged | verdicts |",
      "|---|--:|--:|---|",
      ...Object.entries(perKind).map(
        ([kind, f]) => `| ${kind} | ${f.n} | ${f.flagged} | ${JSON.stringify(f.verdicts).replace(/[{}"]/g, "")} |`,
      ),
      "",
      `Of the ${ofHeld.length} hallucinated entries whose title is a work the world holds (a real record perturbed), ` +
        `${heldDetected} are \`differs\` with the field named: they are caught by the comparison, not by a missing title.`,
      "",
      "## Per tier",
      "",
      "| tier | hallucinated | detection | F1 |",
      "|---|--:|--:|--:|",
      ...Object.entries(perTier).map(([tier, m]) => `| ${tier} | ${m.hallucinated} | ${m.detection_rate} | ${m.f1} |`),
      "",
      `Requests to the world: ${JSON.stringify(asked)}. Latency per entry (offline, no round trips): p50 ${report.latency_ms.p50} ms, p95 ${report.latency_ms.p95} ms.`,
      "",
      "## What the world makes easier than reality",
      "",
      "- Every VALID work is in OpenAlex, and every work with a DOI in Crossref, with HALLMARK's own (DBLP's) title, authors and",
      "  year: the real sources' records differ from DBLP's now and then (a title's casing or subtitle, a name's spelling, the",
      "  year of the proceedings against the year online), and each such difference would be a false positive here that the",
      "  world cannot show.",
      "- A hallucinated entry whose real work is not among the VALID entries finds nothing and is `not_found`, as it should;",
      "  in reality the real work exists, and the entry is caught only if its differences are seen.",
      "- The sources answer at once, never fail and never rate-limit: `unchecked` measures nothing here.",
      "- The rankings are word overlaps (HAND-MADE), not Crossref's or OpenAlex's; Crossref answers its 5 best guesses",
      "  whatever they share, as the real one does.",
      "- The venue names Crossref and OpenAlex give are written from a HAND-MADE table of how each names the venue.",
      "",
    ].join("\n"),
  );
}
