// The bibliography check's verdicts on data the project did not make, offline (no wrangler needed):
// HALLMARK's dev split against a world built from its VALID entries, and the real reference lists of
// 9 papers against the answers real Crossref and OpenAlex gave for them. npm run bench:hallmark and
// bench:refchecker report the same runs in full.
import { describe, expect, it } from "vitest";
import { runHallmark } from "../../scripts/citations/hallmark-run.ts";
import { runRefchecker } from "../../scripts/citations/refchecker-run.ts";

describe("papers_check_bibliography's verdicts", () => {
  it("catches every kind of HALLMARK's hallucinations (95% or more of each), with 3% false positives or fewer", async () => {
    const run = await runHallmark();
    expect(run.errors).toEqual([]);
    expect(run.rows).toHaveLength(1119);
    expect(run.overall.f1).toBeGreaterThanOrEqual(0.97);
    expect(run.overall.false_positive_rate).toBeLessThanOrEqual(0.03);
    const weak = Object.entries(run.perKind).filter(([kind, figures]) => kind !== "valid" && figures.flagged < 0.95);
    expect(weak).toEqual([]);
    // Every source up: unchecked under 1%.
    expect(run.unchecked / run.rows.length).toBeLessThan(0.01);
  }, 120_000);

  it("finds every real reference a recorded Crossref or OpenAlex answer holds, as BibTeX and as text", async () => {
    const { rows } = await runRefchecker();
    const held = rows.filter((row) => row.held);
    expect(held.length).toBeGreaterThan(300);
    const lost = held.flatMap((row) =>
      (["bibtex", "text"] as const)
        .filter((kind) => row[kind].verdict !== "verified" && row[kind].verdict !== "differs")
        .map((kind) => `${kind} ${row[kind].verdict}: ${row.ref.title}`),
    );
    expect(lost).toEqual([]);
    // Real citations are mostly right: what differs is a citation's own mistake or a record's gap, not most of them.
    expect(held.filter((row) => row.bibtex.verdict === "verified").length / held.length).toBeGreaterThan(0.9);
  }, 120_000);
});
