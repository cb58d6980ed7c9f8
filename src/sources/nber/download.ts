// NBER PDFs: fetched once through the NBER gate into R2 (key from the validated ID), then served
// from there. A failed fetch leaves nothing behind (an R2 put is atomic); every call is logged.
import { PapersError } from "../../errors";
import { nberPdfKey } from "../../store/blobs";
import { logDownload } from "../../store/nber-logs";
import { politeFetch, readBytesCapped } from "../../upstream/fetch";
import { withPdfMemory } from "../text/pdf-memory";
import type { NberId } from "./ids";
import type { AppContext } from "../../context";

export interface StoredPdfInfo {
  size: number;
  sha256: string;
  storedAt: string;
  servedFrom: "cache" | "live";
}

export interface StoredPdf extends StoredPdfInfo {
  bytes: Uint8Array;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The PDF is in R2 (fetched now if it was not), described without reading it: a cached copy costs
 * one metadata read, not the whole object in memory (nber_download_paper hands out a link).
 */
export async function ensureNberPdf(ctx: AppContext, id: NberId, deadline?: number): Promise<StoredPdfInfo> {
  const key = nberPdfKey(id);
  const head = await ctx.env.BLOBS.head(key);
  if (head) {
    // Objects stored before the digest was kept in their metadata: digest the stream, never a buffer.
    const sha256 = head.customMetadata?.["sha256"] ?? (await streamedSha256(ctx, key));
    await logDownload(ctx.env.DB, { paperId: id.id, status: "cached", size: head.size, sha256 });
    return { size: head.size, sha256, storedAt: head.uploaded.toISOString(), servedFrom: "cache" };
  }
  // The body is held while it is digested and stored: it counts against the isolate's PDF budget.
  const cap = ctx.config.NBER_MAX_PDF_BYTES;
  const { bytes: _bytes, ...info } = await withPdfMemory(
    cap,
    { extract: false, deadline: deadline ?? Date.now() + ctx.config.NBER_TIMEOUT_MS },
    () => downloadNberPdf(ctx, id, deadline),
  );
  return info;
}

async function streamedSha256(ctx: AppContext, key: string): Promise<string> {
  const object = await ctx.env.BLOBS.get(key);
  if (!object)
    throw new PapersError("upstream_unavailable", "The stored PDF disappeared while it was read.", {
      retryable: true,
      recovery: "Retry.",
    });
  const digest = new crypto.DigestStream("SHA-256");
  await object.body.pipeTo(digest);
  return [...new Uint8Array(await digest.digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The PDF's bytes (for its text), from R2 or fetched once into it. The caller holds the PDF budget (pdf-memory.ts). */
export async function fetchNberPdf(ctx: AppContext, id: NberId, deadline?: number): Promise<StoredPdf> {
  const key = nberPdfKey(id);
  const stored = await ctx.env.BLOBS.get(key);
  if (stored) {
    const bytes = new Uint8Array(await stored.arrayBuffer());
    const sha256 = stored.customMetadata?.["sha256"] ?? (await sha256Hex(bytes));
    await logDownload(ctx.env.DB, { paperId: id.id, status: "cached", size: bytes.byteLength, sha256 });
    return { bytes, size: bytes.byteLength, sha256, storedAt: stored.uploaded.toISOString(), servedFrom: "cache" };
  }
  return downloadNberPdf(ctx, id, deadline);
}

async function downloadNberPdf(ctx: AppContext, id: NberId, deadline?: number): Promise<StoredPdf> {
  const key = nberPdfKey(id);
  try {
    const response = await politeFetch(ctx, "nber", `/papers/${id.id}.pdf`, {
      retries: 2,
      passStatuses: [403, 404],
      ...(deadline === undefined ? {} : { deadline }),
    });
    if (response.status === 403) {
      await response.body?.cancel();
      throw new PapersError(
        "not_downloadable_now",
        `NBER refused the PDF of ${id.id} (HTTP 403): new papers are restricted during their first week, and some only to subscribers.`,
        {
          retryable: true,
          recovery:
            "Try again in a few days, or open the paper page on nber.org; nber_get_paper_info still gives the abstract.",
        },
      );
    }
    if (response.status === 404) {
      await response.body?.cancel();
      throw new PapersError("no_match", `NBER has no PDF for ${id.id}.`, {
        recovery: "Check the ID with nber_get_paper_info or nber_search_papers.",
      });
    }
    const bytes = await readBytesCapped(
      response,
      ctx.config.NBER_MAX_PDF_BYTES,
      "content_too_large",
      `NBER's PDF of ${id.id}`,
    );
    if (new TextDecoder().decode(bytes.subarray(0, 5)) !== "%PDF-") {
      throw new PapersError(
        "upstream_malformed",
        `NBER answered the PDF request for ${id.id} with something that is not a PDF.`,
        {
          retryable: true,
          recovery: "Retry later; NBER may be showing a bot check.",
        },
      );
    }
    const sha256 = await sha256Hex(bytes);
    await ctx.env.BLOBS.put(key, bytes, {
      httpMetadata: { contentType: "application/pdf" },
      customMetadata: { sha256 },
    });
    await logDownload(ctx.env.DB, { paperId: id.id, status: "stored", size: bytes.byteLength, sha256 });
    return { bytes, size: bytes.byteLength, sha256, storedAt: new Date().toISOString(), servedFrom: "live" };
  } catch (error) {
    const status =
      error instanceof PapersError && error.reason === "not_downloadable_now" ? "not_downloadable_now" : "failed";
    await logDownload(ctx.env.DB, {
      paperId: id.id,
      status,
      error: error instanceof PapersError ? `${error.reason}: ${error.message}` : "internal_error",
    });
    throw error;
  }
}
