// The pages for people: /search, /paper/{id} (and its citation files), /check, the stylesheet.
// Each runs the same engine as the tools, through the same limits and auth mode as /mcp, and a
// bad input or a failed upstream is a typed error on the page (4xx/5xx with a message), never a stack trace.
import { Hono } from "hono";
import type { ErrorPayload } from "../mcp/errors";
import { runTool } from "../mcp/tool";
import { arxivSearchPapers } from "../mcp/tools/arxiv-search-papers";
import { checkBibliography, MAX_BIBLIOGRAPHY_CHARS, MAX_ENTRIES } from "../sources/citations/check-bibliography";
import { bibtexChunks, readBibliography } from "../sources/citations/entry-formats";
import {
  checkHead,
  checkResults,
  correctedBibtex,
  progressLine,
  renderCheckFailure,
  renderCheckForm,
} from "../web/check-page";
import { type Html, PAGE_HEADERS, pageEnd, pageStart, withAccount } from "../web/layout";
import { renderSearchPage, SEARCH_PAGE_SIZE, type SearchForm } from "../web/search-page";
import { FAVICON_SVG, SITE_CSS } from "../web/style";
import { pageAccess, statusOf } from "./page-access";
import { paperRoute } from "./page-paper";
import { htmlPage, signedIn } from "./page-session";
import { signOut } from "./page-signin";
import { attempt, type PageContext, toolContext } from "./page-tools";

export { htmlPage };

export const pageRoutes = new Hono<{ Bindings: Env }>();

pageRoutes.get("/assets/site.css", (c) =>
  c.body(SITE_CSS, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600" }),
);
pageRoutes.get("/favicon.svg", (c) =>
  c.body(FAVICON_SVG, 200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" }),
);

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
      // Whole abstracts: the page shows each opening and the rest behind a disclosure, where
      // an agent's answer cuts them to fit its token budget.
      detail: "full",
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

// /paper/{id}: an arXiv paper, an NBER paper (w{n}), and their citation files.
pageRoutes.get("/paper/*", paperRoute);

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
