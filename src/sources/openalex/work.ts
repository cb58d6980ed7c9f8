// OpenAlex's work objects, read loosely (every field may be missing or null: OpenAlex adds and
// drops fields between generations of its format) and cut down to what an agent needs: title,
// first authors, year, venue, DOI, citation count, and the arXiv or NBER paper the work is.
import { z } from "zod";

const source = z.looseObject({ display_name: z.string().nullish(), type: z.string().nullish() }).nullish();
const location = z
  .looseObject({
    landing_page_url: z.string().nullish(),
    pdf_url: z.string().nullish(),
    source,
  })
  .nullish();

export const openAlexWorkSchema = z.looseObject({
  id: z.string().regex(/^https:\/\/openalex\.org\/W\d+$/),
  doi: z.string().nullish(),
  title: z.string().nullish(),
  display_name: z.string().nullish(),
  publication_year: z.number().int().nullish(),
  publication_date: z.string().nullish(),
  type: z.string().nullish(),
  cited_by_count: z.number().int().min(0).nullish(),
  referenced_works_count: z.number().int().min(0).nullish(),
  counts_by_year: z.array(z.looseObject({ year: z.number(), cited_by_count: z.number() })).nullish(),
  authorships: z
    .array(z.looseObject({ author: z.looseObject({ display_name: z.string().nullish() }).nullish() }))
    .nullish(),
  primary_location: location,
  locations: z.array(location).nullish(),
});
export type OpenAlexWork = z.infer<typeof openAlexWorkSchema>;

export const openAlexListSchema = z.looseObject({
  meta: z.looseObject({ count: z.number().int().min(0), next_cursor: z.string().nullish() }),
  results: z.array(z.unknown()),
});

/** The fields every request asks for (select=): list pages stay small (no abstracts, no reference lists). */
export const WORK_FIELDS = [
  "id",
  "doi",
  "title",
  "display_name",
  "publication_year",
  "publication_date",
  "type",
  "cited_by_count",
  "authorships",
  "primary_location",
  "locations",
] as const;
export const WORK_LOOKUP_FIELDS = [...WORK_FIELDS, "referenced_works_count", "counts_by_year"] as const;

/** Authors named per work (a collaboration's thousands would crowd out the page). */
const WORK_AUTHORS = 3;

export const graphWorkSchema = z.object({
  openalex_id: z.string(),
  title: z.string().nullable(),
  authors: z.array(z.string()),
  authors_total: z.number(),
  year: z.number().nullable(),
  venue: z.string().nullable(),
  doi: z.string().nullable(),
  type: z.string().nullable(),
  cited_by_count: z.number(),
  /** The work as one of our papers, and how that was found. */
  arxiv_id: z.string().nullable(),
  nber_id: z.string().nullable(),
  matched_by: z.string().nullable(),
});
export type GraphWork = z.infer<typeof graphWorkSchema>;

const ARXIV_DOI = /^10\.48550\/arxiv\.(.+)$/i;
const NBER_DOI = /^10\.3386\/(w\d{1,5})$/i;
const ARXIV_URL =
  /^https?:\/\/(?:www\.|export\.)?arxiv\.org\/(?:abs|pdf)\/([a-z-]+(?:\.[A-Z]{2})?\/\d{7}|\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?$/i;
const NBER_URL = /^https?:\/\/(?:www\.)?nber\.org\/(?:papers|system\/files\/working_papers)\/(w\d{1,5})\b/i;

export const bareDoi = (doi: string | null | undefined) =>
  doi ? doi.replace(/^https?:\/\/(?:dx\.)?doi\.org\//i, "").toLowerCase() : null;
export const shortId = (id: string) => id.slice(id.lastIndexOf("/") + 1);

/** The arXiv or NBER paper OpenAlex itself says the work is: its DOI, or one of its locations. */
export function ownIdentity(work: OpenAlexWork): Pick<GraphWork, "arxiv_id" | "nber_id" | "matched_by"> {
  const doi = bareDoi(work.doi);
  const arxivByDoi = doi ? ARXIV_DOI.exec(doi)?.[1] : undefined;
  if (arxivByDoi) return { arxiv_id: arxivByDoi, nber_id: null, matched_by: "arXiv DOI" };
  const nberByDoi = doi ? NBER_DOI.exec(doi)?.[1] : undefined;
  if (nberByDoi) return { arxiv_id: null, nber_id: nberByDoi.toLowerCase(), matched_by: "NBER DOI" };
  for (const place of [work.primary_location, ...(work.locations ?? [])]) {
    for (const url of [place?.landing_page_url, place?.pdf_url]) {
      const arxiv = url ? ARXIV_URL.exec(url)?.[1] : undefined;
      if (arxiv) return { arxiv_id: arxiv, nber_id: null, matched_by: "arXiv location in OpenAlex" };
      const nber = url ? NBER_URL.exec(url)?.[1] : undefined;
      if (nber) return { arxiv_id: null, nber_id: nber.toLowerCase(), matched_by: "NBER location in OpenAlex" };
    }
  }
  return { arxiv_id: null, nber_id: null, matched_by: null };
}

export function summarizeWork(work: OpenAlexWork): GraphWork {
  const names = (work.authorships ?? [])
    .map((authorship) => authorship.author?.display_name?.trim())
    .filter((name): name is string => Boolean(name));
  const title = (work.title ?? work.display_name ?? "").replace(/\s+/g, " ").trim();
  return {
    openalex_id: shortId(work.id),
    title: title === "" ? null : title,
    authors: names.slice(0, WORK_AUTHORS),
    authors_total: names.length,
    year: work.publication_year ?? null,
    venue: work.primary_location?.source?.display_name?.trim() || null,
    doi: bareDoi(work.doi),
    type: work.type ?? null,
    cited_by_count: work.cited_by_count ?? 0,
    ...ownIdentity(work),
  };
}

/** Reads a list page's works, skipping (and counting) any that do not parse rather than failing the page. */
export function readWorks(results: readonly unknown[]): { works: GraphWork[]; unreadable: number } {
  const works: GraphWork[] = [];
  let unreadable = 0;
  for (const raw of results) {
    const parsed = openAlexWorkSchema.safeParse(raw);
    if (parsed.success) works.push(summarizeWork(parsed.data));
    else unreadable++;
  }
  return { works, unreadable };
}
