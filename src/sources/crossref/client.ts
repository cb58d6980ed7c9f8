// The Crossref REST API client (api.crossref.org, free, no key): every request through
// politeFetch and the "crossref" crawl gate, identical requests coalesced, answers cached in D1
// for CROSSREF_CACHE_TTL_SECONDS. With CROSSREF_MAILTO set, each request carries mailto= and
// Crossref serves it from its polite pool. The pool and limits Crossref states in its headers
// (x-api-pool, x-rate-limit-limit, x-rate-limit-interval, x-concurrency-limit) are kept per
// isolate for /status; the concurrency limit also in the crossref gate, which holds every
// isolate's requests in flight to it. Only whole answers are cached: a 404 for a DOI is an answer ("no such
// work"); a 429, a 5xx, a timeout or a body that is not whole JSON writes nothing.
import { crossrefSpacingMs } from "../../config";
import { PapersError } from "../../errors";
import { cacheGet, cacheWrite } from "../../store/cache";
import { coalesce } from "../../upstream/coalesce";
import { politeFetch, readTextCapped } from "../../upstream/fetch";
import type { AppContext } from "../../context";

export const CROSSREF = "crossref";
/** A page of 5 works with select= is a few kB; past this it is not an answer we asked for. */
const MAX_BODY_BYTES = 2_000_000;
/** An unknown DOI may be registered tomorrow: its 404 is reused for a day at most. */
const UNKNOWN_DOI_TTL_MS = 86_400_000;

/** What Crossref said of its limits on the last answer this isolate read. */
export interface CrossrefLimits {
  pool: string | null;
  rate_limit: string | null;
  rate_interval: string | null;
  concurrency: string | null;
  seen_at: string;
}

let lastLimits: CrossrefLimits | null = null;
let callsToday = { day: "", calls: 0 };

/** Crossref's pool and limits as last stated, and this isolate's requests today (for /status). */
export function crossrefStatus(ctx: AppContext, now = Date.now()) {
  const day = new Date(now).toISOString().slice(0, 10);
  return {
    enabled: ctx.config.CROSSREF_ENABLED,
    pool_requested: ctx.config.CROSSREF_MAILTO ? "polite" : "public",
    spacing_ms: crossrefSpacingMs(ctx.config),
    limits_seen: lastLimits,
    isolate_calls_today: callsToday.day === day ? callsToday.calls : 0,
  };
}

/**
 * GETs `path` (with its query) from Crossref and returns its `message`; null for a 404 (no such
 * work). Served from the D1 cache when fresh.
 */
export async function crossrefGet(ctx: AppContext, path: string, deadline?: number): Promise<unknown | null> {
  const mailto = ctx.config.CROSSREF_MAILTO;
  const url = mailto ? `${path}${path.includes("?") ? "&" : "?"}mailto=${encodeURIComponent(mailto)}` : path;
  const key = `crossref:${path}`;
  const cached = await cacheGet<{ message: unknown | null }>(ctx.env.DB, key);
  if (cached) return cached.value.message;
  return coalesce(key, async () => {
    const response = await politeFetch(ctx, CROSSREF, url, {
      passStatuses: [400, 404],
      headers: { accept: "application/json" },
      // The gate keeps Crossref's stated concurrency: never more requests in flight than it allows.
      concurrencyHeader: "x-concurrency-limit",
      ...(deadline === undefined ? {} : { deadline }),
    });
    count();
    noteLimits(response.headers);
    const message = await readMessage(response);
    const configured = ctx.config.CROSSREF_CACHE_TTL_SECONDS * 1000;
    const ttlMs = message === null ? Math.min(configured, UNKNOWN_DOI_TTL_MS) : configured;
    if (ttlMs > 0) await cacheWrite(ctx, [{ key, value: { message }, ttlMs }]);
    return message;
  });
}

async function readMessage(response: Response): Promise<unknown | null> {
  if (response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  const text = await readTextCapped(response, MAX_BODY_BYTES, "Crossref");
  if (response.status === 400)
    throw new PapersError("invalid_request", `Crossref refused the request (HTTP 400${errorMessage(text)}).`, {
      recovery: "This request will not succeed if repeated; report the call to the server's operator.",
    });
  let body: { status?: unknown; message?: unknown };
  try {
    body = JSON.parse(text) as { status?: unknown; message?: unknown };
  } catch (error) {
    throw new PapersError("upstream_malformed", "Crossref answered something that is not whole JSON.", {
      retryable: true,
      recovery: "Retry later; if it persists, Crossref is misbehaving.",
      cause: error,
    });
  }
  if (body.status !== "ok" || typeof body.message !== "object" || body.message === null)
    throw new PapersError("upstream_malformed", "Crossref answered JSON without an ok message.", {
      retryable: true,
      recovery: "Retry later; if it persists, Crossref is misbehaving.",
    });
  return body.message;
}

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: { message?: unknown }[] };
    const said = body.message?.[0]?.message;
    return typeof said === "string" ? `: ${said.slice(0, 160)}` : "";
  } catch {
    return "";
  }
}

function noteLimits(headers: Headers): void {
  const pool = headers.get("x-api-pool");
  const limit = headers.get("x-rate-limit-limit") ?? headers.get("x-ratelimit-limit");
  if (!pool && !limit) return;
  lastLimits = {
    pool,
    rate_limit: limit,
    rate_interval: headers.get("x-rate-limit-interval") ?? headers.get("x-ratelimit-interval"),
    concurrency: headers.get("x-concurrency-limit"),
    seen_at: new Date().toISOString(),
  };
}

function count(now = Date.now()): void {
  const day = new Date(now).toISOString().slice(0, 10);
  callsToday = callsToday.day === day ? { day, calls: callsToday.calls + 1 } : { day, calls: 1 };
}
