// The one fixture router. Tests (miniflare's outboundService) and the loopback fake upstream
// (scripts/fake-upstream/server.mjs) both answer upstream requests through it, so a test and a
// local demo see the same recorded responses.
//
// Every upstream lives under its own path prefix, so one origin serves them all:
//   <origin>/arxiv-api   export.arxiv.org/api       <origin>/arxiv-oai  oaipmh.arxiv.org/oai
//   <origin>/arxiv       arxiv.org (abs/html/pdf)   <origin>/ar5iv      ar5iv.labs.arxiv.org
//   <origin>/nber        www.nber.org
// Control routes (not upstreams): GET /_hits (arrival log, measured here), POST /_reset, and
// <prefix>/_scenario/<name> which returns HAND-MADE failure responses (429, 503, "Rate exceeded.",
// a slow answer); those are not recordings and say so in an x-fake-upstream header.
import { readFile } from "node:fs/promises";
import path from "node:path";

/** Host name tests use for the fake upstream (never resolvable on a real network). */
export const FAKE_ORIGIN = "http://fake.upstream";

export const UPSTREAM_PREFIXES = {
  ARXIV_API_BASE_URL: "/arxiv-api",
  ARXIV_MIRROR_OAI_BASE_URL: "/arxiv-oai",
  ARXIV_BASE_URL: "/arxiv",
  AR5IV_BASE_URL: "/ar5iv",
  NBER_BASE_URL: "/nber",
};

/** Worker vars that point every upstream at the fake origin. */
export function fakeUpstreamVars(origin) {
  return Object.fromEntries(Object.entries(UPSTREAM_PREFIXES).map(([name, prefix]) => [name, origin + prefix]));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function handMade(status, body, headers = {}) {
  return new Response(body, { status, headers: { "x-fake-upstream": "hand-made", "content-type": "text/plain", ...headers } });
}

// arXiv API requests match a recording when these parameters agree (sortBy/sortOrder ignored).
const API_KEYS = ["search_query", "id_list", "start", "max_results"];
const API_DEFAULTS = { search_query: "", id_list: "", start: "0", max_results: "10" };

function apiKey(params) {
  return API_KEYS.map((key) => `${key}=${params.get(key) ?? API_DEFAULTS[key]}`).join("&");
}

export function createFixtureRouter({ fixturesDir }) {
  const hits = [];
  let apiManifest;

  async function loadApiManifest() {
    if (!apiManifest) {
      const dir = path.join(fixturesDir, "arxiv-api", "v2026");
      const entries = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8"));
      apiManifest = new Map(
        entries.map((entry) => [apiKey(new URL(entry.url).searchParams), { file: path.join(dir, entry.file), status: entry.status_code }]),
      );
    }
    return apiManifest;
  }

  async function arxivApi(url) {
    if (url.pathname !== "/arxiv-api/query") return undefined;
    const match = (await loadApiManifest()).get(apiKey(url.searchParams));
    if (!match) return undefined;
    return new Response(await readFile(match.file), {
      status: match.status,
      headers: { "content-type": "application/atom+xml; charset=utf-8", "x-fake-upstream": "recorded" },
    });
  }

  async function scenario(url, request) {
    const segments = url.pathname.split("/");
    const name = segments[segments.indexOf("_scenario") + 1];
    const retryAfter = url.searchParams.get("retry_after");
    switch (name) {
      case "ok":
        return handMade(200, "ok");
      case "status-429":
        return handMade(429, "Too Many Requests", retryAfter ? { "retry-after": retryAfter } : {});
      case "status-503":
        return handMade(503, "Service Unavailable", retryAfter ? { "retry-after": retryAfter } : {});
      case "status-500":
        return handMade(500, "Internal Server Error");
      case "status-400":
        return handMade(400, "Bad Request");
      case "rate-exceeded":
        // arXiv's legacy APIs answer an over-eager client this way (documented, not recorded here).
        return handMade(200, "Rate exceeded.");
      case "slow": {
        const ms = Math.min(Number(url.searchParams.get("ms") ?? "1000"), 60_000);
        await Promise.race([sleep(ms), new Promise((resolve) => request.signal?.addEventListener?.("abort", resolve))]);
        return handMade(200, "slow ok");
      }
      default:
        return undefined;
    }
  }

  async function handle(request) {
    const url = new URL(request.url);
    if (url.pathname === "/_hits") return Response.json(hits);
    if (url.pathname === "/_reset") {
      hits.length = 0;
      return new Response(null, { status: 204 });
    }
    hits.push({ at: Date.now(), method: request.method, path: url.pathname + url.search, userAgent: request.headers.get("user-agent") });
    const response = url.pathname.includes("/_scenario/") ? await scenario(url, request) : await arxivApi(url);
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
