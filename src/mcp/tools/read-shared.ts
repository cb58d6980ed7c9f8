// What the two read tools share: their paging arguments, outline and figure entries, and the
// text rendering that ends every long answer with the exact cursor for the next piece.
import { z } from "zod";
import { DEFAULT_MAX_TOKENS, type ReadRequest } from "../../sources/text/reading";
import { estimateTokens } from "../../sources/text/tokens";

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
  start: z.number().int().min(0).max(100_000_000).default(0).describe("next_start"),
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

/** A read answer of the default size stays within this: its text, outline and figures together. */
export const READ_ANSWER_BUDGET = 20_000;
/** The head line, notices, cursor and the other fields. */
const READ_OVERHEAD_TOKENS = 1_000;

type Listing = { outline: z.infer<typeof outlineEntry>[]; figures: Omit<z.infer<typeof figureEntry>, "end">[] };

/**
 * The read tools' paging arguments as the reading view takes them. A first page that lists the
 * outline and figures (`listing`) gives them room: without max_tokens, its text is what is left of
 * READ_ANSWER_BUDGET after them (a 70-heading, 100-figure paper lists 11,000 tokens), at most the
 * default page.
 */
export function readRequest(
  args: {
    start: number;
    max_tokens?: number | undefined;
    max_characters?: number | null | undefined;
    section?: string | undefined;
  },
  listing?: Listing,
): ReadRequest {
  const listed = listing
    ? estimateTokens(renderListing(listing)) + estimateTokens(JSON.stringify(listing)) + READ_OVERHEAD_TOKENS
    : 0;
  return {
    start: args.start,
    maxTokens: args.max_tokens ?? Math.max(1_000, Math.min(DEFAULT_MAX_TOKENS, READ_ANSWER_BUDGET - listed)),
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
  const range =
    `characters ${result.start}-${result.start + result.text.length} of ${result.total_characters} ` +
    `(about ${result.tokens} tokens)`;
  const listing = renderListing({ outline: result.outline ?? [], figures: result.figures ?? [] });
  return [`${head}: ${range}`, ...(result.notices ?? []), listing].filter(Boolean).join("\n\n");
}

/** The outline and the figures as the first page's text lists them. */
function renderListing({ outline, figures }: Listing): string {
  const heading = (entry: Listing["outline"][number]) =>
    `${"  ".repeat(Math.max(0, entry.level - 1))}${entry.title} [${entry.id} @${entry.offset}]`;
  const figure = (entry: Listing["figures"][number]) =>
    `${entry.id} (${entry.kind}${entry.number ? ` ${entry.number}` : ""}) @${entry.start}: ${entry.caption.slice(0, 120)}`;
  const headings = outline.length ? `Outline:\n${outline.map(heading).join("\n")}` : "";
  const listed = figures.length ? `Figures, tables, equations:\n${figures.map(figure).join("\n")}` : "";
  return [headings, listed].filter(Boolean).join("\n\n");
}

/** The read tools' text goes out once, after the rendering, followed by the cursor (see TextPayload). */
export const readPayload = {
  field: "text" as const,
  after: (result: { next_start: number | null }) =>
    result.next_start === null ? "End of text." : `More: call again with start=${result.next_start}.`,
};
