// The real reference lists of 9 papers (test/fixtures/refchecker) through the Worker's own
// bibliography check, offline, each reference as a BibTeX entry and as a line of text, against a
// Crossref and an OpenAlex that answer what the real ones answered (refchecker-world.ts). Used by
// bench:refchecker and by test/e2e/citation-verdicts.test.ts.
import path from "node:path";
import { ROOT } from "../lib/dev-server.ts";
import { bibtexEntry, offlineChecker } from "../lib/offline-checker.ts";
import {
  asked,
  heldBy,
  loadRecordings,
  readReferences,
  recordedFetch,
  type RefcheckerReference,
} from "./refchecker-world.ts";

export interface Outcome {
  verdict: string;
  fields: string[];
  differences: unknown[];
}

export interface RefcheckerRow {
  ref: RefcheckerReference;
  /** A recorded answer holds the work (its title and first author). */
  held: boolean;
  bibtex: Outcome;
  text: Outcome;
}

const authorsOf = (ref: RefcheckerReference) =>
  ref.authors.map((name) => (/^et\.? al\.?$/i.test(name) ? "others" : name));
export const bibtexOf = (ref: RefcheckerReference, n: number) =>
  bibtexEntry("article", `ref${n}`, {
    title: ref.title,
    ...(ref.authors.length > 0 ? { author: authorsOf(ref).join(" and ") } : {}),
    ...(ref.year ? { year: String(ref.year) } : {}),
    ...(ref.venue ? { journal: ref.venue } : {}),
    ...(ref.doi ? { doi: ref.doi } : {}),
    ...(ref.url ? { url: ref.url } : {}),
  });
export const textOf = (ref: RefcheckerReference) =>
  [ref.authors.join(", "), ref.title, ref.venue, ref.year, ref.doi ? `doi:${ref.doi}` : ref.url]
    .filter(Boolean)
    .join(". ");

export async function runRefchecker({
  select = () => true,
  onAnswer,
}: {
  select?: (ref: RefcheckerReference) => boolean;
  onAnswer?: (entry: string, answer: unknown) => void;
} = {}) {
  const dir = path.join(ROOT, "test/fixtures/refchecker");
  const references = readReferences(dir).filter((r) => r.title.trim() && select(r));
  const recordings = loadRecordings(dir);
  const checker = await offlineChecker(recordedFetch(recordings));
  const outcome = async (entry: string): Promise<Outcome> => {
    try {
      const answer = await checker.check(entry);
      onAnswer?.(entry, answer);
      const checked = answer.entries[0];
      return {
        verdict: checked?.verdict ?? "none",
        fields: (checked?.differences ?? []).map((d: { field: string }) => d.field),
        differences: checked?.differences ?? [],
      };
    } catch (error) {
      return { verdict: `error: ${String(error).slice(0, 80)}`, fields: [], differences: [] };
    }
  };
  const rows: RefcheckerRow[] = [];
  try {
    for (const [n, ref] of references.entries())
      rows.push({
        ref,
        held: heldBy(recordings, ref),
        bibtex: await outcome(bibtexOf(ref, n)),
        text: await outcome(textOf(ref)),
      });
  } finally {
    checker.restore();
  }
  return { rows, requests: { ...asked } };
}

export function tally(kind: "bibtex" | "text", subset: RefcheckerRow[]) {
  const verdicts: Record<string, number> = {};
  const fields: Record<string, number> = {};
  for (const row of subset) {
    const o = row[kind];
    verdicts[o.verdict] = (verdicts[o.verdict] ?? 0) + 1;
    for (const field of o.fields) fields[field] = (fields[field] ?? 0) + 1;
  }
  return { n: subset.length, verdicts, differing_fields: fields };
}
