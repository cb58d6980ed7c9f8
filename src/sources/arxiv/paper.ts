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
  /** OpenAlex's citation count and the day it was read, when the answer carries one (sources/openalex/counts.ts). */
  cited_by_count: z.number().optional(),
  cited_by_count_as_of: z.string().optional(),
});

export type ArxivPaper = z.infer<typeof paperSchema>;

/**
 * A paper as a search page lists it: the record without what its ID gives (the PDF and HTML
 * links) and without its version list (arxiv_get_metadata has both), and with
 * abstract_truncated when the page's budget cut the abstract.
 */
export const searchPaperSchema = paperSchema
  .omit({ pdf_url: true, html_url: true, versions: true })
  .extend({ abstract_truncated: z.boolean().optional() });
export type SearchPaper = z.infer<typeof searchPaperSchema>;

export function searchRecord(paper: ArxivPaper): SearchPaper {
  const { pdf_url: _pdf, html_url: _html, versions: _versions, ...record } = paper;
  return record;
}

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
export function renderBrief(paper: SearchPaper): string {
  const names = paper.authors.map((author) => author.name);
  const total = paper.authors_total ?? names.length;
  const authors = total > names.length ? `${names.join(", ")} et al. (${total})` : names.join(", ");
  return `[${paper.id}] ${paper.title}\n  ${authors} · ${paper.primary_category} · ${paper.published.slice(0, 10)} · ${paper.abs_url}`;
}

export interface RenderOptions {
  /** Characters of abstract shown (a search page shows the start). */
  abstractChars?: number;
  /** Authors named before "et al.". */
  authorsShown?: number;
  /** Whether the comment line is shown (a search page leaves it to the JSON). */
  comment?: boolean;
}

/** A few lines an agent can read without the JSON: id, title, authors, categories, dates, links. */
export function renderPaper(
  paper: SearchPaper,
  { abstractChars = Infinity, authorsShown = 5, comment = true }: RenderOptions = {},
): string {
  const names = paper.authors.map((author) => author.name);
  const total = paper.authors_total ?? names.length;
  const authors =
    total > authorsShown ? `${names.slice(0, authorsShown).join(", ")} et al. (${total} authors)` : names.join(", ");
  const abstract = cutText(paper.abstract, abstractChars);
  const extra = [
    paper.journal_ref && `journal: ${paper.journal_ref}`,
    paper.doi && `doi: ${paper.doi}`,
    paper.cited_by_count !== undefined && `cited by ${paper.cited_by_count} (OpenAlex, ${paper.cited_by_count_as_of})`,
    comment && paper.comment && `comment: ${paper.comment}`,
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

/**
 * The text cut to at most `chars` characters and "…": at the end of a sentence in the last 40%
 * when there is one, else at a space, and never inside $...$ TeX (an odd dollar is undone).
 */
export function cutText(text: string, chars: number): string {
  if (text.length <= chars) return text;
  let cut = text.slice(0, chars);
  const sentence = cut.lastIndexOf(". ");
  const space = cut.lastIndexOf(" ");
  if (sentence >= chars * 0.6) cut = cut.slice(0, sentence + 1);
  else if (space >= chars * 0.6) cut = cut.slice(0, space);
  const dollars = cut.match(/(?<!\\)\$/g)?.length ?? 0;
  if (dollars % 2 === 1) cut = cut.slice(0, cut.search(/(?<!\\)\$(?!.*(?<!\\)\$)/s));
  return `${cut.trimEnd()}…`;
}
