// Abuse limits in front of /mcp: a body size cap, per-client rate limits (Workers Rate Limiting
// bindings: the whole endpoint, and the expensive tools), and a cap on one client's concurrent
// expensive calls (each call of a JSON-RPC batch counts). Transport-level refusals (body size, the
// endpoint limit) are JSON-RPC errors with a reason and a Retry-After; a refused tool call is a tool
// error result the agent can read. Each is worded in the era the request speaks (mcp-era.ts).
import { SERVER_INFO_META_KEY } from "@modelcontextprotocol/server";
import type { ErrorReason } from "../errors";

import { collectCapped } from "../streams";
import { LEGACY, type RequestEra } from "./mcp-era";

export const EXPENSIVE_TOOLS: ReadonlySet<string> = new Set([
  "arxiv_read_paper",
  "nber_read_paper",
  "nber_download_paper",
  // /mcp/chatgpt's fetch reads the paper's text as the read tools do.
  "fetch",
  // A reference or a bibliography of up to 200 entries: mirror walks, Crossref and OpenAlex per entry.
  "papers_resolve_reference",
  "papers_check_bibliography",
]);

/** What a refusal says: the reason from the closed list, why in words, what to do, when to come back. */
export interface Refusal {
  reason: ErrorReason;
  message: string;
  recovery: string;
  retryAfterSeconds?: number;
}

/**
 * The JSON-RPC code of our own refusals toward a 2026-07-28 request. That revision reserves
 * -32020..-32099 for codes it defines, retires -32000..-32019 ("new implementations SHOULD NOT
 * use" them), and asks for new codes outside JSON-RPC's reserved -32768..-32000: this one is
 * ours. A 2025-era request keeps the -32000 its clients have always had.
 */
export const REFUSAL_CODE = -31000;
const LEGACY_REFUSAL_CODE = -32000;

/**
 * A refusal of the whole request (body size, the endpoint's rate limit, a batch too large) as a
 * JSON-RPC error on the HTTP status given. 2025 era: `id: null`, code -32000, as always. 2026
 * era: the request's id (none when it could not be read), and REFUSAL_CODE.
 */
export function jsonRpcRefusal(status: number, refusal: Refusal, era: RequestEra = LEGACY): Response {
  const { reason, message, recovery, retryAfterSeconds } = refusal;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (retryAfterSeconds !== undefined) headers["retry-after"] = String(retryAfterSeconds);
  const data = {
    reason,
    recovery,
    ...(retryAfterSeconds === undefined ? {} : { retry_after_ms: retryAfterSeconds * 1000 }),
  };
  const body =
    era.era === "legacy"
      ? { jsonrpc: "2.0", id: null, error: { code: LEGACY_REFUSAL_CODE, message, data } }
      : {
          jsonrpc: "2.0",
          ...(era.id === undefined ? {} : { id: era.id }),
          error: { code: REFUSAL_CODE, message, data },
        };
  return new Response(JSON.stringify(body), { status, headers });
}

/** A JSON-RPC batch may hold at most this many messages (the SDK's 2025 lane accepts batches). */
export const MAX_BATCH_MESSAGES = 20;

/**
 * A per-client limit refusing tool calls, answered the way an agent can act on: HTTP 200 with,
 * for each tools/call, an MCP tool error result ({ reason, retry_after_ms, recovery }, like any
 * tool failure), and for any other request a JSON-RPC error with the same data. (An HTTP 429
 * is a transport failure to an MCP client: the agent never saw why, nor when to come back.)
 * A 2026-07-28 request's result carries `resultType` and the server's identity in `_meta`, as
 * the SDK's own results do (a 2026 client rejects a result without `resultType`).
 */
export function toolCallRefusal(
  parsed: unknown,
  refusal: Refusal & { retryAfterSeconds: number },
  era: RequestEra = LEGACY,
): Response {
  const { reason, message, recovery, retryAfterSeconds } = refusal;
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const error = { reason, message, retryable: true, retry_after_ms: retryAfterSeconds * 1000, recovery };
  const modern =
    era.era === "modern" ? { resultType: "complete", _meta: { [SERVER_INFO_META_KEY]: era.serverInfo } } : {};
  const code = era.era === "modern" ? REFUSAL_CODE : LEGACY_REFUSAL_CODE;
  const answers = messages.flatMap((raw): object[] => {
    const request = raw as { id?: unknown; method?: unknown } | null;
    if (!request || typeof request !== "object" || request.id === undefined || request.id === null) return []; // a notification: no answer
    if (request.method === "tools/call") {
      const content = [{ type: "text", text: JSON.stringify({ error }) }];
      return [{ jsonrpc: "2.0", id: request.id, result: { isError: true, content, ...modern } }];
    }
    const data = { reason, recovery, retry_after_ms: error.retry_after_ms };
    return [{ jsonrpc: "2.0", id: request.id, error: { code, message, data } }];
  });
  const body = Array.isArray(parsed) ? answers : (answers[0] ?? null);
  if (body === null) return new Response(null, { status: 202, headers: { "retry-after": String(retryAfterSeconds) } });
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { "content-type": "application/json", "retry-after": String(retryAfterSeconds) },
  });
}

/** How many JSON-RPC messages a parsed body holds (1 for a single message). */
export function messageCount(parsed: unknown): number {
  return Array.isArray(parsed) ? parsed.length : 1;
}

/** Takes `count` slots for `client` at once, or none; returns the release of all of them. */
export function acquireSlots(client: string, max: number, count: number): (() => void) | undefined {
  const releases: (() => void)[] = [];
  for (let i = 0; i < count; i++) {
    const release = acquireSlot(client, max);
    if (!release) {
      for (const taken of releases) taken();
      return undefined;
    }
    releases.push(release);
  }
  return () => {
    for (const release of releases) release();
  };
}

/** Reads a request body up to `maxBytes`; undefined when it is larger. */
export async function readBodyCapped(request: Request, maxBytes: number): Promise<string | undefined> {
  const declared = request.headers.get("content-length");
  if (Number(declared ?? "0") > maxBytes) return undefined;
  // A declared length within the cap can be read natively; without one, count as it arrives.
  if (declared !== null) return request.text();
  if (!request.body) return "";
  const bytes = await collectCapped(request.body, maxBytes);
  return bytes && new TextDecoder().decode(bytes);
}

/** The body as JSON, or undefined when it is not JSON (the MCP handler then answers the parse error). */
export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** Names of the tools a parsed JSON-RPC body calls (a single message or a batch). */
export function calledTools(parsed: unknown): string[] {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.flatMap((message) => {
    if (!message || typeof message !== "object") return [];
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    return method === "tools/call" && typeof params?.name === "string" ? [params.name] : [];
  });
}

// Expensive calls in flight per client, per isolate.
const inFlight = new Map<string, number>();

/** Takes a slot for `client`; returns its release, or undefined when the client is at `max`. */
export function acquireSlot(client: string, max: number): (() => void) | undefined {
  const current = inFlight.get(client) ?? 0;
  if (current >= max) return undefined;
  inFlight.set(client, current + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (inFlight.get(client) ?? 1) - 1;
    if (left <= 0) inFlight.delete(client);
    else inFlight.set(client, left);
  };
}

/** Calls `release` once the response body is fully sent (or abandoned). */
export function releaseWhenDone(response: Response, release: () => void): Response {
  if (!response.body) {
    release();
    return response;
  }
  const { readable, writable } = new TransformStream();
  // Settles when the body is done, errors, or the client goes away: release in every case.
  response.body.pipeTo(writable).then(release, release);
  return new Response(readable, response);
}

// Requests per client in the last minute, per isolate. The first few of a minute skip the Rate
// Limiting binding entirely (a light client, an agent making a handful of calls, never pays its
// round trip); from then on every request is counted and enforced by the binding. The effective
// limit is therefore the binding's limit plus this many per isolate, which is within the
// binding's own approximation (its counters are per location and eventually consistent).
export const LOCAL_FREE_REQUESTS = 10;
const recent = new Map<string, number[]>();

const MAX_TRACKED_CLIENTS = 10_000;

export function localRequestCount(client: string, now = Date.now()): number {
  const since = now - 60_000;
  const times = (recent.get(client) ?? []).filter((at) => at > since);
  times.push(now);
  // Re-insert so the Map's order is least recently seen first.
  recent.delete(client);
  recent.set(client, times);
  if (recent.size > MAX_TRACKED_CLIENTS) {
    // Forget the least recently seen client; the binding still counts it.
    const oldest = recent.keys().next().value;
    if (oldest !== undefined) recent.delete(oldest);
  }
  return times.length;
}

/** A rate-limit check that never fails the request: a broken limiter lets traffic through, logged. */
export function rateLimitAllows(binding: RateLimit, key: string): Promise<boolean> {
  return binding.limit({ key }).then(
    (outcome) => outcome.success,
    (error: unknown) => {
      console.error("rate limiter unavailable; allowing the request", error);
      return true;
    },
  );
}
