// OpenAlex as the resolver's second source outside the mirrors (when Crossref cannot be asked):
// works whose title matches the reference's title (filter=title.search:, one list call of the
// day's allowance). Only candidates: the resolver checks each against the reference's text.
import { openAlexGet } from "./client";
import type { AppContext } from "../../context";

/** A work as the resolver reads it. */
export interface ReferenceWork {
  /** The DOI, or the OpenAlex ID when the work has none. */
  doi: string;
  title: string;
  authors: string[];
  year: number | null;
  type: string | null;
  container: string | null;
  volume: string | null;
  issue: string | null;
  page: string | null;
}

const CANDIDATES = 5;
const SELECT = "id,doi,title,display_name,publication_year,type,authorships,primary_location,biblio";

export async function openAlexTitleSearch(ctx: AppContext, title: string, deadline?: number): Promise<ReferenceWork[]> {
  const params = new URLSearchParams({
    filter: `title.search:${title.slice(0, 300)}`,
    "per-page": String(CANDIDATES),
    select: SELECT,
  });
  const answer = (await openAlexGet(ctx, `/works?${params}`, "list", deadline)) as { results?: unknown } | null;
  const results = Array.isArray(answer?.results) ? answer.results : [];
  return results.slice(0, CANDIDATES).flatMap((raw) => {
    const work = toReferenceWork(raw);
    return work ? [work] : [];
  });
}

type Json = Record<string, any>;

function toReferenceWork(raw: unknown): ReferenceWork | null {
  if (typeof raw !== "object" || raw === null) return null;
  const work = raw as Json;
  const title =
    typeof work.title === "string" ? work.title : typeof work.display_name === "string" ? work.display_name : null;
  const id =
    typeof work.doi === "string"
      ? work.doi.replace(/^https?:\/\/(dx\.)?doi\.org\//i, "")
      : typeof work.id === "string"
        ? work.id
        : null;
  if (!title || !id) return null;
  const biblio: Json = typeof work.biblio === "object" && work.biblio !== null ? work.biblio : {};
  const first = typeof biblio.first_page === "string" ? biblio.first_page : null;
  const last = typeof biblio.last_page === "string" && biblio.last_page !== first ? biblio.last_page : null;
  return {
    doi: id,
    title: title
      .replace(/<[^>]*>/g, "")
      .replace(/\s+/g, " ")
      .trim(),
    authors: (Array.isArray(work.authorships) ? work.authorships : [])
      .map((a: Json) => a?.author?.display_name)
      .filter((name: unknown): name is string => typeof name === "string" && name.trim() !== ""),
    year: typeof work.publication_year === "number" ? work.publication_year : null,
    type: typeof work.type === "string" ? work.type : null,
    container:
      typeof work.primary_location?.source?.display_name === "string"
        ? work.primary_location.source.display_name
        : null,
    volume: typeof biblio.volume === "string" ? biblio.volume : null,
    issue: typeof biblio.issue === "string" ? biblio.issue : null,
    page: first ? (last ? `${first}-${last}` : first) : null,
  };
}
