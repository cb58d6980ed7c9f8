// Links across sources, each with how it was found: an arXiv paper's journal DOI and DataCite
// DOI; an NBER paper's own DOI, its published version's DOI, and its arXiv version when the
// arXiv mirror holds one (a title and author match, the resolver's threshold).
import { z } from "zod";
import { mirrorStateOf } from "../../store/arxiv-mirror-state";
import type { ArxivPaper } from "../arxiv/paper";
import type { NberPaperInfo } from "../nber/paper";
import { splitName } from "./names";
import { ARXIV_DOI_PREFIX, NBER_DOI_PREFIX } from "./record";
import { cleanDoi } from "./identifiers";
import { referenceInput, resolveReference } from "./resolve";
import type { AppContext } from "../../context";

export const linkSchema = z.object({
  kind: z.enum(["journal_doi", "arxiv_doi", "nber_doi", "published_doi", "arxiv_version"]),
  source: z.string(),
  id_or_doi: z.string(),
  how: z.string(),
});
export type Link = z.infer<typeof linkSchema>;

export function arxivLinks(paper: ArxivPaper): Link[] {
  const links: Link[] = [];
  for (const doi of (paper.doi ?? "").split(/\s+/).filter(Boolean)) {
    links.push({
      kind: "journal_doi",
      source: "doi",
      id_or_doi: doi,
      how: "the DOI arXiv's metadata gives for the published version",
    });
  }
  links.push({
    kind: "arxiv_doi",
    source: "datacite",
    id_or_doi: `${ARXIV_DOI_PREFIX}${paper.base_id}`,
    how: "arXiv's DataCite DOI, which every arXiv ID has",
  });
  return links;
}

export async function nberLinks(ctx: AppContext, info: NberPaperInfo): Promise<{ links: Link[]; notices: string[] }> {
  const links: Link[] = [];
  const notices: string[] = [];
  const own = info.doi ?? (info.id.startsWith("w") ? `${NBER_DOI_PREFIX}${info.id}` : null);
  if (own)
    links.push({
      kind: "nber_doi",
      source: "doi",
      id_or_doi: own,
      how: info.doi ? "the paper page's citation_doi" : "NBER's DOI pattern 10.3386/w<number>",
    });
  const published = /\b(10\.\d{4,9}\/[^\s"<>]+)/.exec(info.published_version ?? "");
  if (published)
    links.push({
      kind: "published_doi",
      source: "doi",
      id_or_doi: cleanDoi(published[1]!),
      how: "the DOI in the page's Published Versions",
    });

  // The arXiv version: only from a whole mirror (never a search sent to arXiv for this).
  const mirrorEnabled = ctx.config.ARXIV_MIRROR_ENABLED;
  if (mirrorEnabled && (await mirrorStateOf(ctx)).ready) {
    const year = Number(info.date?.slice(0, 4)) || undefined;
    const resolution = await resolveReference(
      ctx,
      referenceInput({
        title: info.title,
        authors: info.authors.map((name) => splitName(name).family),
        ...(year ? { year } : {}),
      }),
      { sources: ["arxiv"], external: false },
    );
    const match = resolution.matches[0];
    if (match) {
      links.push({
        kind: "arxiv_version",
        source: "arxiv",
        id_or_doi: match.id,
        how:
          `title and authors match in the arXiv mirror (confidence ${match.confidence}, title ` +
          `${match.agreed.title}, surnames ${match.agreed.surnames_matched})`,
      });
    }
  } else if (mirrorEnabled) {
    notices.push("No arXiv version was looked for: the arXiv mirror is not ready.");
  }
  return { links, notices };
}
