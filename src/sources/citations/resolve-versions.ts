// The other versions of a matched work, so that an answer names both when a work is a journal
// article and an arXiv or NBER paper: an arXiv paper's journal DOI and DataCite DOI; an NBER
// paper's DOI, and when the reference cites it as a journal article, the published version its
// NBER page gives (from the page cache: a page nber_get_paper_info has read; none is fetched
// here); for a Crossref or OpenAlex work the arXiv paper whose journal DOI it is (one indexed
// lookup in the mirror, made only for such matches) or the NBER paper its 10.3386 DOI is. The
// lookups run together, after the match: one round trip, and none for most matches.
import { mirrorIdsByDoi } from "../../store/arxiv-mirror-lookup";
import { mirrorStateOf } from "../../store/arxiv-mirror-state";
import { arxivReaders } from "../../store/arxiv-shards";
import { cachedInfos } from "../../store/nber-cache";
import { cleanDoi } from "./identifiers";
import type { JournalRef } from "../../search/journal-ref";
import { ARXIV_DOI_PREFIX, NBER_DOI_PREFIX } from "./record";
import type { Candidate } from "./resolve-score";
import type { AppContext } from "../../context";

export interface OtherVersion {
  source: "arxiv" | "nber" | "doi";
  id: string;
  how: string;
}

/** `cited`: the reference's journal references, as the resolver parsed them (once per reference). */
export async function withOtherVersions(
  ctx: AppContext,
  matches: Candidate[],
  cited: readonly JournalRef[],
): Promise<Candidate[]> {
  const outside = matches.filter((m) => (m.source === "crossref" || m.source === "openalex") && m.doi);
  const journal = cited[0];
  const citesJournal = journal !== undefined && !/\bnber\b|national bureau/i.test(journal.journal);
  const nberIds = citesJournal ? matches.filter((m) => m.source === "nber").map((m) => m.id) : [];
  const [arxivByDoi, nberPages] = await Promise.all([
    outside.length > 0 && ctx.config.ARXIV_MIRROR_ENABLED && (await mirrorStateOf(ctx)).ready
      ? mirrorIdsByDoi(
          arxivReaders(ctx),
          outside.map((m) => m.doi!),
        )
      : new Map<string, string>(),
    cachedInfos<{ published_version?: string }>(ctx.env.DB, nberIds),
  ]);
  return matches.map((match) => {
    const also = otherVersions(match, arxivByDoi);
    const published = /\b(10\.\d{4,9}\/[^\s"<>]+)/.exec(nberPages.get(match.id)?.published_version ?? "")?.[1];
    if (match.source === "nber" && published)
      also.push({ source: "doi", id: cleanDoi(published), how: "the published version (NBER's paper page, cached)" });
    return also.length > 0 ? { ...match, also } : match;
  });
}

function otherVersions(match: Candidate, arxivByDoi: Map<string, string>): OtherVersion[] {
  switch (match.source) {
    case "arxiv":
      return [
        ...(match.doi ?? "")
          .split(/\s+/)
          .filter(Boolean)
          .map((doi) => ({ source: "doi" as const, id: doi, how: "the published version (arXiv's metadata)" })),
        { source: "doi", id: `${ARXIV_DOI_PREFIX}${match.id}`, how: "arXiv's DataCite DOI" },
      ];
    case "nber":
      return [{ source: "doi", id: `${NBER_DOI_PREFIX}${match.id}`, how: "NBER's DOI for the working paper" }];
    default: {
      const doi = match.doi?.toLowerCase() ?? "";
      const arxiv = arxivByDoi.get(doi) ?? /^10\.48550\/arxiv\.(.+)$/.exec(doi)?.[1];
      if (arxiv)
        return [
          { source: "arxiv", id: arxiv, how: "the arXiv paper whose journal DOI this is (the arXiv mirror)" },
          { source: "doi", id: `${ARXIV_DOI_PREFIX}${arxiv}`, how: "arXiv's DataCite DOI" },
        ];
      const nber = /^10\.3386\/(w\d+)$/.exec(doi)?.[1];
      if (nber) return [{ source: "nber", id: nber, how: "the NBER working paper this DOI registers" }];
      return [];
    }
  }
}
