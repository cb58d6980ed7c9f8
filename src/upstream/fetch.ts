// politeFetch(): the only way code reaches an upstream. It builds the URL from the configured
// base (never from user input), waits for a CrawlGate slot, fetches with a timeout and turns
// every kind of failure into a typed PapersError.
import { upstreamSettings, type Upstream } from "../config";
import { type ErrorReason, PapersError } from "../errors";
import { collectCapped } from "../streams";
import type { CrawlGate } from "./gate";
import type { AppContext } from "../context";

export interface PoliteFetchOptions {
  method?: "GET" | "HEAD" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Epoch ms by which the whole call must be over (gate wait included). */
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
}

type GateStub = DurableObjectStub<CrawlGate>;

/**
 * Our own crawl gate said "not now" (it is cooling down, or its queue is past the caller's
 * budget): nothing was sent upstream. A harvest waits and tries again without counting a failure.
 */
export class GateRefusal extends PapersError {
  override name = "GateRefusal";
}

function gateFor(ctx: AppContext, name: string): GateStub {
  return ctx.env.CRAWL_GATE.get(ctx.env.CRAWL_GATE.idFromName(name));
}

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
  settings: ReturnType<typeof upstreamSettings>,
  options: PoliteFetchOptions,
  hops = 0,
): Promise<Response> {
  const deadline = options.deadline ?? Date.now() + settings.timeoutMs;
  const gate = gateFor(ctx, settings.gate);
  const slot = await gate.reserve({
    delayMs: settings.delayMs,
    marginMs: settings.marginMs,
    maxWaitMs: Math.max(0, deadline - Date.now()),
  });
  if (!slot.granted) {
    throw new GateRefusal(
      "rate_limited",
      slot.reason === "cooldown"
        ? `${upstream} asked us to slow down; papers-mcp is cooling down before contacting it again.`
        : `${upstream} is busy: the next free request slot is later than this call's time budget allows.`,
      {
        retryable: true,
        retryAfterMs: slot.retryAfterMs,
        recovery: `Retry after ${Math.ceil(slot.retryAfterMs / 1000)} s.`,
      },
    );
  }
  if (slot.waitMs > 0) await sleep(slot.waitMs);
  // The departure itself goes through the gate (one more call to it), so spacing holds between
  // requests as they leave, not as their slots were handed out.
  await departWhenClear(gate, upstream, settings, deadline);
  // A wait that used up the budget: sending now would spend the upstream's slot on a certain timeout.
  if (slot.waitMs > 0 && deadline - Date.now() < minUsefulMs(settings.timeoutMs)) throw timeoutError(upstream);

  const timeLeft = deadline - Date.now();
  if (timeLeft <= 0) throw timeoutError(upstream);
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? "GET",
      headers: { "user-agent": settings.userAgent, ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
      // Redirects are followed here, each hop through the gate like any request.
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
  const location = response.headers.get("location");
  if (!options.manualRedirect && REDIRECTS.has(response.status) && location) {
    await response.body?.cancel();
    if (hops >= MAX_REDIRECTS) {
      throw new PapersError("upstream_unavailable", `${upstream} redirected more than ${MAX_REDIRECTS} times.`, {
        retryable: true,
        recovery: "Retry later; the upstream is misconfigured.",
      });
    }
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
  return classify(gate, upstream, response, options, slot.cooling);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 3;

/** At least this much of a call's budget must be left to send a request. */
function minUsefulMs(timeoutMs: number): number {
  return Math.min(1000, Math.floor(timeoutMs / 4));
}

/** After waiting for a slot: send only when the gate agrees (spacing since the last departure, no cooldown). */
async function departWhenClear(
  gate: GateStub,
  upstream: Upstream,
  spacing: { delayMs: number; marginMs: number },
  deadline: number,
): Promise<void> {
  for (;;) {
    const answer = await gate.depart({ delayMs: spacing.delayMs, marginMs: spacing.marginMs });
    if (answer.go) return;
    if (answer.reason === "cooldown") {
      throw new GateRefusal(
        "rate_limited",
        `${upstream} asked us to slow down while this call waited; papers-mcp is cooling down before contacting it again.`,
        {
          retryable: true,
          retryAfterMs: answer.retryAfterMs,
          recovery: `Retry after ${Math.ceil(answer.retryAfterMs / 1000)} s.`,
        },
      );
    }
    if (Date.now() + answer.waitMs > deadline) throw timeoutError(upstream);
    await sleep(answer.waitMs);
  }
}

async function classify(
  gate: GateStub,
  upstream: Upstream,
  response: Response,
  options: PoliteFetchOptions,
  cooling: boolean,
): Promise<Response> {
  const status = response.status;
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
  if (status === 429 || (status === 503 && retryAfterMs !== undefined)) {
    await response.body?.cancel();
    const { cooldownMs } = await gate.reportRateLimited(retryAfterMs);
    const waitMs = Math.max(cooldownMs, retryAfterMs ?? 0);
    throw new PapersError(
      status === 429 ? "rate_limited" : "upstream_unavailable",
      status === 429
        ? `${upstream} rate-limited this server (HTTP 429).`
        : `${upstream} is temporarily unavailable (HTTP 503).`,
      { retryable: true, retryAfterMs: waitMs, recovery: `Retry after ${Math.ceil(waitMs / 1000)} s.` },
    );
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
  // arXiv's legacy APIs answer an over-eager client with HTTP 200 and a plain-text "Rate exceeded.".
  if (status === 200 && (response.headers.get("content-type") ?? "").startsWith("text/plain")) {
    const text = await response.text();
    if (text.trim() === "Rate exceeded.") {
      const { cooldownMs } = await gate.reportRateLimited();
      throw new PapersError("rate_limited", `${upstream} answered "Rate exceeded.".`, {
        retryable: true,
        retryAfterMs: cooldownMs,
        recovery: `Retry after ${Math.ceil(cooldownMs / 1000)} s.`,
      });
    }
    response = new Response(text, response);
  }
  if (cooling) await gate.reportOk();
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
