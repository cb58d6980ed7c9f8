// OpenAlex's hand-made failure cases for the fixture router (no recording exists of these):
// <origin>/openalex/_scenario/<name>/works... answers every single-work lookup with one work
// (its own ID, 10,000 citations) and its lists as the scenario says. Each answer is marked
// x-fake-upstream: hand-made. The recorded answers are routed by test/fixtures/content-routes.json.
//   endless-cursor  every list page has 200 works and a new next_cursor, and meta.count 10,000,000
//   ten-thousand    10,000 citing works in pages of 200, the cursor ending with an empty page
//   truncated-json  the list's JSON cut off mid-work
//   html-200        an HTML page with status 200
//   status-429      the allowance spent: HTTP 429 with OpenAlex's JSON error
//   status-503      OpenAlex down (lookups too)
//   lookup-404      the work lookup itself is a 404 (so: not in OpenAlex)
//   empty-end       two full pages (400 works), then an empty page whose next_cursor is still set
//   null-end        one full page (200 works) whose next_cursor is already null
//   null-title      three citing works, the second with a null title
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-fake-upstream": "hand-made" },
  });

/** Each scenario's work has its own ID, so that one scenario's cached pages never answer another's. */
const lookupWork = (name: string) => ({
  ...LOOKUP_WORK,
  id: `https://openalex.org/W${[...name].reduce((sum, char) => sum * 31 + char.charCodeAt(0), 7) % 1_000_000}`,
});

const LOOKUP_WORK = {
  id: "https://openalex.org/W100",
  doi: "https://doi.org/10.48550/arxiv.2401.00001",
  title: "A hand-made work for failure scenarios",
  publication_year: 2024,
  cited_by_count: 10_000,
  referenced_works_count: 0,
  counts_by_year: [{ year: 2025, cited_by_count: 6000 }],
  authorships: [{ author: { display_name: "Ada Example" } }],
};

function generatedWork(n: number) {
  return {
    id: `https://openalex.org/W${1_000_000 + n}`,
    // arXiv DOIs: the works resolve by their DOI alone, so 10,000 of them cost no mirror queries.
    doi: `https://doi.org/10.48550/arxiv.2401.${String(10_000 + n).padStart(5, "0")}`,
    title: `Hand-made citing work number ${n}`,
    publication_year: 2020 + (n % 5),
    cited_by_count: 10_000 - n,
    authorships: [{ author: { display_name: `Author ${n}` } }],
    primary_location: { source: { display_name: "Journal of Examples" } },
  };
}

function page(offset: number, size: number, count: number, nextCursor: string | null) {
  return json({
    meta: { count, page: null, per_page: 200, next_cursor: nextCursor },
    results: Array.from({ length: size }, (_, i) => generatedWork(offset + i)),
  });
}

export function openAlexScenario(url: URL): Response | undefined {
  const match = /^\/openalex\/_scenario\/([a-z0-9-]+)(\/.*)$/.exec(url.pathname);
  if (!match) return undefined;
  const [, name, rest] = match;
  if (rest!.startsWith("/works/")) {
    if (name === "status-503")
      return new Response("Service Unavailable", { status: 503, headers: { "x-fake-upstream": "hand-made" } });
    return name === "lookup-404"
      ? new Response("<!doctype html><title>404 Not Found</title>", {
          status: 404,
          headers: { "content-type": "text/html; charset=utf-8", "x-fake-upstream": "hand-made" },
        })
      : json(lookupWork(name!));
  }
  if (rest !== "/works") return undefined;
  const cursor = url.searchParams.get("cursor") ?? "*";
  const index = cursor === "*" ? 0 : Number(cursor.replace(/^c/, ""));
  switch (name) {
    case "endless-cursor":
      return page(index * 200, 200, 10_000_000, `c${index + 1}`);
    case "ten-thousand":
      return index * 200 >= 10_000 ? page(0, 0, 10_000, null) : page(index * 200, 200, 10_000, `c${index + 1}`);
    case "empty-end":
      return index >= 2 ? page(0, 0, 400, "c3") : page(index * 200, 200, 400, `c${index + 1}`);
    case "null-end":
      return page(0, 200, 200, null);
    case "null-title": {
      // One citing work whose title is null (as the recorded paratext work's is) among two with titles.
      const works = [generatedWork(0), { ...generatedWork(1), title: null, display_name: null }, generatedWork(2)];
      return json({ meta: { count: 3, page: null, per_page: 200, next_cursor: null }, results: works });
    }
    case "truncated-json":
      return new Response(
        JSON.stringify({ meta: { count: 3, next_cursor: "c1" }, results: [generatedWork(0)] }).slice(0, 90),
        {
          headers: { "content-type": "application/json", "x-fake-upstream": "hand-made" },
        },
      );
    case "html-200":
      return new Response("<!doctype html><html><body>Maintenance</body></html>", {
        headers: { "content-type": "text/html", "x-fake-upstream": "hand-made" },
      });
    case "status-429":
      return json({ error: "Rate limit exceeded", message: "Daily budget exhausted" }, 429);
    case "status-503":
      return new Response("Service Unavailable", { status: 503, headers: { "x-fake-upstream": "hand-made" } });
    default:
      return undefined;
  }
}
