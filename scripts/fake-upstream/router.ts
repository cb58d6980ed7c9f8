// The one fixture router. Tests (miniflare's outboundService) and the loopback fake upstream
// (scripts/fake-upstream/server.ts) both answer upstream requests through it, so a test and a
// local demo see the same recorded responses.
//
// Every upstream lives under its own path prefix, so one origin serves them all:
//   <origin>/arxiv-api   export.arxiv.org/api       <origin>/arxiv-oai  oaipmh.arxiv.org/oai
//   <origin>/arxiv       arxiv.org (abs/html/pdf)   <origin>/ar5iv      ar5iv.labs.arxiv.org
//   <origin>/nber        www.nber.org                <origin>/openalex  api.openalex.org
//   <origin>/crossref    api.crossref.org (crossref.ts)   <origin>/doi-ra  doi.org/ra (HAND-MADE, doi-ra.ts)
//   <origin>/idp         a HAND-MADE identity provider (GitHub and OpenID Connect) for AUTH_MODE=oauth
// Control routes (not upstreams): GET /_hits (arrival log, measured here), POST /_reset, and
// <prefix>/_scenario/<name> which returns HAND-MADE failure responses (429, 503, "Rate exceeded.",
// a slow answer); those are not recordings and say so in an x-fake-upstream header.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createSyntheticOai, type SyntheticOaiOptions } from "./oai-synthetic.ts";
import { FAKE_IDP_CLIENT, createFakeIdentityProvider } from "./identity-provider.ts";
import { crossrefAnswer } from "./crossref.ts";
import { doiRaAnswer } from "./doi-ra.ts";
import { openAlexScenario } from "./openalex.ts";
import { MIRROR_COLUMNS, mirrorRowFingerprint, toMirrorRow } from "../../src/store/arxiv-row.ts";

/** Host name tests use for the fake upstream (never resolvable on a real network). */
export const FAKE_ORIGIN = "http://fake.upstream";

export const UPSTREAM_PREFIXES = {
  ARXIV_API_BASE_URL: "/arxiv-api",
  ARXIV_MIRROR_OAI_BASE_URL: "/arxiv-oai",
  ARXIV_BASE_URL: "/arxiv",
  AR5IV_BASE_URL: "/ar5iv",
  NBER_BASE_URL: "/nber",
  OPENALEX_BASE_URL: "/openalex",
  CROSSREF_BASE_URL: "/crossref",
  DOI_RA_BASE_URL: "/doi-ra",
};

/** The key the fake OpenAlex accepts; any other is answered with the recorded 401. */
export const FAKE_OPENALEX_KEY = "fake-openalex-key";

/** Worker vars that point every upstream at the fake origin. */
export function fakeUpstreamVars(origin: string): Record<string, string> {
  return {
    ...Object.fromEntries(Object.entries(UPSTREAM_PREFIXES).map(([name, prefix]) => [name, origin + prefix])),
    OPENALEX_API_KEY: FAKE_OPENALEX_KEY,
  };
}

/** Worker vars for AUTH_MODE=oauth against the fake identity provider (hand-made; see identity-provider.ts). */
export function fakeIdentityProviderVars(origin: string, idp: "github" | "oidc" = "github"): Record<string, string> {
  return {
    OAUTH_IDP: idp,
    OAUTH_IDP_CLIENT_ID: FAKE_IDP_CLIENT.id,
    OAUTH_IDP_CLIENT_SECRET: FAKE_IDP_CLIENT.secret,
    OAUTH_GITHUB_BASE_URL: `${origin}/idp/github`,
    OAUTH_GITHUB_API_BASE_URL: `${origin}/idp/github/api`,
    OAUTH_OIDC_ISSUER: `${origin}/idp/oidc`,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function handMadeResponse(status: number, body: BodyInit | null, headers: Record<string, string> = {}) {
  return new Response(body, {
    status,
    headers: { "x-fake-upstream": "hand-made", "content-type": "text/plain", ...headers },
  });
}

// arXiv API requests match a recording when these parameters agree (sortBy/sortOrder ignored).
// An id_list lookup's answer does not depend on paging, so it matches on id_list alone.
const API_KEYS = ["search_query", "start", "max_results"];
const API_DEFAULTS: Record<string, string> = { search_query: "", start: "0", max_results: "10" };

function apiKey(params: URLSearchParams) {
  const idList = params.get("id_list") ?? "";
  if (idList !== "") return `id_list=${idList}`;
  return API_KEYS.map((key) => `${key}=${params.get(key) ?? API_DEFAULTS[key]}`).join("&");
}

/** A row of a manifest.json (recorded: url, file, status_code; hand-made: id_list or id_list_contains). */
interface ManifestEntry {
  url: string;
  file?: string;
  status?: number;
  status_code?: number;
  id_list?: string;
  id_list_contains?: string;
}

/** A row of content-routes.json: a path (and query) and how to answer it. */
interface ContentRoute {
  path: string;
  query?: Record<string, string>;
  kind: string;
  status?: number;
  file?: string;
  truncate_file?: string;
  location?: string;
  content_type?: string;
  datestamps?: [string, string];
  fail_first?: { status: number; file?: string; body?: string; content_type?: string; retry_after?: string };
}

/** One request the fake answered (GET /_hits). */
export interface UpstreamHit {
  at: number;
  method: string;
  path: string;
  userAgent: string | null;
}

export function createFixtureRouter({ fixturesDir }: { fixturesDir: string }) {
  const hits: UpstreamHit[] = [];
  const identityProvider = createFakeIdentityProvider();
  let apiManifest: Map<string, { file: string; status?: number }> | undefined;
  let handMadeManifest: ManifestEntry[] = [];

  async function loadApiManifests() {
    if (!apiManifest) {
      const dir = path.join(fixturesDir, "arxiv-api", "v2026");
      const entries: ManifestEntry[] = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8"));
      apiManifest = new Map(
        entries.map((entry) => [
          apiKey(new URL(entry.url).searchParams),
          { file: path.join(dir, entry.file!), status: entry.status_code },
        ]),
      );
      // Hand-made answers where no recording exists (see test/fixtures/SOURCES.md).
      const handDir = path.join(fixturesDir, "arxiv-api", "hand-made");
      handMadeManifest = (
        JSON.parse(await readFile(path.join(handDir, "manifest.json"), "utf8")) as ManifestEntry[]
      ).map((entry) => ({
        ...entry,
        file: entry.file && path.join(handDir, entry.file),
      }));
    }
    return { recorded: apiManifest, handMade: handMadeManifest };
  }

  async function arxivApi(url: URL) {
    if (url.pathname !== "/arxiv-api/query") return undefined;
    const { recorded, handMade } = await loadApiManifests();
    const idList = url.searchParams.get("id_list") ?? "";
    const made = handMade.find(
      (entry) =>
        entry.id_list === idList || (entry.id_list_contains && idList.split(",").includes(entry.id_list_contains)),
    );
    const match: { file?: string; status?: number; status_code?: number } | undefined =
      recorded.get(apiKey(url.searchParams)) ?? made;
    if (!match) return undefined;
    const kind = match === made ? "hand-made" : "recorded";
    const body = match.file ? await readFile(match.file) : "Internal Server Error";
    return new Response(body, {
      status: match.status ?? match.status_code,
      headers: {
        "content-type": match.file ? "application/atom+xml; charset=utf-8" : "text/plain",
        "x-fake-upstream": kind,
      },
    });
  }

  let contentRoutes: ContentRoute[] | undefined;
  const failedOnce = new Set<ContentRoute>();
  // arxiv.org content (html, pdf) and ar5iv, from test/fixtures/content-routes.json.
  async function content(url: URL) {
    contentRoutes ??= JSON.parse(
      await readFile(path.join(fixturesDir, "content-routes.json"), "utf8"),
    ) as ContentRoute[];
    // A route with a query matches when every listed parameter has that value.
    const route = contentRoutes.find(
      (candidate: ContentRoute) =>
        candidate.path === url.pathname &&
        Object.entries(candidate.query ?? {}).every(([key, value]) => url.searchParams.get(key) === value),
    );
    if (!route) return undefined;
    // datestamps: an OAI-PMH listing whose records carry datestamps in this range; a from/until
    // window that misses the range is answered like arXiv does, with noRecordsMatch (recorded).
    if (route.datestamps) {
      const [first, last] = route.datestamps;
      const from = url.searchParams.get("from");
      const until = url.searchParams.get("until");
      if ((from !== null && from > last) || (until !== null && until < first)) {
        const body = await readFile(path.join(fixturesDir, "oai-pmh/recorded/error_noRecordsMatch.xml"));
        return new Response(body, {
          status: 200,
          headers: { "x-fake-upstream": "recorded", "content-type": "text/xml; charset=utf-8" },
        });
      }
    }
    // fail_first: the first request to this route gets another answer (a failure to recover from).
    if (route.fail_first && !failedOnce.has(route)) {
      failedOnce.add(route);
      const fail = route.fail_first;
      const headers: Record<string, string> = {
        "x-fake-upstream": "hand-made",
        "content-type": fail.content_type ?? "text/plain",
        ...(fail.retry_after ? { "retry-after": fail.retry_after } : {}),
      };
      return new Response(fail.file ? await readFile(path.join(fixturesDir, fail.file)) : (fail.body ?? ""), {
        status: fail.status,
        headers,
      });
    }
    const headers: Record<string, string> = { "x-fake-upstream": route.kind };
    if (route.location) headers.location = route.location;
    if (route.content_type) headers["content-type"] = route.content_type;
    if (route.file)
      return new Response(await readFile(path.join(fixturesDir, route.file)), { status: route.status ?? 200, headers });
    if (route.truncate_file) {
      const bytes = await readFile(path.join(fixturesDir, route.truncate_file));
      return new Response(bytes.subarray(0, 20_000), { status: 200, headers });
    }
    return new Response(route.status === 307 ? null : route.status === 403 ? "Forbidden" : "Service Unavailable", {
      status: route.status,
      headers,
    });
  }

  async function scenario(url: URL, request: Request) {
    const segments = url.pathname.split("/");
    const name = segments[segments.indexOf("_scenario") + 1];
    const retryAfter = url.searchParams.get("retry_after");
    switch (name) {
      case "ok":
        return handMadeResponse(200, "ok");
      case "status-429":
        return handMadeResponse(429, "Too Many Requests", retryAfter ? { "retry-after": retryAfter } : {});
      case "status-503":
        return handMadeResponse(503, "Service Unavailable", retryAfter ? { "retry-after": retryAfter } : {});
      case "status-500":
        return handMadeResponse(500, "Internal Server Error");
      case "redirect": {
        // ?hops=N: N redirects (302) down to /_scenario/ok under the same prefix.
        const hops = Number(url.searchParams.get("hops") ?? "1");
        const prefix = url.pathname.slice(0, url.pathname.indexOf("/_scenario/"));
        const next = hops > 1 ? `${prefix}/_scenario/redirect?hops=${hops - 1}` : `${prefix}/_scenario/ok`;
        return handMadeResponse(302, "", { location: next });
      }
      case "status-400":
        return handMadeResponse(400, "Bad Request");
      case "rate-exceeded":
        // arXiv's legacy APIs answer an over-eager client this way (documented, not recorded here).
        return handMadeResponse(200, "Rate exceeded.");
      case "empty":
        return handMadeResponse(200, "", { "content-type": "application/atom+xml" });
      case "html":
        return handMadeResponse(
          200,
          "<!doctype html><html><body><h1>Service temporarily unavailable</h1><script>alert(1)</script></body></html>",
          { "content-type": "text/html" },
        );
      case "not-xml":
        return handMadeResponse(200, "\u0000\u0001 this is not xml {", { "content-type": "application/atom+xml" });
      case "entity-expansion":
        return handMadeResponse(
          200,
          '<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><feed xmlns="http://www.w3.org/2005/Atom"><title>&c;</title></feed>',
          { "content-type": "application/atom+xml" },
        );
      case "xxe":
        return handMadeResponse(
          200,
          '<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY secret SYSTEM "file:///etc/passwd">]><feed xmlns="http://www.w3.org/2005/Atom"><title>&secret;</title></feed>',
          { "content-type": "application/atom+xml" },
        );
      case "huge-xml": {
        // 100 MB, generated as it streams: an Atom head, then entries without end.
        const head = new TextEncoder().encode("<?xml version='1.0'?><feed xmlns=\"http://www.w3.org/2005/Atom\">");
        const entry = new TextEncoder().encode(
          `<entry><id>http://arxiv.org/abs/2401.00001v1</id><title>${"x".repeat(4000)}</title></entry>`,
        );
        let sent = 0;
        const body = new ReadableStream({
          start(controller) {
            controller.enqueue(head);
          },
          pull(controller) {
            if (sent >= 100 * 1024 * 1024) return controller.close();
            controller.enqueue(entry);
            sent += entry.byteLength;
          },
        });
        return new Response(body, {
          headers: { "content-type": "application/atom+xml", "x-fake-upstream": "hand-made" },
        });
      }
      case "drip": {
        // A body that never ends: one byte every 100 ms until the client goes away (or, so that the
        // fake itself never outlives a test run, for at most 30 s).
        let timer: ReturnType<typeof setInterval> | undefined;
        let ticks = 0;
        const body = new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("<?xml version='1.0'?><feed>"));
            timer = setInterval(() => {
              try {
                if (++ticks > 300) {
                  clearInterval(timer);
                  controller.close();
                  return;
                }
                controller.enqueue(new TextEncoder().encode(" "));
              } catch {
                clearInterval(timer);
              }
            }, 100);
            timer.unref?.();
          },
          cancel() {
            clearInterval(timer);
          },
        });
        request.signal?.addEventListener?.("abort", () => clearInterval(timer));
        return new Response(body, {
          headers: { "content-type": "application/atom+xml", "x-fake-upstream": "hand-made" },
        });
      }
      case "truncated-xml":
        return handMadeResponse(
          200,
          "<?xml version='1.0'?><feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>http://arxiv.org/abs/2401.1",
          { "content-type": "application/atom+xml" },
        );
      case "huge-html": {
        // 50 MB of valid HTML, generated as it streams (never held in memory), for /html/ paths only.
        if (!url.pathname.includes("/html/")) return undefined;
        const chunk = new TextEncoder().encode(`<p>${"lorem ipsum dolor sit amet ".repeat(2000)}</p>\n`);
        let sent = 0;
        const total = 50 * 1024 * 1024;
        const body = new ReadableStream({
          pull(controller) {
            if (sent >= total) return controller.close();
            controller.enqueue(chunk);
            sent += chunk.byteLength;
          },
        });
        return new Response(body, { headers: { "content-type": "text/html", "x-fake-upstream": "hand-made" } });
      }
      case "slow": {
        const ms = Math.min(Number(url.searchParams.get("ms") ?? "1000"), 60_000);
        await Promise.race([sleep(ms), new Promise((resolve) => request.signal?.addEventListener?.("abort", resolve))]);
        return handMadeResponse(200, "slow ok");
      }
      default:
        return undefined;
    }
  }

  // Raw fixture files for parser tests inside workerd (which has no file system).
  async function fixtureFile(relative: string) {
    const full = path.resolve(fixturesDir, decodeURIComponent(relative));
    if (!full.startsWith(path.resolve(fixturesDir) + path.sep))
      return new Response("outside fixtures", { status: 400 });
    try {
      return new Response(await readFile(full), { headers: { "x-fake-upstream": "fixture-file" } });
    } catch {
      return new Response("no such fixture", { status: 404 });
    }
  }

  // /arxiv-oai/synthetic: a synthetic OAI-PMH endpoint (oai-synthetic.ts), set up by a test with
  // POST .../_configure {n, pageSize, ...}; .../_mutate changes records, .../_expected lists the
  // fingerprint of every record it holds, .../_stats counts what it served.
  let synthetic: ReturnType<typeof createSyntheticOai> | undefined;
  async function syntheticOai(url: URL, request: Request) {
    const control = url.pathname.slice("/arxiv-oai/synthetic".length);
    if (control === "/_configure") {
      synthetic = createSyntheticOai((await request.json()) as SyntheticOaiOptions);
      return Response.json({ size: synthetic.size() });
    }
    if (!synthetic) return new Response("synthetic OAI endpoint not configured", { status: 404 });
    if (control === "/_mutate") {
      synthetic.mutate(await request.json());
      return Response.json({ size: synthetic.size() });
    }
    if (control === "/_expected") {
      const fingerprints: Record<string, string> = {};
      for (const record of synthetic.records()) {
        const { paper_key: _key, ...row } = toMirrorRow(record, 0);
        fingerprints[record.id] = mirrorRowFingerprint(row);
      }
      return Response.json({ columns: MIRROR_COLUMNS, fingerprints });
    }
    if (control === "/_stats") return Response.json(synthetic.stats);
    if (control === "/_forget-tokens") {
      synthetic.forgetTokens();
      return Response.json({ size: synthetic.size() });
    }
    return synthetic.handle(request);
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/arxiv-oai/synthetic")) return syntheticOai(url, request);
    if (url.pathname === "/_hits") return Response.json(hits);
    if (url.pathname.startsWith("/idp/")) {
      const answer = await identityProvider.handle(request);
      if (answer) return answer;
    }
    if (url.pathname.startsWith("/_fixtures/")) return fixtureFile(url.pathname.slice("/_fixtures/".length));
    if (url.pathname === "/_reset") {
      hits.length = 0;
      failedOnce.clear();
      return new Response(null, { status: 204 });
    }
    hits.push({
      at: Date.now(),
      method: request.method,
      path: url.pathname + url.search,
      userAgent: request.headers.get("user-agent"),
    });
    if (url.pathname.startsWith("/openalex/") && url.searchParams.get("api_key") !== FAKE_OPENALEX_KEY) {
      // OpenAlex's recorded answer to a key it does not know.
      return new Response(await readFile(path.join(fixturesDir, "openalex/error_401_invalid-api-key_2026-03.json")), {
        status: 401,
        headers: { "content-type": "application/json", "x-fake-upstream": "recorded" },
      });
    }
    const response = url.pathname.startsWith("/crossref/")
      ? await crossrefAnswer(url, fixturesDir)
      : url.pathname.startsWith("/doi-ra/ra/")
        ? doiRaAnswer(url)
        : url.pathname.startsWith("/openalex/_scenario/")
          ? openAlexScenario(url)
          : url.pathname.includes("/_scenario/")
            ? await scenario(url, request)
            : ((await arxivApi(url)) ?? (await content(url)));
    return (
      response ??
      new Response(`fake upstream: no recorded fixture for ${request.method} ${url.pathname}${url.search}`, {
        status: 404,
        headers: { "content-type": "text/plain", "x-fake-upstream": "no-fixture" },
      })
    );
  }

  return { handle, hits };
}
