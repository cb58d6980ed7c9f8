// politeFetch(): the only way code reaches an upstream. It builds the URL from the configured
// base (never from user input), waits for its turn at the upstream's CrawlGate (gate-client.ts),
// fetches with a timeout and turns every kind of failure into a typed PapersError.
import { type UpstreamSettings, upstreamSettings, type Upstream } from "../config";
import { type ErrorReason, PapersError } from "../errors";
import { collectCapped } from "../streams";
import type { ReleaseReport } from "./gate";
import { deadlineRefusal, endTurn, spendSubrequests, takeTurn, type Turn } from "./gate-client";
import type { AppContext } from "../context";

export interface PoliteFetchOptions {
  method?: "GET" | "HEAD" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Epoch ms by which the whole call must be over (gate wait included); never past the call's own deadline. */
  deadline?: number;
  /**
   * Statuses handed back to the caller instead of thrown (404 by default: "no such thing").
   * 429 and 503-with-Retry-After always cool the gate down and throw.
   */
  passStatuses?: readonly number[];
  /** Do not follow redirects (ar5iv answers 307 for "not converted"). */
  manualRedirect?: boolean;
  /** More tries after a 5xx or a network error (backoff 0.5 s, 1 s, ...), each through the gate again. */
  retries?: number;
  /**
   * Runs once the gate has let a request go, just before each fetch (each hop and retry): a paid
   * allowance is taken here, so that a request refused or expired on the way takes none. A throw
   * sends nothing (the lease goes back).
   */
  beforeSend?: () => Promise<void>;
  /** The header in which the upstream states its concurrency limit (Crossref: x-concurrency-limit); the gate keeps it. */
  concurrencyHeader?: string;
}

export { GateRefusal } from "./gate-client";

/** Builds base + path. The path must be absolute (or a query on the base) and may not switch host or scheme. */
export function upstreamUrl(baseUrl: string, path: string): string {
  if (!(path.startsWith("/") || path.startsWith("?")) || path.startsWith("//") || /[\s\\]/.test(path)) {
    throw new PapersError("internal_error", `Refusing to build an upstream URL from path ${JSON.stringify(path)}`, {
      recovery: "This is a bug in papers-mcp; please report it.",
    });
  }
  return baseUrl + path;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unparsable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Fetches `path` from the upstream's configured base, in its turn at the upstream's crawl gate
 * (spacing, a concurrency lease, the client's share of the queue), within the deadline, every
 * subrequest counted in the call's budget; failures are typed PapersErrors.
 */
export async function politeFetch(
  ctx: AppContext,
  upstream: Upstream,
  path: string,
  options: PoliteFetchOptions = {},
): Promise<Response> {
  const settings = upstreamSettings(ctx.config, upstream);
  const url = upstreamUrl(settings.baseUrl, path);
  const attempts = 1 + (options.retries ?? 0);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetchOnce(ctx, upstream, url, settings, options);
    } catch (error) {
      const backoffMs = 500 * 2 ** (attempt - 1);
      const retry =
        attempt < attempts &&
        error instanceof PapersError &&
        error.reason === "upstream_unavailable" &&
        error.retryAfterMs === undefined &&
        (options.deadline === undefined || Date.now() + backoffMs < options.deadline);
      if (!retry) throw error;
      await sleep(backoffMs);
    }
  }
}

async function fetchOnce(
  ctx: AppContext,
  upstream: Upstream,
  url: string,
  settings: UpstreamSettings,
  options: PoliteFetchOptions,
  hops = 0,
): Promise<Response> {
  const deadline = Math.min(
    options.deadline ?? Date.now() + settings.timeoutMs,
    ctx.call?.budget.deadline ?? Number.POSITIVE_INFINITY,
  );
  const turn = await takeTurn(ctx, upstream, settings, deadline);
  const { answer, cooldownMs } = await sendInTurn(ctx, turn, upstream, url, settings, options, deadline);
  const { response } = answer;
  const location = response.headers.get("location");
  if (!options.manualRedirect && REDIRECTS.has(response.status) && location) {
    await response.body?.cancel();
    if (hops >= MAX_REDIRECTS) {
      throw new PapersError("upstream_unavailable", `${upstream} redirected more than ${MAX_REDIRECTS} times.`, {
        retryable: true,
        recovery: "Retry later; the upstream is misconfigured.",
      });
    }
    // Redirects are followed here, each hop in its own turn at the gate like any request.
    const next = new URL(location, url).toString();
    const method = response.status === 303 ? "GET" : options.method;
    return fetchOnce(
      ctx,
      upstream,
      next,
      settings,
      { ...options, ...(method === undefined ? {} : { method }), deadline },
      hops + 1,
    );
  }
  return classify(upstream, answer, options, cooldownMs);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 3;

/** An answer as the gate hears of it. */
interface Answer {
  response: Response;
  report: ReleaseReport;
}

/**
 * Sends the request with the turn's lease and gives the lease back once the answer's headers are in
 * (or the request failed, or was not sent after all): the next request may leave then. The caller
 * waits for the release only after a slow-down (its cooldown is in the error).
 */
async function sendInTurn(
  ctx: AppContext,
  turn: Turn,
  upstream: Upstream,
  url: string,
  settings: UpstreamSettings,
  options: PoliteFetchOptions,
  deadline: number,
): Promise<{ answer: Answer; cooldownMs: number | null }> {
  let report: ReleaseReport = { answer: "not_sent" };
  let answer: Answer | undefined;
  let cooldownMs: number | null = null;
  try {
    const timeLeft = deadline - Date.now();
    if (timeLeft <= 0) throw deadlineRefusal(upstream);
    spendSubrequests(ctx, upstream, 1, 1, `a fetch from ${upstream}`);
    await options.beforeSend?.();
    report = { answer: "failed" };
    answer = await readAnswer(await send(upstream, url, settings, options, timeLeft), options);
    report = answer.report;
  } finally {
    // A slow-down's release answers with the cooldown the error tells; any other release nothing waits on.
    if (report.answer === "rate_limited") cooldownMs = await endTurn(turn, report);
    else ctx.waitUntil(endTurn(turn, report));
  }
  return { answer: answer!, cooldownMs };
}

async function send(
  upstream: Upstream,
  url: string,
  settings: UpstreamSettings,
  options: PoliteFetchOptions,
  timeLeft: number,
): Promise<Response> {
  try {
    return await fetch(url, {
      method: options.method ?? "GET",
      headers: { "user-agent": settings.userAgent, ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
      redirect: "manual",
      signal: AbortSignal.timeout(Math.min(timeLeft, settings.timeoutMs)),
    });
  } catch (error) {
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
      throw timeoutError(upstream);
    throw new PapersError("upstream_unavailable", `${upstream} could not be reached.`, {
      retryable: true,
      recovery: "Retry in a minute; if it persists the upstream is down.",
      cause: error,
    });
  }
}

/** What the gate must hear of an answer: a slow-down, or a concurrency the upstream stated. */
async function readAnswer(response: Response, options: PoliteFetchOptions): Promise<Answer> {
  const status = response.status;
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
  const stated = options.concurrencyHeader ? Number(response.headers.get(options.concurrencyHeader) ?? "") : Number.NaN;
  const news = {
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(Number.isInteger(stated) && stated > 0 ? { statedConcurrency: stated } : {}),
  };
  if (status === 429 || (status === 503 && retryAfterMs !== undefined))
    return { response, report: { answer: "rate_limited", ...news } };
  // arXiv's legacy APIs answer an over-eager client with HTTP 200 and a plain-text "Rate exceeded.".
  if (status === 200 && (response.headers.get("content-type") ?? "").startsWith("text/plain")) {
    const text = await response.text();
    const answer = text.trim() === "Rate exceeded." ? "rate_limited" : "ok";
    return { response: new Response(text, response), report: { answer, ...news } };
  }
  return { response, report: { answer: "ok", ...news } };
}

async function classify(
  upstream: Upstream,
  { response, report }: Answer,
  options: PoliteFetchOptions,
  cooldownMs: number | null,
): Promise<Response> {
  const status = response.status;
  if (report.answer === "rate_limited") {
    await response.body?.cancel();
    const waitMs = Math.max(cooldownMs ?? 0, report.retryAfterMs ?? 0, 1000);
    const [reason, message] =
      status === 429
        ? (["rate_limited", `${upstream} rate-limited this server (HTTP 429).`] as const)
        : status === 503
          ? (["upstream_unavailable", `${upstream} is temporarily unavailable (HTTP 503).`] as const)
          : (["rate_limited", `${upstream} answered "Rate exceeded.".`] as const);
    throw new PapersError(reason, message, {
      retryable: true,
      retryAfterMs: waitMs,
      recovery: `Retry after ${Math.ceil(waitMs / 1000)} s.`,
    });
  }
  const passed = (options.passStatuses ?? [404]).includes(status);
  if (status >= 500 && !passed) {
    await response.body?.cancel();
    throw new PapersError("upstream_unavailable", `${upstream} answered HTTP ${status}.`, {
      retryable: true,
      recovery: "Retry in a minute; if it persists the upstream is down.",
    });
  }
  if (status >= 400 && !passed) {
    await response.body?.cancel();
    throw new PapersError("invalid_request", `${upstream} rejected the request (HTTP ${status}).`, {
      recovery: "Check the arguments; this request will not succeed if repeated unchanged.",
    });
  }
  return response;
}

function timeoutError(upstream: Upstream): PapersError {
  return new PapersError("timeout", `${upstream} did not answer within the time budget.`, {
    retryable: true,
    recovery: "Retry later, or narrow the request.",
  });
}

/**
 * Reads a body as text, stopping at maxBytes: a runaway upstream cannot exhaust memory.
 * Fails upstream_malformed when the body is larger.
 */
export async function readTextCapped(response: Response, maxBytes: number, upstream: string): Promise<string> {
  return new TextDecoder().decode(await readBytesCapped(response, maxBytes, "upstream_malformed", upstream));
}

/** Reads a body as bytes, stopping at maxBytes; past it, fails with `reason` (and reads no further). */
export async function readBytesCapped(
  response: Response,
  maxBytes: number,
  reason: ErrorReason,
  what: string,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge(what, maxBytes, reason);
  }
  if (!response.body) return new Uint8Array();
  let bytes: Uint8Array | undefined;
  try {
    bytes = await collectCapped(response.body, maxBytes, declared > 0 ? declared : undefined);
  } catch (error) {
    // The request's timeout signal also covers the body: a body that never ends stops here.
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
      throw new PapersError("timeout", `${what} did not finish arriving within the time budget.`, {
        retryable: true,
        recovery: "Retry later.",
      });
    }
    throw new PapersError("upstream_unavailable", `${what} broke off while arriving.`, {
      retryable: true,
      recovery: "Retry in a minute.",
      cause: error,
    });
  }
  if (!bytes) throw tooLarge(what, maxBytes, reason);
  return bytes;
}

function tooLarge(what: string, maxBytes: number, reason: ErrorReason): PapersError {
  const mb = Math.round(maxBytes / 1e6);
  return reason === "content_too_large"
    ? new PapersError(reason, `${what} is larger than ${mb} MB, this server's limit.`, {
        recovery: "Open the paper on arxiv.org instead.",
      })
    : new PapersError(reason, `${what} sent more than ${mb} MB where a small answer was expected.`, {
        retryable: true,
        recovery: "Retry later; if it persists, the upstream is misbehaving.",
      });
}
