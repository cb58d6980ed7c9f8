// Crossref works as the resolver needs them: a DOI looked up (/works/{doi}), and the candidates
// for a free-text reference (/works?query.bibliographic=, the endpoint Crossref made for matching
// references). Crossref's own score is never trusted: the resolver checks every candidate
// against the reference's text like any mirror paper.
import { decodeHTML } from "entities";
import { crossrefGet } from "./client";
import type { AppContext } from "../../context";
import type { ExternalWork } from "../external-work";
import type { PersonName } from "../citations/names";

/** Candidates asked of query.bibliographic; the right work is first or second when Crossref has it. */
const BIBLIOGRAPHIC_ROWS = 5;
const SELECT =
  "DOI,title,author,issued,published,published-print,published-online,container-title,short-container-title," +
  "volume,issue,page,article-number,type,publisher";
/** Crossref's matcher reads the first few hundred characters; a longer text only costs bytes. */
const MAX_QUERY_CHARS = 600;

/** The work with this DOI, or null when Crossref has none. */
export async function crossrefWork(ctx: AppContext, doi: string, deadline?: number): Promise<ExternalWork | null> {
  // A lone surrogate (possible in JSON input) cannot be percent-encoded: it becomes U+FFFD, never a URIError.
  const message = await crossrefGet(ctx, `/works/${encodeURIComponent(doi.trim().toWellFormed())}`, deadline);
  return message === null ? null : toWork(message);
}

/** Crossref's best candidates for a reference written as free text. */
export async function crossrefCandidates(ctx: AppContext, text: string, deadline?: number): Promise<ExternalWork[]> {
  const query = text.replace(/\s+/g, " ").trim().slice(0, MAX_QUERY_CHARS);
  const params = new URLSearchParams({
    "query.bibliographic": query,
    rows: String(BIBLIOGRAPHIC_ROWS),
    select: SELECT,
  });
  const message = (await crossrefGet(ctx, `/works?${params}`, deadline)) as { items?: unknown } | null;
  const items = Array.isArray(message?.items) ? message.items : [];
  return items.slice(0, BIBLIOGRAPHIC_ROWS).flatMap((item) => {
    const work = toWork(item);
    return work ? [work] : [];
  });
}

type Json = Record<string, unknown>;
const first = (value: unknown): string | null =>
  Array.isArray(value) && typeof value[0] === "string" && value[0].trim() ? value[0].trim() : null;
const text = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);
/** Crossref titles may carry JATS or HTML markup (<i>, <sub>, <mml:math>) and entities (&amp;): the words only. */
const plain = (value: string) =>
  decodeHTML(value.replace(/<[^>]*>/g, ""))
    .replace(/\s+/g, " ")
    .trim();

const DATE_FIELDS = ["issued", "published", "published-print", "published-online"];

/** The years Crossref dates the work by, issued first (a print year may follow the online one). */
const containerOf = (value: unknown): string | null => {
  const name = first(value);
  return name ? plain(name) : null;
};

function yearsOf(work: Json): number[] {
  const years: number[] = [];
  for (const field of DATE_FIELDS) {
    const parts = (work[field] as { "date-parts"?: unknown[][] } | undefined)?.["date-parts"]?.[0]?.[0];
    if (typeof parts === "number" && parts > 1000 && !years.includes(parts)) years.push(parts);
  }
  return years;
}

/** Crossref's structured names as it gives them ("Del Maestro" stays the family name). */
function peopleOf(work: Json): PersonName[] {
  const authors = Array.isArray(work.author) ? (work.author as Json[]) : [];
  return authors.flatMap((author) => {
    const name = text(author.name);
    if (name) return [{ family: name, given: "", literal: name }];
    const family = text(author.family);
    return family ? [{ family, given: text(author.given) ?? "" }] : [];
  });
}

function authorsOf(work: Json): string[] {
  const authors = Array.isArray(work.author) ? (work.author as Json[]) : [];
  return authors.flatMap((author) => {
    const name = text(author.name);
    if (name) return [name];
    const family = text(author.family);
    if (!family) return [];
    const given = text(author.given);
    return [given ? `${given} ${family}` : family];
  });
}

function toWork(raw: unknown): ExternalWork | null {
  if (typeof raw !== "object" || raw === null) return null;
  const work = raw as Json;
  const doi = text(work.DOI);
  const title = first(work.title);
  if (!doi || !title) return null;
  return {
    doi,
    title: plain(title),
    authors: authorsOf(work),
    people: peopleOf(work),
    year: yearsOf(work)[0] ?? null,
    years: yearsOf(work),
    type: text(work.type),
    container: containerOf(work["container-title"]),
    container_short: containerOf(work["short-container-title"]),
    // A chapter's container-title lists its book and its series; a proceedings paper may list both names.
    containers: Array.isArray(work["container-title"])
      ? work["container-title"].flatMap((name) => (typeof name === "string" && name.trim() ? [plain(name)] : []))
      : [],
    volume: text(work.volume),
    issue: text(work.issue),
    page: text(work.page) ?? text(work["article-number"]),
    publisher: text(work.publisher),
  };
}
