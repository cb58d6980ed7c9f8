// The pages for people: /search, /paper/{id} (and its citation files), /check, the stylesheet.
// Each runs the same engine as the tools, through the same limits and auth mode as /mcp, and a
// bad input or a failed upstream is a typed error on the page (4xx/5xx with a message), never a stack trace.
import { type Context, Hono } from "hono";
import { PapersError } from "../errors";
import { noProgress } from "../progress";
import { type ErrorPayload, toErrorPayload } from "../mcp/errors";
import { runTool, type ToolContext } from "../mcp/tool";
import { arxivSearchPapers } from "../mcp/tools/arxiv-search-papers";
import { getMetadata } from "../sources/arxiv/lookup";
import { knownVersions, shortenAuthors } from "../sources/arxiv/paper";
import { cachedArxivText } from "../sources/arxiv/read/reader";
import { checkBibliography, MAX_BIBLIOGRAPHY_CHARS, MAX_ENTRIES } from "../sources/citations/check-bibliography";
import { bibtexChunks, readBibliography } from "../sources/citations/entry-formats";
import { exportCitations } from "../sources/citations/export";
import { arxivLinks } from "../sources/citations/links";
import { withCitationCounts } from "../sources/openalex/counts";
import { arxivDoi } from "../sources/openalex/target";
import {
  checkHead,
  checkResults,
  correctedBibtex,
  progressLine,
  renderCheckFailure,
  renderCheckForm,
} from "../web/check-page";
import { type Html, PAGE_HEADERS, pageEnd, pageStart, withAccount } from "../web/layout";
import { CITATION_FILES, type PaperView, renderPaperError, renderPaperPage } from "../web/paper-page";
import { renderSearchPage, SEARCH_PAGE_SIZE, type SearchForm } from "../web/search-page";
import { FAVICON_SVG, SITE_CSS } from "../web/style";
import { appContextOf } from "./identity";
import { pageAccess, statusOf } from "./page-access";
import { htmlPage, signedIn } from "./page-session";
import { signOut } from "./page-signin";

export { htmlPage };

export const pageRoutes = new Hono<{ Bindings: Env }>();
type PageContext = Context<{ Bindings: Env }>;

/** Characters of a cached text shown on a paper's page: its opening, not the paper. */
const TEXT_EXCERPT_CHARS = 3_000;

pageRoutes.get("/assets/site.css", (c) =>
  c.body(SITE_CSS, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600" }),
);
pageRoutes.get("/favicon.svg", (c) =>
  c.body(FAVICON_SVG, 200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" }),
);

function toolContext(c: PageContext): ToolContext {
  const client = `ip:${c.req.header("cf-connecting-ip") ?? "local"}`;
  return { ...appContextOf(c), origin: new URL(c.req.url).origin, identity: null, client, progress: noProgress };
}

async function attempt<T>(
  work: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: ErrorPayload }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, error: toErrorPayload(error) };
  }
}

pageRoutes.get("/search", async (c) => {
  const form = searchForm(new URL(c.req.url).searchParams);
  if (!form.q) return htmlPage(c, renderSearchPage(form, null));
  const access = await pageAccess(c);
  if ("refusal" in access) return access.refusal;
  const outcome = await runTool(
    arxivSearchPapers,
    {
      query: form.q,
      ...(form.category ? { category: form.category } : {}),
      ...(form.from ? { submitted_from: form.from } : {}),
      ...(form.to ? { submitted_to: form.to } : {}),
      sort_by: form.sort,
      start: form.start,
      max_results: SEARCH_PAGE_SIZE,
    },
    toolContext(c),
  );
  if (outcome.ok) return htmlPage(c, renderSearchPage(form, { result: outcome.result }));
  return htmlPage(c, renderSearchPage(form, { error: outcome.payload }), statusOf(outcome.payload));
});

function searchForm(params: URLSearchParams): SearchForm {
  const sort = params.get("sort");
  const start = Number.parseInt(params.get("start") ?? "0", 10);
  return {
    q: (params.get("q") ?? "").trim().slice(0, 1_000),
    category: (params.get("category") ?? "").trim().slice(0, 40),
    from: (params.get("from") ?? "").trim().slice(0, 10),
    to: (params.get("to") ?? "").trim().slice(0, 10),
    sort: sort === "submitted" || sort === "updated" ? sort : "relevance",
    start: Number.isFinite(start) && start > 0 ? Math.min(start, 1_000_000) : 0,
  };
}

// /paper/{id}, where an old-style ID has a slash (hep-th/9901001), and /paper/{id}/cite.bib|ris|json.
pageRoutes.get("/paper/*", async (c) => {
  const raw = new URL(c.req.url).pathname.slice("/paper/".length);
  const rest = decodedPath(raw);
  if (rest === null) return htmlPage(c, renderPaperError(raw, MALFORMED_ADDRESS), 400);
  const file = CITATION_FILES.find((candidate) => rest.endsWith(`/${candidate.suffix}`));
  const id = file ? rest.slice(0, -file.suffix.length - 1) : rest;
  const access = await pageAccess(c);
  if ("refusal" in access) return access.refusal;
  if (file) return citationFile(c, id, file);
  const view = await attempt(() => paperView(c, id));
  if (!view.ok) return htmlPage(c, renderPaperError(id, view.error), statusOf(view.error));
  return htmlPage(c, renderPaperPage(view.value));
});

const MALFORMED_ADDRESS = {
  reason: "invalid_id",
  message: "The address has a broken %-escape, so it names no paper.",
  recovery: "Check the address, or find the paper with the search.",
};

/** A path segment with its %-escapes decoded, or null when one is broken (decodeURIComponent throws: a 500 otherwise). */
function decodedPath(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** The record (authors shortened as the tools do; a citation count only when cached), its BibTeX, its cached text. */
async function paperView(c: PageContext, id: string): Promise<PaperView> {
  const ctx = toolContext(c);
  const [metadata, bibtex] = await Promise.all([
    getMetadata(ctx, [id]),
    exportCitations(ctx, [id], "bibtex").catch(() => null),
  ]);
  const found = metadata.papers[0];
  if (!found) {
    const miss = metadata.not_found[0];
    throw new PapersError("no_match", miss?.detail ?? `No arXiv paper ${id}.`, {
      recovery: "Check the ID, or find the paper with the search.",
    });
  }
  const described = { ...shortenAuthors(found), versions: knownVersions(found), links: arxivLinks(found) };
  const [paper] = await withCitationCounts(ctx, [described], (p) => [arxivDoi(p.base_id), p.doi], { live: 0 });
  const cached = await cachedArxivText(ctx, found.id);
  return {
    paper: paper!,
    bibtex: bibtex?.text ?? "",
    text: cached && {
      excerpt: cached.text.slice(0, TEXT_EXCERPT_CHARS),
      source: cached.source,
      cachedAt: cached.cachedAt,
      more: cached.text.length > TEXT_EXCERPT_CHARS,
    },
  };
}

async function citationFile(c: PageContext, id: string, file: (typeof CITATION_FILES)[number]): Promise<Response> {
  const exported = await attempt(() => exportCitations(toolContext(c), [id], file.format));
  if (!exported.ok) return htmlPage(c, renderPaperError(id, exported.error), statusOf(exported.error));
  if (exported.value.entries.length === 0) {
    const miss = exported.value.not_found[0];
    const error = {
      reason: miss?.reason ?? "no_match",
      message: miss?.detail ?? `No paper ${id}.`,
      recovery: "Check the ID, or find the paper with the search.",
    };
    return htmlPage(c, renderPaperError(id, error), 404);
  }
  const name = `${id.replace(/[^A-Za-z0-9.-]+/g, "_")}.${file.suffix.split(".")[1]}`;
  return c.body(exported.value.text, 200, {
    "content-type": `${file.type}; charset=utf-8`,
    "content-disposition": `attachment; filename="${name}"`,
    "x-content-type-options": "nosniff",
  });
}

pageRoutes.get("/check", (c) => htmlPage(c, renderCheckForm()));

pageRoutes.post("/signout", signOut);

pageRoutes.post("/check", async (c) => {
  const access = await pageAccess(c, { expensive: true });
  if ("refusal" in access) return access.refusal;
  const text = await bibliographyFrom(c);
  if (typeof text !== "string") {
    access.release();
    return htmlPage(c, renderCheckForm("", text), text.reason === "request_too_large" ? 413 : 400);
  }
  const entries = readBibliography(text);
  const problem =
    entries.length === 0
      ? "No entry could be found in the bibliography."
      : entries.length > MAX_ENTRIES
        ? `The bibliography has ${entries.length} entries; at most ${MAX_ENTRIES} are checked at once.`
        : null;
  if (problem) {
    access.release();
    const recovery =
      entries.length === 0
        ? "Paste a .bib file's text, RIS, CSL-JSON, or references one per line or numbered."
        : `Split it into parts of at most ${MAX_ENTRIES} entries.`;
    return htmlPage(c, renderCheckForm(text, { reason: "invalid_argument", message: problem, recovery }), 400);
  }
  return streamCheck(c, text, entries.length, access.release);
});

/** The bibliography from the form: the uploaded file when there is one, else the text box. */
async function bibliographyFrom(c: PageContext): Promise<string | ErrorPayload> {
  const tooLarge: ErrorPayload = {
    reason: "request_too_large",
    message: `The bibliography is larger than ${MAX_BIBLIOGRAPHY_CHARS.toLocaleString("en-US")} characters.`,
    retryable: false,
    recovery: `Split it into parts of at most ${MAX_ENTRIES} entries.`,
  };
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_BIBLIOGRAPHY_CHARS * 2 + 10_000) return tooLarge;
  const form = await c.req.formData().catch(() => null);
  if (!form)
    return {
      reason: "invalid_argument",
      message: "The form could not be read.",
      retryable: false,
      recovery: "Paste the bibliography into the text box and press Check.",
    };
  const file = form.get("file");
  const uploaded = file instanceof File && file.size > 0 ? await file.text() : "";
  const text = (uploaded || String(form.get("bibliography") ?? "")).trim();
  if (text.length > MAX_BIBLIOGRAPHY_CHARS) return tooLarge;
  if (!text)
    return {
      reason: "invalid_argument",
      message: "The bibliography is empty.",
      retryable: false,
      recovery: "Paste a bibliography or choose a .bib file, then press Check.",
    };
  return text;
}

/** The check's page as it runs: the head and a progress line per step, then the verdicts. */
function streamCheck(c: PageContext, text: string, entries: number, release: () => void): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  // Writes in order, one after another (progress arrives from parallel lookups).
  let queue: Promise<void> = Promise.resolve();
  const write = (part: Html | string) =>
    (queue = queue.then(async () => writer.write(encoder.encode(String(await part)))));
  const ctx = toolContext(c);
  const run = async () => {
    const signedInNow = await signedIn(c);
    const started = Date.now();
    try {
      await write(withAccount(String(await pageStart("Checking a bibliography")), signedInNow));
      await write(checkHead(entries));
      const result = await attempt(() =>
        checkBibliography(ctx, text, {
          maxTokens: 1_000_000,
          progress: (_message, done, total) => void write(progressLine(done, total ?? entries)).catch(() => {}),
        }),
      );
      if (result.ok) {
        const asCited =
          result.value.format === "bibtex" ? bibtexChunks(text) : readBibliography(text).map((e) => e.text);
        await write(checkResults(result.value, correctedBibtex(result.value, asCited), (Date.now() - started) / 1000));
      } else await write(renderCheckFailure(result.error));
      await write(pageEnd());
      await writer.close();
    } catch {
      await writer.abort().catch(() => {});
    } finally {
      release();
    }
  };
  c.executionCtx.waitUntil(run());
  return new Response(readable, { headers: { ...PAGE_HEADERS, "content-type": "text/html; charset=utf-8" } });
}

pageRoutes.post("/check/corrected.bib", async (c) => {
  const access = await pageAccess(c);
  if ("refusal" in access) return access.refusal;
  const form = await c.req.formData().catch(() => null);
  // A form sends a text area's lines with CRLF: the file gets the lines as they were shown.
  const bibtex = String(form?.get("bibtex") ?? "")
    .slice(0, MAX_BIBLIOGRAPHY_CHARS * 2)
    .replace(/\r\n?/g, "\n");
  return c.body(bibtex, 200, {
    "content-type": "application/x-bibtex; charset=utf-8",
    "content-disposition": 'attachment; filename="corrected.bib"',
    "x-content-type-options": "nosniff",
  });
});
