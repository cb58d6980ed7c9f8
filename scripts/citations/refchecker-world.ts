// A fake Crossref and OpenAlex that answer with RECORDED real answers (test/fixtures/refchecker:
// RefChecker's test cache, the real reference lists of 9 ICLR papers and what Crossref and OpenAlex
// answered for each): their best guesses, noise included.
// - Crossref /works/{doi}: the recorded DOI lookup; any other DOI a 404 ("Resource not found.").
// - Crossref query.bibliographic: the recorded search whose query (the reference's title, as
//   RefChecker cleaned it) the text holds; none: an empty work-list. The recordings are title
//   searches (`query=` with a year filter), not query.bibliographic: the routing by title is ours.
// - OpenAlex title.search: the recorded search for that title; none: an empty list. RefChecker's
//   cache keeps publication_year as a string; the API answers a number, so the fake answers one.
// - arXiv's API: an empty feed (no arXiv answer was recorded).
// - doi.org's registration agency: HAND-MADE, every DOI registered (see recordedFetch).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface RefcheckerReference {
  paper: string;
  title: string;
  authors: string[];
  year: number | null;
  venue: string | null;
  doi: string | null;
  url: string | null;
}

interface Recorded {
  service: "crossref" | "openalex";
  method: "search_works" | "get_by_doi";
  file: string;
  query?: string;
  doi?: string;
}

const norm = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/\p{Mn}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "");

export function readReferences(dir: string): RefcheckerReference[] {
  const root = path.join(dir, "source_refs");
  return readdirSync(root).flatMap((paper) =>
    (JSON.parse(readFileSync(path.join(root, paper, "bibliography.json"), "utf8")) as Record<string, unknown>[]).map(
      (r) => ({
        paper,
        title: String(r.title ?? ""),
        authors: (r.authors as string[] | undefined) ?? [],
        year: typeof r.year === "number" ? r.year : Number(r.year) || null,
        venue: (r.venue as string | null) || null,
        doi: (r.doi as string | null) || null,
        url: (r.url as string | null) || null,
      }),
    ),
  );
}

/** The recorded answers, read once (OpenAlex's unpacked from its archive into a temporary folder). */
export function loadRecordings(dir: string) {
  const unpacked = mkdtempSync(path.join(os.tmpdir(), "refchecker-openalex-"));
  execFileSync("tar", ["xzf", path.join(dir, "api_cache/openalex.tar.gz"), "-C", unpacked]);
  const read = (file: string) => {
    const local = file.startsWith("api_cache/openalex/")
      ? path.join(unpacked, file.slice("api_cache/".length))
      : path.join(dir, file);
    return existsSync(local) ? (JSON.parse(readFileSync(local, "utf8")) as unknown) : null;
  };
  const index = readFileSync(path.join(dir, "index.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Recorded);
  const searches = (service: Recorded["service"]) =>
    index
      .filter((r) => r.service === service && r.method === "search_works" && r.query)
      .map((r) => ({ key: norm(r.query!), items: (read(r.file) as unknown[] | null) ?? [] }))
      .filter((r) => r.key.length >= 8)
      .sort((a, b) => b.key.length - a.key.length);
  const byDoi = (service: Recorded["service"]) =>
    new Map(
      index
        .filter((r) => r.service === service && r.method === "get_by_doi" && r.doi)
        .map((r) => [r.doi!.toLowerCase(), read(r.file)] as const),
    );
  return {
    crossrefSearches: searches("crossref"),
    openalexSearches: searches("openalex"),
    crossrefDois: byDoi("crossref"),
  };
}

export type Recordings = ReturnType<typeof loadRecordings>;

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const EMPTY_FEED = `<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">
  <id>https://arxiv.org/api/refchecker</id>
  <title>arXiv Query</title>
  <updated>2026-12-07T00:00:00Z</updated>
  <opensearch:itemsPerPage>0</opensearch:itemsPerPage>
  <opensearch:totalResults>0</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
</feed>
`;

/** OpenAlex as the API answers it: publication_year a number. */
const asApi = (work: unknown) => {
  const w = work as Record<string, unknown>;
  return { ...w, publication_year: Number(w.publication_year) || null };
};

export const asked = { arxiv: 0, crossref: 0, openalex: 0, crossref_unrouted: 0, openalex_unrouted: 0 };

export function recordedFetch(rec: Recordings): typeof fetch {
  const find = (searches: Recordings["crossrefSearches"], text: string) => {
    const key = norm(text);
    return searches.find((s) => key.includes(s.key));
  };
  return (async (input: RequestInfo | URL) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const [, source, ...rest] = url.pathname.split("/");
    const tail = `/${rest.join("/")}`;
    if (source === "arxiv") {
      asked.arxiv++;
      return new Response(EMPTY_FEED, { headers: { "content-type": "application/atom+xml" } });
    }
    if (source === "crossref") {
      asked.crossref++;
      const doi = /^\/works\/(.+)$/.exec(tail)?.[1];
      if (doi) {
        const work = rec.crossrefDois.get(decodeURIComponent(doi).toLowerCase());
        return work
          ? json({ status: "ok", "message-type": "work", message: work })
          : new Response("Resource not found.", { status: 404, headers: { "content-type": "text/plain" } });
      }
      const hit = find(rec.crossrefSearches, url.searchParams.get("query.bibliographic") ?? "");
      if (!hit) asked.crossref_unrouted++;
      const items = hit?.items ?? [];
      return json({ status: "ok", "message-type": "work-list", message: { items, "total-results": items.length } });
    }
    if (source === "doi-ra") {
      // HAND-MADE: a DOI a real reference list cites is taken as registered (DataCite's prefixes, else Crossref),
      // though RefChecker recorded no lookup of it.
      const doi = decodeURIComponent(tail.replace(/^\/ra\//, ""));
      return json([{ DOI: doi, RA: /^10\.(48550|5281|6084|5061)\//i.test(doi) ? "DataCite" : "Crossref" }]);
    }
    if (source === "openalex") {
      asked.openalex++;
      const title = /title\.search:(.*)$/.exec(url.searchParams.get("filter") ?? "")?.[1] ?? "";
      const hit = find(rec.openalexSearches, title);
      if (!hit) asked.openalex_unrouted++;
      const results = (hit?.items ?? []).map(asApi);
      return json({ meta: { count: results.length, page: 1, per_page: 5 }, results });
    }
    return new Response("not recorded", { status: 404 });
  }) as typeof fetch;
}

/** Does a recorded answer hold the reference's work: an item with its title and its first author's surname? */
export function heldBy(rec: Recordings, ref: RefcheckerReference): boolean {
  const title = norm(ref.title);
  const surname = norm(ref.authors[0]?.split(/\s+/).at(-1) ?? "");
  const items = [
    ...(rec.crossrefSearches.find((s) => title.includes(s.key))?.items ?? []),
    ...(rec.openalexSearches.find((s) => title.includes(s.key))?.items ?? []),
    ...(ref.doi && rec.crossrefDois.get(ref.doi.toLowerCase()) ? [rec.crossrefDois.get(ref.doi.toLowerCase())] : []),
  ] as Record<string, unknown>[];
  return items.some((item) => {
    const itemTitle = norm(String(Array.isArray(item.title) ? item.title[0] : (item.title ?? "")));
    const names = JSON.stringify(item.author ?? item.authorships ?? "");
    return itemTitle === title && (!surname || norm(names).includes(surname));
  });
}
