// arxiv://paper/{paperId}: one paper's metadata. The ID is percent-decoded, so a legacy ID's
// slash travels as %2F (arxiv://paper/hep-th%2F9901001).
import { PapersError } from "../../errors";
import { getMetadata } from "../../sources/arxiv/lookup";
import { shortenAuthors } from "../../sources/arxiv/paper";
import { withCitationCounts } from "../../sources/openalex/counts";
import { arxivDoi } from "../../sources/openalex/target";
import { defineResource } from "../resource";

export const arxivPaper = defineResource({
  name: "arxiv-paper",
  uri: "arxiv://paper/{paperId}",
  title: "arXiv paper",
  description: "Metadata of one arXiv paper, e.g. arxiv://paper/2401.12345 or arxiv://paper/hep-th%2F9901001",
  badEncoding: { reason: "invalid_id", recovery: "Percent-encode the ID (a slash as %2F)." },
  read: async ({ variables }, context) => {
    const paperId = variables["paperId"] ?? "";
    if (paperId.trim() === "")
      throw new PapersError("empty_id", "The resource URI names no paper.", {
        recovery: "Use arxiv://paper/<id>, e.g. arxiv://paper/2401.12345.",
      });
    const { papers } = await getMetadata(context, [paperId]);
    // A collaboration's author list is shortened here too; arxiv_get_metadata with full_authors gives it whole.
    if (!papers[0]) return undefined;
    const [paper] = await withCitationCounts(
      context,
      [shortenAuthors(papers[0])],
      (p) => [arxivDoi(p.base_id), p.doi],
      {
        live: 1,
      },
    );
    return paper;
  },
});
