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
  /** Set when the author list was shortened: how many authors the paper has. */
  authors_total: z.number().optional(),
  /** The collaboration the author list names, when it names one. */
  collaboration: z.string().optional(),
});

export type ArxivPaper = z.infer<typeof paperSchema>;

/** The versions an answer can vouch for: all of them from the mirror, else the first and the latest (the API's published and updated). */
export function knownVersions(paper: ArxivPaper): { version: number; date: string }[] {
  if (paper.versions) return paper.versions;
  const first = { version: 1, date: paper.published };
  return paper.version > 1 ? [first, { version: paper.version, date: paper.updated }] : [first];
}

/**
 * Author lists as the field shortens them: a paper with more than AUTHORS_SHORTENED_OVER authors
 * (a collaboration's 2,831 names are 65 KB, a third of an agent's context) shows the first
 * AUTHORS_SHOWN, with authors_total and the collaboration it names. arxiv_get_metadata's
 * full_authors gives the whole list.
 */
export const AUTHORS_SHORTENED_OVER = 20;
export const AUTHORS_SHOWN = 10;

/** The collaboration an author list names: "The CMS and LHCb Collaborations: V. Khachatryan" -> "CMS and LHCb Collaborations". */
export function collaborationOf(names: readonly string[]): string | undefined {
  for (const [i, name] of names.slice(0, 5).entries()) {
    const match = /^(?:the\s+)?([^:;,]{1,80}?\bcollaborations?\b)/i.exec(name.trim());
    if (!match) continue;
    // arXiv's line "The CMS and LHCb Collaborations: ..." splits at "and": the name before is part of it.
    const before = /^(?:[Tt]he\s+)?([A-Z][A-Za-z0-9-]{1,20})$/.exec(names[i - 1]?.trim() ?? "");
    return before ? `${before[1]} and ${match[1]!.trim()}` : match[1]!.trim();
  }
  return undefined;
}

export function shortenAuthors<P extends ArxivPaper>(paper: P): P {
  if (paper.authors.length <= AUTHORS_SHORTENED_OVER) return paper;
  const collaboration = collaborationOf(paper.authors.map((author) => author.name));
  return {
    ...paper,
    authors: paper.authors.slice(0, AUTHORS_SHOWN),
    authors_total: paper.authors.length,
    ...(collaboration ? { collaboration } : {}),
  };
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

/** Two lines for a brief page: id, title; authors, primary category, date, link. */
export function renderBrief(paper: ArxivPaper): string {
  const names = paper.authors.map((author) => author.name);
  const total = paper.authors_total ?? names.length;
  const authors = total > names.length ? `${names.join(", ")} et al. (${total})` : names.join(", ");
  return `[${paper.id}] ${paper.title}\n  ${authors} · ${paper.primary_category} · ${paper.published.slice(0, 10)} · ${paper.abs_url}`;
}

/** A few lines an agent can read without the JSON: id, title, authors, categories, dates, links. */
export function renderPaper(paper: ArxivPaper, { abstractChars = Infinity }: { abstractChars?: number } = {}): string {
  const names = paper.authors.map((author) => author.name);
  const total = paper.authors_total ?? names.length;
  const authors = total > 5 ? `${names.slice(0, 5).join(", ")} et al. (${total} authors)` : names.join(", ");
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
