// HALLMARK's dev split through the Worker's own bibliography check, offline, against the world
// built from its VALID entries (hallmark-world.ts): the verdict of every entry, and the figures
// HALLMARK reports (detection, false positives, F1, MCC; per kind and per tier). Used by
// bench:hallmark and by test/e2e/citation-verdicts.test.ts.
import path from "node:path";
import { asked, buildWorld, HALLMARK_DIR, type HallmarkEntry, readHallmark, worldFetch } from "./hallmark-world.ts";
import { ROOT } from "../lib/dev-server.ts";
import { bibtexEntry, offlineChecker } from "../lib/offline-checker.ts";

export interface HallmarkRow {
  key: string;
  label: HallmarkEntry["label"];
  kind: string;
  tier: number;
  verdict: string;
  differences: string;
  ms: number;
  fields: Record<string, string>;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export const bibtexOf = (entry: HallmarkEntry) => bibtexEntry(entry.bibtex_type, entry.bibtex_key, entry.fields);

/** Detected: differs, not_found or unreadable. unchecked is neither detected nor a false positive. */
export const flagged = (row: HallmarkRow) =>
  row.verdict === "differs" || row.verdict === "not_found" || row.verdict === "unreadable";

export function metrics(subset: HallmarkRow[], valid: HallmarkRow[]) {
  const tp = subset.filter((r) => r.label === "HALLUCINATED" && flagged(r)).length;
  const fn = subset.filter((r) => r.label === "HALLUCINATED" && !flagged(r)).length;
  const fp = valid.filter(flagged).length;
  const tn = valid.length - fp;
  const detection = tp / Math.max(1, tp + fn);
  const precision = tp / Math.max(1, tp + fp);
  const f1 = tp === 0 ? 0 : (2 * precision * detection) / (precision + detection);
  const mccDen = Math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn));
  return {
    hallucinated: tp + fn,
    valid: valid.length,
    detection_rate: r3(detection),
    false_positive_rate: r3(fp / Math.max(1, valid.length)),
    f1: r3(f1),
    mcc: mccDen === 0 ? 0 : r3((tp * tn - fp * fn) / mccDen),
  };
}

function count(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const value of values) out[value] = (out[value] ?? 0) + 1;
  return out;
}

export async function runHallmark({
  select = () => true,
  onResult,
}: {
  select?: (entry: HallmarkEntry, index: number, all: HallmarkEntry[]) => boolean;
  onResult?: (entry: HallmarkEntry, row: HallmarkRow, answer: unknown) => void;
} = {}) {
  const all = readHallmark(path.join(HALLMARK_DIR(ROOT), "dev_public.jsonl"));
  const entries = all.filter(select);
  const world = buildWorld(all);
  const checker = await offlineChecker(worldFetch(world));
  const rows: HallmarkRow[] = [];
  try {
    for (const entry of entries) {
      const started = performance.now();
      let verdict = "error";
      let differences = "";
      let answer: unknown = null;
      try {
        answer = await checker.check(bibtexOf(entry));
        const checked = (answer as { entries: { verdict: string; differences?: { field: string }[] }[] }).entries[0];
        verdict = checked?.verdict ?? "none";
        differences = (checked?.differences ?? []).map((d) => d.field).join(",");
      } catch (error) {
        verdict = `error: ${String(error).slice(0, 100)}`;
      }
      const row = {
        key: entry.bibtex_key,
        label: entry.label,
        kind: entry.hallucination_type ?? "valid",
        tier: entry.difficulty_tier ?? 0,
        verdict,
        differences,
        ms: performance.now() - started,
        fields: entry.fields,
      };
      rows.push(row);
      onResult?.(entry, row, answer);
    }
  } finally {
    checker.restore();
  }
  const valid = rows.filter((r) => r.label === "VALID");
  const kinds = [...new Set(rows.map((r) => r.kind))].sort();
  return {
    rows,
    world,
    requests: { ...asked },
    overall: metrics(rows, valid),
    perKind: Object.fromEntries(
      kinds.map((kind) => {
        const subset = rows.filter((r) => r.kind === kind);
        return [
          kind,
          {
            n: subset.length,
            flagged: r3(subset.filter(flagged).length / subset.length),
            verdicts: count(subset.map((r) => r.verdict)),
          },
        ];
      }),
    ),
    perTier: Object.fromEntries(
      [1, 2, 3].map((tier) => [
        tier,
        metrics(
          rows.filter((r) => r.label === "HALLUCINATED" && r.tier === tier),
          valid,
        ),
      ]),
    ),
    unchecked: rows.filter((r) => r.verdict === "unchecked").length,
    errors: rows.filter((r) => r.verdict.startsWith("error")),
  };
}
