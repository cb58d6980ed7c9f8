// nber://paper/{paperId}: an NBER paper's info (the same record nber_get_paper_info returns).
import { PapersError } from "../../errors";
import { getNberPaperInfo } from "../../sources/nber/info";
import { withCitationCounts } from "../../sources/openalex/counts";
import { nberDoi } from "../../sources/openalex/target";
import { defineResource } from "../resource";

export const nberPaper = defineResource({
  name: "nber-paper",
  uri: "nber://paper/{paperId}",
  title: "NBER paper",
  description: "An NBER working paper's info, e.g. nber://paper/w25000",
  badEncoding: { reason: "invalid_id", recovery: "Use nber://paper/w25000." },
  read: async ({ variables }, context) => {
    const paperId = variables["paperId"] ?? "";
    if (paperId.trim() === "")
      throw new PapersError("empty_id", "The resource URI names no paper.", { recovery: "Use nber://paper/w25000." });
    const info = await getNberPaperInfo(context, paperId, { includeAll: true, refresh: false });
    const [counted] = await withCitationCounts(context, [info], (paper) => [nberDoi(paper.id), paper.doi], { live: 1 });
    return counted;
  },
});
