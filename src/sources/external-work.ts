// A work outside arXiv and NBER as Crossref or OpenAlex describes it: what the resolver checks
// a reference against, and what a verified match reports of where the work was published.
import type { PersonName } from "./citations/names";

export interface ExternalWork {
  /** The DOI (lower case as the source gives it), or OpenAlex's ID for a work without one. */
  doi: string;
  title: string;
  authors: string[];
  /** The authors' names in parts, when the source gives them so (Crossref's given and family). */
  people?: PersonName[];
  year: number | null;
  /** Every year the source dates it by (issued, print, online), the first being `year`. */
  years?: number[];
  type: string | null;
  /** Journal or proceedings title, and its abbreviation when the source has one. */
  container: string | null;
  container_short: string | null;
  /** Every name the source gives the container (a chapter's book and its series). */
  containers?: string[];
  volume: string | null;
  issue: string | null;
  /** Pages ("317-335") or the article number. */
  page: string | null;
  publisher: string | null;
}
