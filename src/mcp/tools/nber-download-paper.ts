import { z } from "zod";
import { ensureNberPdf } from "../../sources/nber/download";
import { requireNberId } from "../../sources/nber/info";
import { defineTool } from "../tool";

export const nberDownloadPaper = defineTool({
  name: "nber_download_paper",
  title: "Download an NBER paper",
  useWhen: "hand a user an NBER paper's PDF (a link to this server's copy).",
  description:
    "Stores an NBER paper's PDF (fetched once): an HTTPS link, size and sha256. New papers may be not_downloadable_now.",
  input: z.object({ paper_id: z.string().min(1).max(300).describe("w25000, 25000 or nber.org link") }),
  output: z.object({
    paper_id: z.string(),
    url: z.string(),
    filename: z.string(),
    content_type: z.string(),
    size: z.number(),
    sha256: z.string(),
    stored_at: z.string(),
    served_from: z.enum(["cache", "live"]),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true, idempotentHint: true },
  errors: [
    { reason: "invalid_id", when: "paper_id is not an NBER number" },
    { reason: "no_match", when: "NBER has no such paper or no PDF of it" },
    { reason: "not_downloadable_now", when: "NBER withholds the PDF (its first week, or subscribers only)" },
    { reason: "content_too_large", when: "the PDF is over NBER_MAX_PDF_BYTES" },
    { reason: "rate_limited", when: "this client's limit, or the upstream's, was hit" },
    { reason: "upstream_unavailable", when: "the upstream is down and no mirror or cache holds the answer" },
    { reason: "upstream_malformed", when: "the upstream answered something unreadable" },
    { reason: "timeout", when: "the call ran out of its time budget" },
    { reason: "server_busy", when: "the server's PDF memory is taken by other reads" },
  ],
  async handler({ paper_id }, context) {
    const id = requireNberId(paper_id);
    const pdf = await ensureNberPdf(context, id);
    const base = context.config.PUBLIC_BASE_URL ?? context.origin;
    return {
      paper_id: id.id,
      url: `${base}/files/nber/${id.id}.pdf`,
      filename: `${id.id}.pdf`,
      content_type: "application/pdf",
      size: pdf.size,
      sha256: pdf.sha256,
      stored_at: pdf.storedAt,
      served_from: pdf.servedFrom,
    };
  },
  render: (r) => `${r.filename}: ${r.size} bytes, sha256 ${r.sha256} (${r.served_from})\n${r.url}`,
  links: (r) => [{ type: "resource_link", uri: r.url, name: r.filename, mimeType: r.content_type, size: r.size }],
});
