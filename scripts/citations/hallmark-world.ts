// A fake world for HALLMARK (test/fixtures/hallmark), built from its VALID entries only, in the way
// each real source holds a work:
// - arXiv's API holds the works with an arXiv ID (a 10.48550/arXiv DOI or an arxiv.org link): an
//   id_list lookup answers their Atom entries; a search answers the 5 that share most words;
// - Crossref holds the works with another DOI: /works/{doi} answers the work, any other DOI a 404
//   ("Resource not found."); query.bibliographic answers its 5 best guesses over all it holds,
//   however few words they share (the real one always answers something);
// - doi.org's registration-agency lookup: DataCite for arXiv's DOIs, "does not exist" for any other
//   DOI Crossref lacks (the world's only other DOIs are invented);
// - OpenAlex holds every work (its own W-ID, the DOI when there is one): title.search answers the
//   works sharing at least half the title's words, best 5 first.
// HAND-MADE answers in each source's documented format (no recording exists for these works):
// - the venue names: DBLP's short names (HALLMARK's) written as each source writes them, Crossref's
//   container-title ("Proceedings of the AAAI Conference on Artificial Intelligence") and OpenAlex's
//   source display_name ("International Conference on Machine Learning"), from a table here;
// - a name's given and family parts are split at its last word (Crossref's structured names);
// - the rankings are word overlaps, not the upstreams' own.
import { readFileSync } from "node:fs";
import path from "node:path";
import { wordsOf } from "../fake-upstream/crossref.ts";

export interface HallmarkEntry {
  bibtex_key: string;
  bibtex_type: string;
  fields: Record<string, string>;
  label: "VALID" | "HALLUCINATED";
  hallucination_type?: string | null;
  difficulty_tier?: number;
}

export interface WorldWork {
  n: number;
  title: string;
  authors: string[];
  /** The years its VALID entries give it (a preprint's and its proceedings'), ascending. */
  years: number[];
  venue: string | null;
  doi: string | null;
  arxiv: string | null;
}

export function readHallmark(file: string): HallmarkEntry[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as HallmarkEntry);
}

const ARXIV_ID = /(?:arxiv[./:]|abs\/)(\d{4}\.\d{4,5})/i;

const namesOf = (author: string | undefined) =>
  (author ?? "").split(/\s+and\s+/).filter((name) => name && name !== "others");

export function buildWorld(entries: readonly HallmarkEntry[]): WorldWork[] {
  const seen = new Map<string, WorldWork>();
  const works: WorldWork[] = [];
  for (const entry of entries) {
    if (entry.label !== "VALID") continue;
    const f = entry.fields;
    const key = f.title?.toLowerCase() ?? "";
    if (!f.title) continue;
    const held = seen.get(key);
    if (held) {
      // The same work cited twice: with two years (its preprint's and its proceedings'), or with its
      // authors cut short ("and others"); the world holds the whole list.
      if (!held.years.includes(Number(f.year))) held.years = [...held.years, Number(f.year)].sort();
      const authors = namesOf(f.author);
      if (authors.length > held.authors.length) held.authors = authors;
      continue;
    }
    const arxiv = ARXIV_ID.exec(`${f.doi ?? ""} ${f.url ?? ""} ${f.eprint ?? ""}`)?.[1] ?? null;
    const doi = f.doi && !/^10\.48550\//i.test(f.doi) ? f.doi : null;
    const work = {
      n: works.length,
      title: f.title,
      authors: namesOf(f.author),
      years: [Number(f.year)],
      venue: f.booktitle ?? f.journal ?? null,
      doi,
      arxiv,
    };
    seen.set(key, work);
    works.push(work);
  }
  return works;
}

/** How Crossref and OpenAlex name DBLP's venues (HAND-MADE, from the venues' own names). */
const VENUE_NAMES: Record<string, { crossref: string; openalex: string }> = {
  AAAI: {
    crossref: "Proceedings of the AAAI Conference on Artificial Intelligence",
    openalex: "Proceedings of the AAAI Conference on Artificial Intelligence",
  },
  CVPR: {
    crossref: "2023 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
    openalex: "2022 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
  },
  ICCV: {
    crossref: "2021 IEEE/CVF International Conference on Computer Vision (ICCV)",
    openalex: "2021 IEEE/CVF International Conference on Computer Vision (ICCV)",
  },
  ECCV: { crossref: "Lecture Notes in Computer Science", openalex: "Lecture notes in computer science" },
  ICML: {
    crossref: "Proceedings of the 39th International Conference on Machine Learning",
    openalex: "International Conference on Machine Learning",
  },
  NeurIPS: {
    crossref: "Advances in Neural Information Processing Systems",
    openalex: "Neural Information Processing Systems",
  },
  ICLR: {
    crossref: "International Conference on Learning Representations",
    openalex: "International Conference on Learning Representations",
  },
  ACL: {
    crossref: "Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics",
    openalex: "Annual Meeting of the Association for Computational Linguistics",
  },
  NAACL: {
    crossref:
      "Proceedings of the 2022 Conference of the North American Chapter of the Association for Computational Linguistics",
    openalex: "North American Chapter of the Association for Computational Linguistics",
  },
  "Mach. Learn.": { crossref: "Machine Learning", openalex: "Machine Learning" },
  "J. Mach. Learn. Res.": {
    crossref: "Journal of Machine Learning Research",
    openalex: "Journal of Machine Learning Research",
  },
  "Trans. Mach. Learn. Res.": {
    crossref: "Transactions on Machine Learning Research",
    openalex: "Transactions on Machine Learning Research",
  },
  Nature: { crossref: "Nature", openalex: "Nature" },
};

const venueAs = (venue: string | null, source: "crossref" | "openalex") =>
  venue ? (VENUE_NAMES[venue]?.[source] ?? venue) : null;

const splitName = (name: string) => {
  const parts = name.trim().split(/\s+/);
  return { given: parts.slice(0, -1).join(" "), family: parts.at(-1) ?? name };
};

function ranked(works: readonly WorldWork[], query: string, minShare: number, rows: number): WorldWork[] {
  const asked = wordsOf(query);
  if (asked.size === 0) return [];
  return works
    .map((work) => {
      const title = wordsOf(work.title);
      let shared = 0;
      for (const word of asked) if (title.has(word)) shared++;
      let rest = 0;
      for (const word of wordsOf(work.authors.join(" "))) if (asked.has(word)) rest++;
      return { work, shared, score: shared * 2 + rest };
    })
    .filter((row) => row.shared > 0 && row.shared >= minShare * Math.min(asked.size, wordsOf(row.work.title).size))
    .sort((a, b) => b.score - a.score || a.work.n - b.work.n)
    .slice(0, rows)
    .map((row) => row.work);
}

const xml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function atom(works: readonly WorldWork[]): string {
  const entries = works.map(
    (work) => `  <entry>
    <id>http://arxiv.org/abs/${work.arxiv}v1</id>
    <title>${xml(work.title)}</title>
    <updated>${work.years[0]}-06-01T00:00:00Z</updated>
    <link href="https://arxiv.org/abs/${work.arxiv}v1" rel="alternate" type="text/html"/>
    <link href="https://arxiv.org/pdf/${work.arxiv}v1" rel="related" type="application/pdf" title="pdf"/>
    <summary>A work of HALLMARK's world.</summary>
    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
    <published>${work.years[0]}-06-01T00:00:00Z</published>
    <arxiv:primary_category term="cs.LG"/>
${work.authors.map((name) => `    <author>\n      <name>${xml(name)}</name>\n    </author>`).join("\n")}
  </entry>`,
  );
  return `<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">
  <id>https://arxiv.org/api/hallmark</id>
  <title>arXiv Query</title>
  <updated>2026-12-07T00:00:00Z</updated>
  <opensearch:itemsPerPage>${works.length}</opensearch:itemsPerPage>
  <opensearch:totalResults>${works.length}</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
${entries.join("\n")}
</feed>
`;
}

function crossrefWork(work: WorldWork) {
  const container = venueAs(work.venue, "crossref");
  return {
    DOI: work.doi!.toLowerCase(),
    title: [work.title],
    author: work.authors.map((name) => ({ ...splitName(name), sequence: "additional" })),
    issued: { "date-parts": [[work.years.at(-1)]] },
    ...(work.years.length > 1 ? { "published-online": { "date-parts": [[work.years[0]]] } } : {}),
    "container-title": container ? [container] : [],
    type: work.venue && /Mach\. Learn|Nature|Trans\./.test(work.venue) ? "journal-article" : "proceedings-article",
    publisher: "HALLMARK world",
  };
}

function openAlexWork(work: WorldWork) {
  const doi = work.doi ?? (work.arxiv ? `10.48550/arxiv.${work.arxiv}` : null);
  const source = venueAs(work.venue, "openalex");
  return {
    id: `https://openalex.org/W${4_000_000_000 + work.n}`,
    doi: doi ? `https://doi.org/${doi.toLowerCase()}` : null,
    title: work.title,
    display_name: work.title,
    publication_year: work.years.at(-1),
    type: "article",
    authorships: work.authors.map((name) => ({ author: { display_name: name } })),
    primary_location: source ? { source: { display_name: source } } : null,
    biblio: { volume: null, issue: null, first_page: null, last_page: null },
  };
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** Counts of what each source was asked, for the report. */
export const asked = { arxiv: 0, crossref: 0, openalex: 0 };

/** A fetch answering arXiv's API, Crossref and OpenAlex from the world (under http://world.test/<source>). */
export function worldFetch(works: readonly WorldWork[]): typeof fetch {
  const arxivHeld = works.filter((work) => work.arxiv);
  const byArxiv = new Map(arxivHeld.map((work) => [work.arxiv!, work]));
  const crossrefHeld = works.filter((work) => work.doi);
  const byDoi = new Map(crossrefHeld.map((work) => [work.doi!.toLowerCase(), work]));
  return (async (input: RequestInfo | URL) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const [, source, ...rest] = url.pathname.split("/");
    const tail = `/${rest.join("/")}`;
    if (source === "arxiv") {
      asked.arxiv++;
      const ids = url.searchParams.get("id_list");
      if (ids)
        return new Response(atom(ids.split(",").flatMap((id) => byArxiv.get(id.replace(/v\d+$/, "")) ?? [])), {
          headers: { "content-type": "application/atom+xml" },
        });
      const query = (url.searchParams.get("search_query") ?? "").replace(/\b(?:all|ti|au|abs):/g, " ");
      return new Response(atom(ranked(arxivHeld, query, 0.5, 5)), {
        headers: { "content-type": "application/atom+xml" },
      });
    }
    if (source === "crossref") {
      asked.crossref++;
      const doi = /^\/works\/(.+)$/.exec(tail)?.[1];
      if (doi) {
        const work = byDoi.get(decodeURIComponent(doi).toLowerCase());
        return work
          ? json({ status: "ok", "message-type": "work", message: crossrefWork(work) })
          : new Response("Resource not found.", { status: 404, headers: { "content-type": "text/plain" } });
      }
      const query = url.searchParams.get("query.bibliographic") ?? "";
      const items = ranked(crossrefHeld, query, 0, 5).map(crossrefWork);
      return json({ status: "ok", "message-type": "work-list", message: { items, "total-results": items.length } });
    }
    if (source === "doi-ra") {
      // Which agency registered a DOI Crossref lacks: DataCite's for arXiv's, none for any other (invented).
      const doi = decodeURIComponent(tail.replace(/^\/ra\//, ""));
      return json([
        /^10\.48550\//i.test(doi) ? { DOI: doi, RA: "DataCite" } : { DOI: doi, status: "DOI does not exist" },
      ]);
    }
    if (source === "openalex") {
      asked.openalex++;
      const filter = url.searchParams.get("filter") ?? "";
      const title = /title\.search:(.*)$/.exec(filter)?.[1];
      const doi = /doi:(.*)$/.exec(filter)?.[1];
      const results = title
        ? ranked(works, title, 0.5, 5)
        : doi
          ? works.filter((work) => (work.doi ?? "").toLowerCase() === doi.replace(/^https:\/\/doi\.org\//, ""))
          : [];
      return json({
        meta: { count: results.length, page: 1, per_page: 5 },
        results: results.map(openAlexWork),
      });
    }
    return new Response("not in the world", { status: 404 });
  }) as typeof fetch;
}

export const HALLMARK_DIR = (root: string) => path.join(root, "test/fixtures/hallmark");
