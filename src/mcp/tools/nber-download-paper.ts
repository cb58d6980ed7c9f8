import { z } from "zod";
import { loadConfig } from "../../config";
import { ensureNberPdf } from "../../sources/nber/download";
import { requireNberId } from "../../sources/nber/info";
import { defineTool } from "../tool";

export const nberDownloadPaper = defineTool({
  name: "nber_download_paper",
  title: "Download an NBER paper",
  description:
    "Stores an NBER paper's PDF (fetched once) and returns an HTTPS link to it with size and sha256. Brand-new papers may be not_downloadable_now.",
  input: z.object({ paper_id: z.string().min(1).max(300) }),
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
    "invalid_id",
    "no_match",
    "not_downloadable_now",
    "content_too_large",
    "rate_limited",
    "upstream_unavailable",
    "upstream_malformed",
    "timeout",
    "server_busy",
  ],
  async handler({ paper_id }, { env, origin }) {
    const id = requireNberId(paper_id);
    const pdf = await ensureNberPdf(env, id);
    const base = loadConfig(env).PUBLIC_BASE_URL ?? origin;
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
