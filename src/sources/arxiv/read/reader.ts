// arxiv_read_paper's engine: resolve the version, then arxiv.org HTML -> ar5iv -> PDF text, all
// inside one time budget, with the extracted document cached in R2 per (id, version, source).
import { arxivReaders } from "../../../store/arxiv-shards";
import { PapersError } from "../../../errors";
import { readRecent, rememberRecent } from "./recent-documents";
import { arxivPdfKey, arxivTextKey, getBytes, putBytes, putJson, type TextSource } from "../../../store/blobs";
import { politeFetch, readBytesCapped } from "../../../upstream/fetch";
import { announcedSize, withPdfMemory } from "../../text/pdf-memory";
import { mirrorLookup } from "../../../store/arxiv-mirror-lookup";
import { lookupArxivIds } from "../api";
import { formatId, parseArxivId, type ArxivId } from "../ids";
import { PUBLIC_ARXIV } from "../paper";
import type { ExtractedDocument } from "../../text/document";
import { htmlToDocument } from "./html";
import { pdfToDocument } from "../../text/pdf";
import { completeStructure } from "../../text/pdf-structure";
import { passageKey, warmPassageIndex } from "../../text/passages";
import { noProgress, throttled, type ReportProgress } from "../../../progress";
import type { AppContext } from "../../../context";

export interface Attempt {
  source: TextSource;
  outcome: string;
}

export interface LoadedDocument {
  document: ExtractedDocument;
  source: TextSource;
  /** The ID read: with a version whenever it is known. */
  resolvedId: string;
  revisionUnconfirmed: boolean;
  servedFrom: "live" | "cache";
  cachedAt?: string;
  notices: string[];
}

interface StoredDocument extends ExtractedDocument {
  source: TextSource;
  /** arXiv's metadata listed v1 as the only version when this was read (so an ar5iv render is v1). */
  only_version_is_v1: boolean;
}

/**
 * ar5iv keeps one render per paper, of whichever revision it converted. It counts as the revision
 * asked for only when no version was asked and arXiv lists v1 as the only one.
 */
const revisionUnconfirmed = (source: TextSource, requestedVersion: number | undefined, onlyV1: boolean) =>
  source === "ar5iv" && !(requestedVersion === undefined && onlyV1);

const SOURCES: readonly TextSource[] = ["arxiv_html", "ar5iv", "pdf_text"];

export { clearRecentDocuments } from "./recent-documents";

export async function loadArxivDocument(
  ctx: AppContext,
  paperId: string,
  reportProgress: ReportProgress = noProgress,
): Promise<LoadedDocument> {
  const config = ctx.config;
  const deadline = Date.now() + config.ARXIV_READ_TIMEOUT_MS;
  const parsed = parseArxivId(paperId);
  if (!parsed.ok) {
    throw new PapersError("invalid_id", `${JSON.stringify(parsed.input)} is ${parsed.problem}.`, {
      recovery: "Use an ID like 2401.12345, 2401.12345v2, hep-th/9901001, arXiv:... or an arxiv.org abs/pdf/html link.",
    });
  }
  const id = parsed.id;
  const notices: string[] = [];
  const { version, onlyVersionIsV1 } = await resolveVersion(ctx, id, deadline, notices);
  const resolved: ArxivId = version === undefined ? { ...id } : { ...id, version };
  const resolvedId = formatId(resolved);
  const cacheable = version !== undefined;
  if (cacheable) {
    const cached = await cachedDocument(ctx, id, resolvedId, onlyVersionIsV1, notices);
    if (cached) return cached;
  }
  const read: LiveRead = {
    ctx,
    id,
    resolvedId,
    cacheable,
    deadline,
    progress: throttled(reportProgress),
    tried: [],
  };
  const found = (await fromHtml(read)) ?? (await fromPdf(read));
  if (!found) return noText(read);
  warmPassageIndex(passageKey(resolvedId, found.source), found.document.text);
  if (cacheable) {
    const stored: StoredDocument = { ...found.document, source: found.source, only_version_is_v1: onlyVersionIsV1 };
    await putJson(ctx.env.BLOBS, arxivTextKey(resolvedId, found.source), stored);
    rememberRecent(arxivTextKey(resolvedId, found.source), { value: stored, storedAt: new Date().toISOString() });
  }
  return {
    document: found.document,
    source: found.source,
    resolvedId,
    revisionUnconfirmed: revisionUnconfirmed(found.source, id.version, onlyVersionIsV1),
    servedFrom: "live",
    notices,
  };
}

/**
 * Which version is "the paper": a versioned ID says so; otherwise arXiv's metadata does (the
 * lookup counts against the read's budget), or, when arXiv's API cannot be asked, the mirror's
 * latest, or none (the latest is read without its number, and not cached).
 */
async function resolveVersion(
  ctx: AppContext,
  id: ArxivId,
  deadline: number,
  notices: string[],
): Promise<{ version: number | undefined; onlyVersionIsV1: boolean }> {
  if (id.version !== undefined) return { version: id.version, onlyVersionIsV1: false };
  const config = ctx.config;
  const outcome = (await lookupArxivIds(ctx, [id], Math.min(deadline, Date.now() + config.ARXIV_API_TIMEOUT_MS))).get(
    formatId(id),
  );
  if (outcome?.kind === "found")
    return { version: outcome.paper.version, onlyVersionIsV1: outcome.paper.version === 1 };
  if (outcome?.kind === "not_in_arxiv") {
    throw new PapersError("no_match", `arXiv has no paper ${id.base}.`, {
      recovery: "Check the ID, or find the paper with arxiv_search_papers.",
    });
  }
  // arXiv's API is unreachable or rate-limited: the mirror's latest version will do.
  const held = config.ARXIV_MIRROR_ENABLED
    ? await mirrorLookup(arxivReaders(ctx, "primary"), [id.base]).catch(() => undefined)
    : undefined;
  const paper = held?.get(id.base);
  if (paper) {
    notices.push(
      `arXiv's metadata could not be read just now; reading v${paper.version}, the latest version the ` +
        `metadata mirror holds (it can trail arXiv's by a day).`,
    );
    return { version: paper.version, onlyVersionIsV1: paper.version === 1 };
  }
  notices.push(
    "arXiv's metadata could not be read just now, so the latest version is read without knowing its number; it is not cached.",
  );
  return { version: undefined, onlyVersionIsV1: false };
}

/** The text R2 holds for this revision, from the first source that has it (nothing is fetched). */
async function firstStored(ctx: AppContext, resolvedId: string) {
  for (const source of SOURCES) {
    const stored = await readRecent<StoredDocument>(ctx.env.BLOBS, arxivTextKey(resolvedId, source));
    if (stored) return { stored, source };
  }
  return null;
}

/** The text cached for a versioned ID, or null: the paper's web page shows it, never starting a read. */
export async function cachedArxivText(ctx: AppContext, versionedId: string) {
  const found = await firstStored(ctx, versionedId);
  return found && { text: found.stored.value.text, source: found.source, cachedAt: found.stored.storedAt };
}

async function cachedDocument(
  ctx: AppContext,
  id: ArxivId,
  resolvedId: string,
  onlyVersionIsV1: boolean,
  notices: string[],
): Promise<LoadedDocument | null> {
  const found = await firstStored(ctx, resolvedId);
  if (!found) return null;
  const { source: _s, only_version_is_v1, ...cachedDocument } = found.stored.value;
  return {
    document: completeStructure(cachedDocument),
    source: found.source,
    resolvedId,
    revisionUnconfirmed: revisionUnconfirmed(found.source, id.version, onlyVersionIsV1 || only_version_is_v1),
    servedFrom: "cache",
    cachedAt: found.stored.storedAt,
    notices,
  };
}

/** A read from the upstreams: what it reads, its budget, and what each source answered. */
interface LiveRead {
  ctx: AppContext;
  id: ArxivId;
  resolvedId: string;
  cacheable: boolean;
  deadline: number;
  progress: ReturnType<typeof throttled>;
  tried: Attempt[];
}

type Found = { document: ExtractedDocument; source: TextSource };

function checkBudget(read: LiveRead): void {
  if (read.deadline - Date.now() <= 0) throw outOfTime(read);
}

/** The read ran out of its budget: what was tried, and that a retry goes further. */
function outOfTime({ ctx, resolvedId, tried }: LiveRead): PapersError {
  return new PapersError(
    "timeout",
    `Reading ${resolvedId} ran out of its ${ctx.config.ARXIV_READ_TIMEOUT_MS / 1000} s budget. Tried: ${describe(tried)}.`,
    {
      retryable: true,
      recovery: "Retry: what was fetched is cached, so the next attempt goes further.",
    },
  );
}

/** 1. arxiv.org/html (LaTeXML); 2. ar5iv: one render per paper, any revision (a 307 means "not converted"). */
async function fromHtml(read: LiveRead): Promise<Found | undefined> {
  const { ctx, id, resolvedId, deadline, progress, tried } = read;
  const htmlLimits = { maxBytes: ctx.config.ARXIV_READ_MAX_HTML_BYTES, maxChars: ctx.config.ARXIV_READ_MAX_TEXT_CHARS };
  checkBudget(read);
  const html = await tryFetch(tried, "arxiv_html", () =>
    politeFetch(ctx, "arxiv-content", `/html/${resolvedId}`, {
      deadline,
      manualRedirect: true,
      passStatuses: [404, 410],
    }),
  );
  if (html) {
    progress("arXiv HTML fetched; extracting its text", 1);
    const found = await tryHtml(tried, "arxiv_html", html, htmlLimits);
    if (found) return found;
  }
  checkBudget(read);
  const ar5iv = await tryFetch(tried, "ar5iv", () =>
    politeFetch(ctx, "ar5iv", `/html/${id.base}`, { deadline, manualRedirect: true, passStatuses: [404, 410] }),
  );
  if (!ar5iv) return undefined;
  progress("ar5iv HTML fetched; extracting its text", 2);
  return tryHtml(tried, "ar5iv", ar5iv, htmlLimits);
}

/**
 * 3. The PDF of exactly this revision (kept in R2), its text by unpdf; its memory is taken from the isolate's
 * budget first (pdf-memory.ts).
 */
async function fromPdf(read: LiveRead): Promise<Found | undefined> {
  const { ctx, resolvedId, cacheable, deadline, progress, tried } = read;
  const config = ctx.config;
  checkBudget(read);
  let found: Found | undefined;
  const extract = async (bytes: Uint8Array) => {
    checkBudget(read);
    const document = await pdfToDocument(
      bytes,
      {
        maxPages: config.ARXIV_READ_MAX_PDF_PAGES,
        maxChars: config.ARXIV_READ_MAX_TEXT_CHARS,
        onPage: (page, pages) => progress(`page ${page} of ${pages} extracted`, 4 + page, 4 + pages),
      },
      `Open ${PUBLIC_ARXIV}/abs/${resolvedId} for other formats; no HTML render exists for this paper.`,
    );
    found = { document, source: "pdf_text" };
    tried.push({ source: "pdf_text", outcome: "ok" });
  };
  const stored = cacheable ? await ctx.env.BLOBS.head(arxivPdfKey(resolvedId)) : null;
  if (stored) {
    await withPdfMemory(stored.size, { extract: true, deadline }, async () => {
      const bytes = await getBytes(ctx.env.BLOBS, arxivPdfKey(resolvedId));
      if (bytes) await extract(bytes);
    });
  }
  if (found) return found;
  const response = await tryFetch(tried, "pdf_text", () =>
    politeFetch(ctx, "arxiv-content", `/pdf/${resolvedId}`, { deadline, passStatuses: [404, 410] }),
  );
  if (!response) return undefined;
  const cap = config.ARXIV_READ_MAX_PDF_BYTES;
  try {
    await withPdfMemory(announcedSize(response, cap), { extract: true, deadline }, async () => {
      progress("fetching the PDF", 3);
      const bytes = await readBytesCapped(response, cap, "content_too_large", "arXiv's PDF");
      progress(`PDF ${(bytes.byteLength / 1_048_576).toFixed(1)} MB fetched`, 4);
      if (cacheable) await putBytes(ctx.env.BLOBS, arxivPdfKey(resolvedId), bytes, "application/pdf");
      await extract(bytes);
    });
  } catch (error) {
    await response.body?.cancel().catch(() => undefined); // unread when the budget never came free
    throw error;
  }
  return found;
}

/** No source gave text: why, as precisely as the sources said (a missing version, a timeout, no text at all). */
async function noText(read: LiveRead): Promise<never> {
  const { ctx, id, resolvedId, deadline, tried } = read;
  if (id.version !== undefined) {
    const latest = (await lookupArxivIds(ctx, [{ ...id, version: undefined }], deadline).catch(() => undefined))?.get(
      id.base,
    );
    if (latest?.kind === "found" && latest.paper.version < id.version) {
      throw new PapersError(
        "version_unavailable",
        `${resolvedId} does not exist; the latest version is ${latest.paper.id}.`,
        {
          recovery: `Read ${latest.paper.id}, or ${id.base} for the latest.`,
        },
      );
    }
  }
  // A source that could not answer in time is no evidence that the paper has no text: the
  // read ran out of time (the gate may have refused to spend a slot on a doomed request).
  if (tried.some((attempt) => attempt.outcome.startsWith("timeout:"))) throw outOfTime(read);
  throw new PapersError("content_unavailable", `No text of ${resolvedId} could be found. Tried: ${describe(tried)}.`, {
    recovery: `Open ${PUBLIC_ARXIV}/abs/${resolvedId}; the paper may have been withdrawn or have no PDF.`,
  });
}

function describe(tried: Attempt[]): string {
  return tried.length === 0
    ? "nothing yet"
    : tried.map((attempt) => `${attempt.source}: ${attempt.outcome}`).join("; ");
}

/** Runs one source's request. A miss, a 5xx or a timeout is recorded and the next source is tried; rate limiting stops the read. */
async function tryFetch(
  tried: Attempt[],
  source: TextSource,
  request: () => Promise<Response>,
): Promise<Response | undefined> {
  try {
    const response = await request();
    if (response.status === 200) return response;
    await response.body?.cancel();
    const why =
      response.status === 307 || response.status === 302 || response.status === 301
        ? `HTTP ${response.status} (not converted)`
        : `HTTP ${response.status}`;
    tried.push({ source, outcome: why });
    return undefined;
  } catch (error) {
    if (error instanceof PapersError && error.reason !== "rate_limited") {
      tried.push({ source, outcome: `${error.reason}: ${error.message}` });
      return undefined;
    }
    throw error;
  }
}

async function tryHtml(
  tried: Attempt[],
  source: TextSource,
  response: Response,
  limits: { maxBytes: number; maxChars: number },
): Promise<{ document: ExtractedDocument; source: TextSource } | undefined> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("html") || !response.body) {
    await response.body?.cancel();
    tried.push({ source, outcome: `not HTML (${type || "no content-type"})` });
    return undefined;
  }
  let document: ExtractedDocument;
  try {
    document = await htmlToDocument(response.body, limits);
  } catch (error) {
    // Too large or unparsable a render: the next source (ar5iv, the PDF) may still serve the paper.
    if (
      error instanceof PapersError &&
      (error.reason === "content_too_large" || error.reason === "upstream_malformed")
    ) {
      tried.push({ source, outcome: `content_too_large: ${error.message}` });
      return undefined;
    }
    throw error;
  }
  // A page with almost no text is an error page or a stub, not the paper.
  if (document.text.length < 500 || document.outline.length === 0) {
    tried.push({ source, outcome: `a page without the paper's text (${document.text.length} characters)` });
    return undefined;
  }
  tried.push({ source, outcome: "ok" });
  return { document, source };
}
