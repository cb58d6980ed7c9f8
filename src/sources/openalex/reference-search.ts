// OpenAlex as the resolver's second source outside the mirrors (when Crossref cannot be asked):
// works whose title matches the reference's title (filter=title.search:, one list call of the
// day's allowance). Only candidates: the resolver checks each against the reference's text.
import { decodeHTML } from "entities";
import { z } from "zod";
import { openAlexGet } from "./client";
import { openAlexWorkSchema } from "./work";
import type { AppContext } from "../../context";
import type { ExternalWork } from "../external-work";

/** A work as the resolver reads it. */

const CANDIDATES = 5;
const SELECT = "id,doi,title,display_name,publication_year,type,authorships,primary_location,biblio";

export async function openAlexTitleSearch(ctx: AppContext, title: string, deadline?: number): Promise<ExternalWork[]> {
  const params = new URLSearchParams({
    filter: `title.search:${title.slice(0, 300)}`,
    "per-page": String(CANDIDATES),
    select: SELECT,
  });
  const answer = (await openAlexGet(ctx, `/works?${params}`, "list", deadline)) as { results?: unknown } | null;
  const results = Array.isArray(answer?.results) ? answer.results : [];
  return results.slice(0, CANDIDATES).flatMap((raw) => {
    const work = toExternalWork(raw);
    return work ? [work] : [];
  });
}

const referenceWorkSchema = openAlexWorkSchema.extend({
  biblio: z
    .looseObject({
      volume: z.string().nullish(),
      issue: z.string().nullish(),
      first_page: z.string().nullish(),
      last_page: z.string().nullish(),
    })
    .nullish(),
});

/**
 * Where OpenAlex says the work appeared: its source, unless that is a repository (HAL, a
 * university's archive) or a placeholder, which say where a copy is kept, not where it was published.
 */
function venueOf(
  source: { display_name?: string | null | undefined; type?: string | null | undefined } | null | undefined,
) {
  const name = source?.display_name?.trim();
  if (!name || source?.type === "repository" || /^\(no title\)$/i.test(name)) return null;
  return decodeHTML(name);
}

function toExternalWork(raw: unknown): ExternalWork | null {
  const parsed = referenceWorkSchema.safeParse(raw);
  if (!parsed.success) return null;
  const work = parsed.data;
  const title = work.title ?? work.display_name;
  const id = work.doi ? work.doi.replace(/^https?:\/\/(dx\.)?doi\.org\//i, "") : work.id;
  if (!title) return null;
  const first = work.biblio?.first_page ?? null;
  const last = work.biblio?.last_page && work.biblio.last_page !== first ? work.biblio.last_page : null;
  return {
    doi: id,
    title: decodeHTML(title.replace(/<[^>]*>/g, ""))
      .replace(/\s+/g, " ")
      .trim(),
    authors: (work.authorships ?? []).flatMap((a) => (a.author?.display_name?.trim() ? [a.author.display_name] : [])),
    year: work.publication_year ?? null,
    type: work.type ?? null,
    container: venueOf(work.primary_location?.source),
    container_short: null,
    volume: work.biblio?.volume ?? null,
    issue: work.biblio?.issue ?? null,
    page: first ? (last ? `${first}-${last}` : first) : null,
    publisher: null,
  };
}
