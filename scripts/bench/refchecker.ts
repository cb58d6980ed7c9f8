// npm run bench:refchecker [-- --misses]
// The real reference lists of 9 ICLR papers (test/fixtures/refchecker) through the Worker's own
// papers_check_bibliography code, offline, each reference as a BibTeX entry and as a line of text,
// against a Crossref and an OpenAlex that answer with what the real ones answered for it
// (scripts/citations/refchecker-world.ts): their best guesses, noise included. A reference is
// "held" when a recorded answer has a work with its title and its first author. Reports, for the
// held ones, how many are not_found (the target: none) and which fields the others differ in (real
// references do cite wrongly; each difference is listed with --misses to be read). Writes
// bench/results/refchecker.{json,md}.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runRefchecker, tally } from "../citations/refchecker-run.ts";
import { ROOT } from "../lib/dev-server.ts";
import { arg } from "../lib/mcp-bench.ts";

const MISSES = process.argv.includes("--misses");
/** --title T: only the references whose title starts with T, with their whole answers printed. */
const TITLE = arg("--title");
const { rows, requests: asked } = await runRefchecker({
  select: (r) => !TITLE || r.title.toLowerCase().startsWith(TITLE.toLowerCase()),
  onAnswer: (entry, answer) => {
    if (TITLE) console.log(entry, JSON.stringify(answer, null, 1));
  },
});

const held = rows.filter((r) => r.held);
const report = {
  references: rows.length,
  held: held.length,
  held_bibtex: tally("bibtex", held),
  held_text: tally("text", held),
  not_held_bibtex: tally(
    "bibtex",
    rows.filter((r) => !r.held),
  ),
  not_held_text: tally(
    "text",
    rows.filter((r) => !r.held),
  ),
  requests: { ...asked },
};
console.log(JSON.stringify(report, null, 1));
if (MISSES)
  for (const row of held)
    for (const kind of ["bibtex", "text"] as const)
      if (row[kind].verdict !== "verified")
        console.log(
          `${kind.padEnd(6)} ${row[kind].verdict.padEnd(9)} ${row.ref.title.slice(0, 70)} | ${row.ref.venue} ${row.ref.year} | ${JSON.stringify(row[kind].differences).slice(0, 400)}`,
        );

const out = path.join(ROOT, "bench/results");
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, "refchecker.json"), `${JSON.stringify(report, null, 2)}\n`);
const line = (name: string, t: ReturnType<typeof tally>) =>
  `| ${name} | ${t.n} | ${["verified", "differs", "not_found", "unchecked", "unreadable"].map((v) => t.verdicts[v] ?? 0).join(" | ")} | ${Object.entries(
    t.differing_fields,
  )
    .map(([f, c]) => `${f} ${c}`)
    .join(", ")} |`;
writeFileSync(
  path.join(out, "refchecker.md"),
  [
    "# bench:refchecker: real reference lists against recorded real Crossref and OpenAlex answers",
    "",
    `${rows.length} references from the bibliographies of 9 ICLR papers (RefChecker's test cache), each checked as a`,
    "BibTeX entry and as a line of text, offline, against a Crossref and an OpenAlex that answer with what the real ones",
    `answered for that reference (noise included). ${held.length} are held: a recorded answer has a work with their title`,
    "and first author. The references are real citations, not gold labels: a `differs` may be the paper's own mistake.",
    "",
    "| references | n | verified | differs | not_found | unchecked | unreadable | fields that differ |",
    "|---|--:|--:|--:|--:|--:|--:|---|",
    line("held, BibTeX", report.held_bibtex),
    line("held, text", report.held_text),
    line("not held, BibTeX", report.not_held_bibtex),
    line("not held, text", report.not_held_text),
    "",
    `Requests: ${JSON.stringify(asked)} (unrouted: asked of a title no recording holds, answered empty).`,
    "",
  ].join("\n"),
);
