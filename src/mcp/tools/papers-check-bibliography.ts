import { z } from "zod";
import {
  type BibliographyCheck,
  MAX_BIBLIOGRAPHY_CHARS,
  MAX_ENTRIES,
  checkBibliography,
} from "../../sources/citations/check-bibliography";
import { defineTool } from "../tool";

const DEFAULT_MAX_TOKENS = 15_000;

export const papersCheckBibliography = defineTool({
  name: "papers_check_bibliography",
  title: "Check a bibliography",
  useWhen:
    "check a whole bibliography (.bib, RIS, CSL-JSON or a list) in one call: each entry verified, differs, not_found, unchecked or unreadable.",
  description:
    `Checks up to ${MAX_ENTRIES} references against arXiv, NBER, Crossref and OpenAlex: each verified (every field agrees; ` +
    `BibTeX), differs (which fields), not_found (what was tried), unchecked (retry later) or unreadable.`,
  input: z.object({
    bibliography: z.string().min(1).max(MAX_BIBLIOGRAPHY_CHARS).describe(".bib, RIS, CSL-JSON or one per line"),
    format: z.enum(["bibtex", "ris", "csl-json", "text"]).optional().describe("default: detected"),
    max_tokens: z.number().int().min(2_000).max(20_000).default(DEFAULT_MAX_TOKENS).describe("answer budget"),
    start: z.number().int().min(0).max(199).default(0).describe("next_start"),
  }),
  output: z.object({
    format: z.string(),
    summary: z.object({
      entries: z.number(),
      verified: z.number(),
      differs: z.number(),
      not_found: z.number(),
      unchecked: z.number(),
      unreadable: z.number(),
    }),
    entries: z
      .array(
        z.object({
          n: z.number(),
          verdict: z.enum(["verified", "differs", "not_found", "unchecked", "unreadable"]),
          id: z.string().optional(),
          title: z.string().optional(),
          confidence: z.number().optional(),
          differences: z
            .array(z.object({ field: z.string(), cited: z.string().nullable(), record: z.string().nullable() }))
            .optional(),
          bibtex: z.string().optional(),
          tried: z.array(z.string()).optional(),
          unchecked: z
            .array(
              z.object({
                source: z.string(),
                reason: z.string(),
                retry_after_ms: z.number().nullable(),
                start: z.number().optional(),
              }),
            )
            .optional(),
          why: z.string().optional(),
          duplicate_of: z.number().optional(),
          also: z.array(z.string()).optional(),
        }),
      )
      .describe("{n, verdict, id, title, differences, bibtex, tried, why}"),
    next_start: z.number().nullable(),
    notices: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [],
  handler: ({ bibliography, format, max_tokens, start }, context) =>
    checkBibliography(context, bibliography, {
      ...(format ? { format } : {}),
      maxTokens: max_tokens,
      start,
      progress: context.progress,
    }),
  render: renderCheck,
});

function renderCheck(result: BibliographyCheck): string {
  const s = result.summary;
  const lines = [
    `${s.entries} entries (${result.format})${result.entries.length < s.entries ? `, ${result.entries.length} here` : ""}: ` +
      `${s.verified} verified, ${s.differs} differs, ${s.not_found} not_found, ${s.unchecked} unchecked, ${s.unreadable} unreadable`,
  ];
  for (const entry of result.entries) {
    const head = `[${entry.n}] ${entry.verdict}${entry.duplicate_of ? ` (same as [${entry.duplicate_of}])` : ""}`;
    const also = entry.also ? ` (also ${entry.also.join(", ")})` : "";
    // A duplicate carries no title of its own (its first entry shows it).
    const title = entry.title ? ` ${entry.title}` : "";
    if (entry.verdict === "verified") lines.push(`${head}: ${entry.id}${also}${title}`);
    else if (entry.verdict === "differs")
      lines.push(
        `${head}: ${entry.id}${also}${title}; ` +
          `${entry.differences!.map((d) => `${d.field}: cited ${d.cited ?? "-"}, record ${d.record ?? "-"}`).join("; ")}`,
      );
    else if (entry.verdict === "not_found") lines.push(`${head}: tried ${entry.tried!.join("; ")}`);
    else if (entry.verdict === "unchecked")
      lines.push(
        `${head}: could not ask ${entry.unchecked!.map((u) => `${u.source} (${u.reason})`).join(", ")}; tried ${entry.tried!.join("; ")}`,
      );
    else lines.push(`${head}: ${entry.why}`);
    if (entry.bibtex) lines.push(entry.bibtex);
  }
  lines.push(...result.notices);
  return lines.join("\n");
}
