import { z } from "zod";
import { MAX_REFERENCE_CHARS, referenceInput, resolveReference } from "../../sources/citations/resolve";
import { type Candidate, CONSIDERED, RECORD } from "../../sources/citations/resolve-score";
import { claimsOf, differencesFrom } from "../../sources/citations/entry-differences";
import { identifiersIn } from "../../sources/citations/identifiers";
import { defineTool } from "../tool";

export const candidateSchema = z.object({
  source: z.enum(["arxiv", "nber", "crossref", "openalex"]),
  id: z.string(),
  title: z.string(),
  authors: z.array(z.string()),
  authors_total: z.number(),
  year: z.number().nullable(),
  doi: z.string().nullable(),
  version: z.number().nullable(),
  confidence: z.number(),
  agreed: z.object({
    title: z.enum(["exact", "close", "none"]),
    title_coverage: z.number(),
    authors: z.enum(["agree", "disagree", "absent"]),
    surnames_matched: z.string(),
    year: z.enum(["agree", "close", "disagree", "absent"]),
    year_cited: z.number().nullable(),
    exact_identifier: z.string().nullable(),
    journal_ref: z.string().nullable(),
  }),
  how: z.string(),
  venue: z
    .object({
      type: z.string().nullable(),
      container: z.string().nullable(),
      volume: z.string().nullable(),
      issue: z.string().nullable(),
      page: z.string().nullable(),
      publisher: z.string().nullable(),
    })
    .optional(),
  journal_ref_differs: z.object({ cited: z.string(), record: z.string() }).optional(),
  /** What the reference states that the record does not (papers_check_bibliography's comparison). */
  differences: z
    .array(z.object({ field: z.string(), cited: z.string().nullable(), record: z.string().nullable() }))
    .optional(),
  also: z.array(z.object({ source: z.enum(["arxiv", "nber", "doi"]), id: z.string(), how: z.string() })).optional(),
});
const candidate = candidateSchema;

export const papersResolveReference = defineTool({
  name: "papers_resolve_reference",
  title: "Resolve a reference",
  useWhen: "check a reference before trusting it: the real paper it names, or no_match.",
  description:
    "Any-style reference or BibTeX/RIS/CSL-JSON entry -> the arXiv, NBER, Crossref or OpenAlex work and what agreed, or no_match.",
  input: z.object({
    reference: z.string().min(1).max(MAX_REFERENCE_CHARS).optional().describe("the entry as text"),
    title: z.string().max(1000).optional().describe("or its fields"),
    authors: z.array(z.string().max(200)).max(50).optional().describe("names"),
    year: z.number().int().min(1800).max(2100).optional().describe("of publication"),
    doi: z.string().max(300).optional().describe("10.x/y"),
    arxiv_id: z.string().max(300).optional().describe("as cited"),
  }),
  output: z.object({
    status: z.enum(["match", "no_match"]),
    matches: z.array(candidate).describe("{source, id, title, authors, year, doi, confidence, agreed, how}"),
    near_misses: z.array(candidate),
    conflict: z.string().nullable(),
    parsed: z.looseObject({}),
    tried: z.array(z.string()),
    unchecked: z.array(
      z.object({
        source: z.enum(["arxiv", "nber", "crossref", "openalex", "doi-ra"]),
        reason: z.string(),
        retry_after_ms: z.number().nullable(),
      }),
    ),
  }),
  annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  errors: [],
  handler: async (args, context) => {
    const input = referenceInput(args);
    // The records behind the candidates stay behind (papers_check_bibliography reads them; an answer never carries them).
    const { [CONSIDERED]: considered, ...resolution } = await resolveReference(context, input);
    const bare = ({ [RECORD]: _record, ...candidate }: Candidate) => candidate;
    // A match's differences: the one comparison papers_check_bibliography makes, field by field for stated fields.
    const evidence = {
      ids: identifiersIn(input.text),
      text: input.text,
      claims: input.structured ? claimsOf(input.fields) : undefined,
      absentDois: resolution.absent_dois ?? [],
      considered: considered ?? [],
    };
    return {
      ...resolution,
      matches: resolution.matches.map((match) => {
        const differences = differencesFrom(match, evidence);
        return { ...bare(match), ...(differences.length > 0 ? { differences } : {}) };
      }),
      near_misses: resolution.near_misses.map(bare),
      parsed: { ...resolution.parsed },
    };
  },
  render(result) {
    const line = (c: (typeof result.matches)[number]) =>
      `${c.source}:${c.id} ${c.title} (${c.year ?? "?"}) confidence ${c.confidence}; title ${c.agreed.title}, ` +
      `authors ${c.agreed.authors} (${c.agreed.surnames_matched}), year ` +
      `${c.agreed.year}${c.agreed.exact_identifier ? `, ${c.agreed.exact_identifier}` : ""}` +
      (c.also?.length ? `; also ${c.also.map((v) => `${v.source}:${v.id}`).join(", ")}` : "") +
      (c.differences?.length
        ? `; differs: ${c.differences.map((d) => `${d.field} (cited ${d.cited ?? "-"}, record ${d.record ?? "-"})`).join("; ")}`
        : "");
    const head =
      result.status === "match"
        ? result.matches.map(line)
        : [
            result.unchecked.length > 0
              ? `no_match in what could be searched; unchecked: ${result.unchecked.map((u) => `${u.source} (${u.reason})`).join(", ")}.`
              : "no_match: no paper in arXiv, NBER, Crossref or OpenAlex matches this reference.",
            ...result.near_misses.map((c) => `not a match: ${line(c)}`),
          ];
    if (result.conflict) head.push(`conflict: ${result.conflict}`);
    return [...head, `tried: ${result.tried.join("; ") || "nothing"}`].join("\n");
  },
});
