// The ChatGPT connector's fetch: a paper's metadata and as much of its text as the budget holds
// (the read tools' loaders and pages), with the id that continues it. When the text cannot be had
// (no HTML, ar5iv or PDF text; NBER withholding a new PDF), the abstract stands in, and says so.
import type { AppContext } from "../../context";
import { PapersError } from "../../errors";
import { noProgress } from "../../progress";
import { getMetadata } from "../arxiv/lookup";
import { PUBLIC_ARXIV } from "../arxiv/paper";
import { loadArxivDocument } from "../arxiv/read/reader";
import { getNberPaperInfo } from "../nber/info";
import { paperUrl } from "../nber/paper";
import { loadNberDocument } from "../nber/read";
import { readView } from "../text/reading";
import { connectorId, parseConnectorId } from "./ids";

/** Tokens of paper text a fetch gives (the answer is JSON in one text item: its escapes cost a little more). */
export const FETCH_TEXT_TOKENS = 12_000;

export interface FetchedDocument {
  id: string;
  title: string;
  text: string;
  url: string;
  metadata: Record<string, unknown>;
}

/**
 * Reasons the text is missing that leave the metadata answerable: the paper has none we can read,
 * or the upstream that serves it is down, slow or limiting us now (the text may come on a later fetch).
 */
const TEXT_MISSING = new Set([
  "content_unavailable",
  "pdf_extraction_failed",
  "not_downloadable_now",
  "content_too_large",
  "upstream_unavailable",
  "upstream_malformed",
  "rate_limited",
  "timeout",
  "server_busy",
]);

export async function connectorFetch(ctx: AppContext, input: string): Promise<FetchedDocument> {
  const wanted = parseConnectorId(input);
  const arxiv = wanted.source === "arxiv";
  // The record and the text are asked for together; either may stand in for what the other lacks.
  const [record, loaded] = await Promise.allSettled([
    arxiv ? arxivDescription(ctx, wanted.id) : nberDescription(ctx, wanted.id),
    arxiv
      ? loadArxivDocument(ctx, wanted.id, noProgress).then(({ document, source }) => ({ document, source }))
      : loadNberDocument(ctx, wanted.id, noProgress).then(({ document }) => ({ document, source: "pdf_text" })),
  ]);
  if (loaded.status === "rejected" && !(loaded.reason instanceof PapersError && TEXT_MISSING.has(loaded.reason.reason)))
    throw loaded.reason;
  if (record.status === "rejected" && loaded.status === "rejected") throw record.reason;
  const document = loaded.status === "fulfilled" ? loaded.value.document : undefined;
  // Text without a record (a paper the mirror lacks while arXiv's API is down): the text's own title.
  const described =
    record.status === "fulfilled" ? record.value : untitled(wanted.source, wanted.id, document?.title ?? null);
  const header = [described.title, described.byline, described.abstract ? `Abstract: ${described.abstract}` : ""]
    .filter(Boolean)
    .join("\n\n");
  if (loaded.status === "rejected") {
    const missing = loaded.reason as PapersError;
    return {
      id: connectorId(wanted.source, wanted.id),
      title: described.title,
      text: `${header}\n\n(The full text is not available now: ${missing.message}${missing.retryable ? " Fetch again later for it." : ""})`,
      url: described.url,
      metadata: { ...described.metadata, full_text: false, text_missing: missing.reason },
    };
  }
  const view = readView(loaded.value.document, { start: wanted.start, maxTokens: FETCH_TEXT_TOKENS }, wanted.id);
  const next = view.next_start;
  return {
    id: connectorId(wanted.source, wanted.id, wanted.start),
    title: described.title,
    // The first piece opens with the metadata; later pieces are the text alone.
    text: wanted.start === 0 ? `${header}\n\n${view.text}` : view.text,
    url: described.url,
    metadata: {
      ...described.metadata,
      full_text: true,
      text_source: loaded.value.source,
      characters: `${view.start}-${view.start + view.text.length} of ${view.total_characters}`,
      ...(next === null ? {} : { next_id: connectorId(wanted.source, wanted.id, next), next_start: next }),
    },
  };
}

function untitled(source: "arxiv" | "nber", id: string, title: string | null): Description {
  return {
    title: title ?? id,
    byline: "",
    abstract: "",
    url: source === "arxiv" ? `${PUBLIC_ARXIV}/abs/${id.replace(/v\d+$/, "")}` : paperUrl(id),
    metadata: { source: source === "arxiv" ? "arXiv" : "NBER", id },
  };
}

interface Description {
  title: string;
  byline: string;
  abstract: string;
  url: string;
  metadata: Record<string, unknown>;
}

async function arxivDescription(ctx: AppContext, id: string): Promise<Description> {
  const { papers, not_found: misses } = await getMetadata(ctx, [id]);
  const paper = papers[0];
  if (!paper)
    throw new PapersError("no_match", `arXiv has no paper ${id}${misses[0] ? ` (${misses[0].detail})` : ""}.`, {
      recovery: "Pass an id from search's results.",
    });
  const names = paper.authors.map((author) => author.name);
  return {
    title: paper.title,
    byline:
      `${names.slice(0, 10).join(", ")}${names.length > 10 ? ` and ${names.length - 10} more` : ""} ` +
      `· ${paper.published.slice(0, 10)} · ${paper.primary_category}`,
    abstract: paper.abstract,
    url: `${PUBLIC_ARXIV}/abs/${paper.base_id}`,
    metadata: {
      source: "arXiv",
      arxiv_id: paper.id,
      authors: names.slice(0, 10),
      authors_total: names.length,
      published: paper.published,
      categories: paper.categories,
      doi: paper.doi,
      journal_ref: paper.journal_ref,
      pdf_url: paper.pdf_url,
    },
  };
}

async function nberDescription(ctx: AppContext, id: string): Promise<Description> {
  const info = await getNberPaperInfo(ctx, id, { includeAll: false, refresh: false });
  return {
    title: info.title,
    byline: `${info.authors.join(", ")} · NBER Working Paper ${info.id} · ${info.date ?? "undated"}`,
    abstract: info.abstract ?? "",
    url: paperUrl(info.id),
    metadata: {
      source: "NBER",
      nber_id: info.id,
      authors: info.authors,
      date: info.date,
      doi: info.doi,
      pdf_url: info.pdf_url,
    },
  };
}
