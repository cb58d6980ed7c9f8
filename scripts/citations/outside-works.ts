// Works outside arXiv and NBER, for the reference set and the fake Crossref: every work with a
// title, authors and a DOI in the recorded Crossref answers (test/fixtures/crossref: work lists
// and single works) and the recorded OpenAlex pages (test/fixtures/openalex: search, cites and
// cited-by pages). All of their metadata is real. A recorded Crossref item is served as
// recorded; an OpenAlex work is written in Crossref's item format (HAND-MADE, from real
// metadata: title, authors, year, venue, volume, issue, pages, DOI). arXiv's own DOIs are left out.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export interface OutsideWork {
  doi: string;
  title: string;
  authors: string[];
  year: number;
  container: string | null;
  volume: string | null;
  issue: string | null;
  page: string | null;
  /** "recorded": Crossref's own item; "from-openalex": hand-made in Crossref's format. */
  origin: "recorded" | "from-openalex";
  /** The Crossref item served for it. */
  item: Record<string, unknown>;
}

type Json = Record<string, any>;
const plain = (text: string) =>
  text
    .replace(/<[^>]*>/g, "")
    .replace(/\s+/g, " ")
    .trim();

function fromCrossref(item: Json): OutsideWork | null {
  const title = item.title?.[0];
  const authors = (item.author ?? [])
    .map((a: Json) => (a.family ? [a.given, a.family].filter(Boolean).join(" ") : a.name))
    .filter(Boolean);
  const year = item.issued?.["date-parts"]?.[0]?.[0] ?? item.published?.["date-parts"]?.[0]?.[0];
  if (!item.DOI || !title || authors.length === 0 || typeof year !== "number") return null;
  return {
    doi: item.DOI,
    title: plain(title),
    authors,
    year,
    container: item["container-title"]?.[0] ?? null,
    volume: item.volume ?? null,
    issue: item.issue ?? null,
    page: item.page ?? item["article-number"] ?? null,
    origin: "recorded",
    item,
  };
}

const OPENALEX_TYPES: Record<string, string> = { article: "journal-article", "book-chapter": "book-chapter" };

function fromOpenAlex(work: Json): OutsideWork | null {
  const doi = typeof work.doi === "string" ? work.doi.replace(/^https:\/\/doi\.org\//, "") : null;
  const title = work.title ?? work.display_name;
  const authors = (work.authorships ?? []).map((a: Json) => a.author?.display_name).filter(Boolean) as string[];
  const year = work.publication_year;
  if (!doi || !title || authors.length === 0 || typeof year !== "number") return null;
  const biblio = work.biblio ?? {};
  const page = biblio.first_page
    ? biblio.last_page && biblio.last_page !== biblio.first_page
      ? `${biblio.first_page}-${biblio.last_page}`
      : biblio.first_page
    : null;
  const container = work.primary_location?.source?.display_name ?? null;
  const item: Json = {
    DOI: doi,
    title: [title],
    author: authors.map((name) => {
      const parts = name.split(" ");
      return parts.length > 1 ? { given: parts.slice(0, -1).join(" "), family: parts.at(-1) } : { name };
    }),
    issued: { "date-parts": [[year]] },
    type: OPENALEX_TYPES[work.type] ?? work.type ?? "journal-article",
    ...(container ? { "container-title": [container] } : {}),
    ...(biblio.volume ? { volume: biblio.volume } : {}),
    ...(biblio.issue ? { issue: biblio.issue } : {}),
    ...(page ? { page } : {}),
  };
  return {
    doi,
    title: plain(title),
    authors,
    year,
    container,
    volume: biblio.volume ?? null,
    issue: biblio.issue ?? null,
    page,
    origin: "from-openalex",
    item,
  };
}

/** Every work of the recordings, one per DOI (Crossref's item first), in file order. */
export function loadOutsideWorks(fixturesDir: string): OutsideWork[] {
  const works = new Map<string, OutsideWork>();
  const add = (work: OutsideWork | null) => {
    if (!work || /^10\.48550\//i.test(work.doi) || work.title.split(" ").length < 3) return;
    const key = work.doi.toLowerCase();
    if (!works.has(key)) works.set(key, work);
  };
  const read = (file: string): Json | null => {
    try {
      return JSON.parse(readFileSync(file, "utf8"));
    } catch {
      return null;
    }
  };
  const crossrefDir = path.join(fixturesDir, "crossref");
  for (const name of readdirSync(crossrefDir)
    .filter((n) => n.endsWith(".json") && !n.endsWith(".meta.json"))
    .sort()) {
    const message = read(path.join(crossrefDir, name))?.message;
    if (Array.isArray(message?.items)) for (const item of message.items) add(fromCrossref(item));
    else if (message?.DOI) add(fromCrossref(message));
  }
  const openAlexDir = path.join(fixturesDir, "openalex");
  for (const name of readdirSync(openAlexDir)
    .filter((n) => /^(search|cites|cited-by)_.*\.json$/.test(n))
    .sort()) {
    const results = read(path.join(openAlexDir, name))?.results;
    if (Array.isArray(results)) for (const work of results) add(fromOpenAlex(work));
  }
  return [...works.values()];
}
