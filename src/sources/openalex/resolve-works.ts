// Which of a page's works are our papers. OpenAlex says so for many (an arXiv or NBER DOI, an
// arXiv location: work.ts); for the rest the arXiv mirror is asked by DOI (the journal DOI an
// arXiv paper carries) when a chunk of 200 is fetched, then the reference resolver by title,
// authors and year against both mirrors, for a page's works only when the page is read (each is
// a few D1 queries: a whole chunk's would hold the database for a page nobody reads). Never an
// upstream. A match must verify as any reference would (resolve-score.ts).
import { arxivReaders } from "../../store/arxiv-shards";
import { mirrorIdsByDoi } from "../../store/arxiv-mirror-lookup";
import { mapLimited } from "../citations/map-limited";
import { resolveReference } from "../citations/resolve";
import type { GraphWork } from "./work";
import type { AppContext } from "../../context";

/** Title resolutions in flight at once: each is a few D1 queries. */
const RESOLVE_CONCURRENCY = 8;

const isUnknown = (work: GraphWork) => !work.arxiv_id && !work.nber_id;
const surname = (name: string) => name.trim().split(/\s+/).at(-1) ?? name;

/** When a chunk is fetched: the works whose DOI an arXiv paper in the mirror carries (one query per 90). */
export async function resolveByDoi(ctx: AppContext, works: readonly GraphWork[]): Promise<GraphWork[]> {
  const out = works.map((work) => ({ ...work }));
  const withDoi = out.filter((work) => isUnknown(work) && work.doi);
  if (withDoi.length === 0) return out;
  const byDoi = await mirrorIdsByDoi(
    arxivReaders(ctx, "primary"),
    withDoi.map((work) => work.doi!),
  );
  for (const work of withDoi) {
    const id = byDoi.get(work.doi!);
    if (id) Object.assign(work, { arxiv_id: id, matched_by: "its DOI on an arXiv paper in the mirror" });
  }
  return out;
}

/** When a page is read: its works still unknown, by title, authors and year in both mirrors. */
export async function resolveByTitle(ctx: AppContext, works: readonly GraphWork[]): Promise<GraphWork[]> {
  const out = works.map((work) => ({ ...work }));
  const titled = out.filter((work) => isUnknown(work) && work.title && work.title.split(/\s+/).length >= 3);
  await mapLimited(titled, RESOLVE_CONCURRENCY, async (work) => {
    const text = `${work.authors.join(", ")}${work.year ? ` (${work.year})` : ""}. ${work.title}.`;
    try {
      const resolution = await resolveReference(
        ctx,
        {
          text,
          fields: { title: work.title!, authors: work.authors.map(surname), ...(work.year ? { year: work.year } : {}) },
        },
        { maxMatches: 1, mirrorsOnly: true },
      );
      const match = resolution.matches[0];
      if (match)
        Object.assign(work, {
          [match.source === "arxiv" ? "arxiv_id" : "nber_id"]: match.id,
          matched_by: `title, authors and year in the ${match.source === "arxiv" ? "arXiv" : "NBER"} mirror`,
        });
    } catch {
      // A title the resolver cannot read stays unresolved: the work is still listed.
    }
  });
  return out;
}
