// nber_read_paper's engine: the PDF (from R2, or fetched once), its text by unpdf page by page,
// the extracted document cached in R2.
import { getJson, nberPdfKey, nberTextKey, putJson } from "../../store/blobs";
import type { ExtractedDocument } from "../text/document";
import { pdfToDocument } from "../text/pdf";
import { completeStructure } from "../text/pdf-structure";
import { passageKey, warmPassageIndex } from "../text/passages";
import { noProgress, throttled, type ReportProgress } from "../../progress";
import { withPdfMemory } from "../text/pdf-memory";
import { fetchNberPdf } from "./download";
import { requireNberId } from "./info";
import { paperUrl } from "./paper";
import type { AppContext } from "../../context";

export async function loadNberDocument(
  ctx: AppContext,
  paperId: string,
  reportProgress: ReportProgress = noProgress,
): Promise<{ id: string; document: ExtractedDocument; servedFrom: "cache" | "live"; cachedAt?: string }> {
  const id = requireNberId(paperId);
  const stored = await getJson<ExtractedDocument>(ctx.env.BLOBS, nberTextKey(id.id));
  if (stored)
    return { id: id.id, document: completeStructure(stored.value), servedFrom: "cache", cachedAt: stored.storedAt };
  const config = ctx.config;
  const progress = throttled(reportProgress);
  progress("fetching the PDF", 1);
  // The PDF's memory comes from the isolate's budget before it is read: its stored size, else the cap.
  const deadline = Date.now() + config.NBER_READ_TIMEOUT_MS;
  const size = (await ctx.env.BLOBS.head(nberPdfKey(id)))?.size ?? config.NBER_MAX_PDF_BYTES;
  const document = await withPdfMemory(size, { extract: true, deadline }, async () => {
    const pdf = await fetchNberPdf(ctx, id, deadline);
    progress(`PDF ${(pdf.bytes.byteLength / 1_048_576).toFixed(1)} MB fetched`, 2);
    return pdfToDocument(
      pdf.bytes,
      {
        maxPages: config.NBER_READ_MAX_PDF_PAGES,
        maxChars: config.NBER_READ_MAX_TEXT_CHARS,
        onPage: (page, pages) => progress(`page ${page} of ${pages} extracted`, 2 + page, 2 + pages),
      },
      `Open ${paperUrl(id.id)} in a browser.`,
    );
  });
  warmPassageIndex(passageKey(id.id, "pdf_text"), document.text);
  await putJson(ctx.env.BLOBS, nberTextKey(id.id), document);
  return { id: id.id, document, servedFrom: "live" };
}
