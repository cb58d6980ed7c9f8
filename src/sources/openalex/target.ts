// What papers_citations is asked about: an arXiv paper (any ID spelling), an NBER working paper,
// or any DOI. Each becomes the DOI OpenAlex finds it by: arXiv's DataCite DOI 10.48550/arXiv.<id>,
// NBER's 10.3386/w<n>, or the DOI itself.
import { PapersError } from "../../errors";
import { formatId, parseArxivId } from "../arxiv/ids";
import { cleanDoi } from "../citations/identifiers";
import { parseNberId } from "../nber/ids";
import { ARXIV_DOI_PREFIX } from "../../store/held-works";

export interface CitationTarget {
  source: "arxiv" | "nber" | "doi";
  /** The paper as we name it: 2007.14454, w4679, or the DOI. */
  id: string;
  /** Lower-case DOI, without a resolver prefix. */
  doi: string;
}

const DOI = /^10\.\d{4,9}\/\S+$/;

export function arxivDoi(baseId: string): string {
  return `${ARXIV_DOI_PREFIX}${baseId.toLowerCase()}`;
}

export function nberDoi(nberId: string): string {
  return `10.3386/${nberId.toLowerCase()}`;
}

export function parseCitationTarget(raw: string): CitationTarget {
  const arxiv = parseArxivId(raw);
  if (arxiv.ok) {
    const id = formatId(arxiv.id, false);
    return { source: "arxiv", id, doi: arxivDoi(id) };
  }
  const doi = cleanDoi(raw.trim()).toLowerCase();
  if (DOI.test(doi)) return { source: "doi", id: doi, doi };
  const nber = parseNberId(raw);
  if (nber.ok) return { source: "nber", id: nber.id.id, doi: nberDoi(nber.id.id) };
  throw new PapersError(
    "invalid_id",
    `${JSON.stringify(raw.slice(0, 80))} is not an arXiv ID, an NBER number or a DOI.`,
    {
      recovery:
        "Give an arXiv ID (2007.14454, hep-th/9901001, an arxiv.org link), an NBER number (w4679) or a DOI (10.1145/...).",
    },
  );
}
