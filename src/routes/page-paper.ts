// /paper/{id}: an arXiv paper (an old-style ID has a slash: hep-th/9901001) or an NBER paper
// (w{n}), and /paper/{id}/cite.bib|ris|json, their citation files. The record comes from the
// tools' own engine, through the same limits and auth mode as /mcp; a bad ID or a failed
// upstream is a typed error on the page (4xx/5xx), never a stack trace.
import { PapersError } from "../errors";
import { runTool } from "../mcp/tool";
import { nberGetPaperInfo } from "../mcp/tools/nber-get-paper-info";
import { getMetadata } from "../sources/arxiv/lookup";
import { knownVersions, shortenAuthors } from "../sources/arxiv/paper";
import { cachedArxivText } from "../sources/arxiv/read/reader";
import { exportCitations } from "../sources/citations/export";
import { arxivLinks } from "../sources/citations/links";
import { withCitationCounts } from "../sources/openalex/counts";
import { arxivDoi } from "../sources/openalex/target";
import { NBER_PAPER, renderNberPage } from "../web/nber-page";
import { CITATION_FILES, type PaperView, renderPaperError, renderPaperPage } from "../web/paper-page";
import { pageAccess, statusOf } from "./page-access";
import { htmlPage } from "./page-session";
import { attempt, type PageContext, toolContext } from "./page-tools";

/** Characters of a cached text shown on a paper's page: its opening, not the paper. */
const TEXT_EXCERPT_CHARS = 3_000;

export async function paperRoute(c: PageContext): Promise<Response> {
  const raw = new URL(c.req.url).pathname.slice("/paper/".length);
  const rest = decodedPath(raw);
  if (rest === null) return htmlPage(c, renderPaperError(raw, MALFORMED_ADDRESS), 400);
  const file = CITATION_FILES.find((candidate) => rest.endsWith(`/${candidate.suffix}`));
  const id = file ? rest.slice(0, -file.suffix.length - 1) : rest;
  const access = await pageAccess(c);
  if ("refusal" in access) return access.refusal;
  if (file) return citationFile(c, id, file);
  if (NBER_PAPER.test(id)) return nberPage(c, id);
  const view = await attempt(() => paperView(c, id));
  if (!view.ok) return htmlPage(c, renderPaperError(id, view.error), statusOf(view.error));
  return htmlPage(c, renderPaperPage(view.value));
}

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

/**
 * An NBER paper: nber_get_paper_info through the tool runner (its cache, NBER's page, the mirror
 * when NBER cannot be asked), then its BibTeX, which finds the record the call just cached (one
 * request to NBER at most, never two at once).
 */
async function nberPage(c: PageContext, id: string): Promise<Response> {
  const ctx = toolContext(c);
  const outcome = await runTool(nberGetPaperInfo, { paper_id: id }, ctx);
  if (!outcome.ok) return htmlPage(c, renderPaperError(id, outcome.payload), statusOf(outcome.payload));
  const bibtex = await exportCitations(ctx, [outcome.result.id], "bibtex").catch(() => null);
  return htmlPage(c, renderNberPage(outcome.result, bibtex?.text ?? ""));
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
