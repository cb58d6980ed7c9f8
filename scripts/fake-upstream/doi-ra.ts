// The fake doi.org registration-agency lookup (<origin>/doi-ra/ra/<doi>), HAND-MADE in the format
// doi.org documents (no recording exists): `[{"DOI": "<doi>", "RA": "<agency>"}]` for a registered
// DOI, `[{"DOI": "<doi>", "status": "DOI does not exist"}]` for one no agency registered. DataCite's
// well-known prefixes (arXiv 10.48550, Zenodo 10.5281, figshare 10.6084, Dryad 10.5061) answer
// DataCite; every other DOI asked here (the fake Crossref answered 404 for it first) does not exist.
const DATACITE = /^10\.(48550|5281|6084|5061)\//i;

export function doiRaAnswer(url: URL): Response | undefined {
  const match = /^\/doi-ra\/ra\/(.+)$/.exec(url.pathname);
  if (!match) return undefined;
  const doi = decodeURIComponent(match[1]!);
  const body = DATACITE.test(doi) ? [{ DOI: doi, RA: "DataCite" }] : [{ DOI: doi, status: "DOI does not exist" }];
  return new Response(JSON.stringify(body), {
    headers: { "content-type": "application/json;charset=UTF-8", "x-fake-upstream": "hand-made" },
  });
}
