// The paper record every arXiv tool returns, whatever answered (live API, cache, mirror).
import { z } from "zod";

export const authorSchema = z.object({
  name: z.string(),
  affiliations: z.array(z.string()).optional(),
});

export const paperSchema = z.object({
  id: z.string().describe("ID with version, e.g. 2401.12345v2"),
  base_id: z.string(),
  version: z.number(),
  title: z.string(),
  abstract: z.string(),
  authors: z.array(authorSchema),
  primary_category: z.string(),
  categories: z.array(z.string()),
  published: z.string(),
  updated: z.string(),
  comment: z.string().nullable(),
  journal_ref: z.string().nullable(),
  doi: z.string().nullable(),
  abs_url: z.string(),
  pdf_url: z.string(),
  html_url: z.string(),
  /** Every version with its date, when the source lists them (the mirror's arXivRaw record does; the API gives v1 and the latest). */
  versions: z.array(z.object({ version: z.number(), date: z.string() })).optional(),
});

export type ArxivPaper = z.infer<typeof paperSchema>;

/** The versions an answer can vouch for: all of them from the mirror, else the first and the latest (the API's published and updated). */
export function knownVersions(paper: ArxivPaper): { version: number; date: string }[] {
  if (paper.versions) return paper.versions;
  const first = { version: 1, date: paper.published };
  return paper.version > 1 ? [first, { version: paper.version, date: paper.updated }] : [first];
}

/** Public links for people; never fetched by us (fetches use the configured base URLs). */
export const PUBLIC_ARXIV = "https://arxiv.org";

/** Where an answer came from, and for cached ones, how old it is. */
export const servedFromFields = {
  served_from: z.enum(["live", "cache", "mirror"]),
  cached_at: z.string().optional(),
  cache_age_seconds: z.number().optional(),
};

export const servedPaperSchema = paperSchema.extend(servedFromFields);
export type ServedPaper = z.infer<typeof servedPaperSchema>;

/** A few lines an agent can read without the JSON: id, title, authors, categories, dates, links. */
export function renderPaper(paper: ArxivPaper, { abstractChars = Infinity }: { abstractChars?: number } = {}): string {
  const names = paper.authors.map((author) => author.name);
  const authors = names.length > 5 ? `${names.slice(0, 5).join(", ")} et al. (${names.length})` : names.join(", ");
  const abstract =
    paper.abstract.length > abstractChars ? `${paper.abstract.slice(0, abstractChars)}…` : paper.abstract;
  const extra = [
    paper.journal_ref && `journal: ${paper.journal_ref}`,
    paper.doi && `doi: ${paper.doi}`,
    paper.comment && `comment: ${paper.comment}`,
  ]
    .filter(Boolean)
    .join(" · ");
  return [
    `[${paper.id}] ${paper.title}`,
    `  ${authors}`,
    `  ${paper.categories.join(", ")} · published ${paper.published.slice(0, 10)} · updated ${paper.updated.slice(0, 10)}`,
    ...(extra ? [`  ${extra}`] : []),
    `  ${abstract}`,
    `  ${paper.abs_url}`,
  ].join("\n");
}
