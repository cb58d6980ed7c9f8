// What the two read tools share: their paging arguments, outline and figure entries, and the
// text rendering that ends every long answer with the exact cursor for the next piece.
import { z } from "zod";
import { DEFAULT_MAX_TOKENS, type ReadRequest } from "../../sources/text/reading";

export const outlineEntry = z.object({ level: z.number(), id: z.string(), title: z.string(), offset: z.number() });
export const figureEntry = z.object({
  id: z.string(),
  kind: z.enum(["figure", "table", "equation"]),
  number: z.string().nullable(),
  caption: z.string(),
  start: z.number(),
  end: z.number(),
});

export const readInput = {
  start: z.number().int().min(0).max(100_000_000).default(0).describe("next_start of the page before"),
  max_tokens: z.number().int().min(100).max(200_000).optional().describe(`default ${DEFAULT_MAX_TOKENS}`),
  max_characters: z
    .number()
    .int()
    .min(100)
    .max(2_000_000)
    .nullable()
    .optional()
    .describe("instead of max_tokens; null: all"),
  section: z.string().min(1).max(300).optional().describe("outline or figure id"),
};

/** The read tools' paging arguments as the reading view takes them. */
export function readRequest(args: {
  start: number;
  max_tokens?: number | undefined;
  max_characters?: number | null | undefined;
  section?: string | undefined;
}): ReadRequest {
  return {
    start: args.start,
    maxTokens: args.max_tokens ?? DEFAULT_MAX_TOKENS,
    ...(args.max_characters !== undefined ? { maxCharacters: args.max_characters } : {}),
    ...(args.section !== undefined ? { section: args.section } : {}),
  };
}

/** The paging fields both read tools answer. */
export const readOutput = {
  total_characters: z.number(),
  start: z.number(),
  next_start: z.number().nullable(),
  truncated: z.boolean(),
  tokens: z.number(),
  extraction_truncated: z.boolean(),
  section: outlineEntry.optional(),
  figure: figureEntry.optional(),
  outline: outlineEntry.array().describe("{level, id, title, offset}").optional(),
  figures: figureEntry.omit({ end: true }).array().describe("{id, kind, number, caption, start}").optional(),
  text: z.string(),
};

interface Readable {
  start: number;
  text: string;
  total_characters: number;
  tokens: number;
  next_start: number | null;
  notices?: string[];
  outline?: z.infer<typeof outlineEntry>[] | undefined;
  figures?: Omit<z.infer<typeof figureEntry>, "end">[] | undefined;
}

export function renderRead(head: string, result: Readable): string {
  const range = `characters ${result.start}-${result.start + result.text.length} of ${result.total_characters} (about ${result.tokens} tokens)`;
  const outline = result.outline?.length
    ? `Outline:\n${result.outline.map((entry) => `${"  ".repeat(Math.max(0, entry.level - 1))}${entry.title} [${entry.id} @${entry.offset}]`).join("\n")}`
    : "";
  const figures = result.figures?.length
    ? `Figures, tables, equations:\n${result.figures.map((entry) => `${entry.id} (${entry.kind}${entry.number ? ` ${entry.number}` : ""}) @${entry.start}: ${entry.caption.slice(0, 120)}`).join("\n")}`
    : "";
  return [`${head}: ${range}`, ...(result.notices ?? []), outline, figures].filter(Boolean).join("\n\n");
}

/** The read tools' text goes out once, after the rendering, followed by the cursor (see TextPayload). */
export const readPayload = {
  field: "text" as const,
  after: (result: { next_start: number | null }) =>
    result.next_start === null ? "End of text." : `More: call again with start=${result.next_start}.`,
};
