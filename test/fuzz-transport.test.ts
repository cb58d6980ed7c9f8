// Hostile requests below the tools: JSON-RPC batches (mixed calls, notifications, junk entries,
// oversized and malformed bodies) on /mcp, and the OAuth endpoints (/register, /authorize,
// /oauth/callback, /token, the metadata documents) with hostile parameters, bodies and cookies.
// Every answer is below 500 and typed (a JSON-RPC error with a code, a tool result with a reason,
// an OAuth error, or a page naming its reason); a refused request writes nothing.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { EXPENSIVE_TOOLS } from "../src/http/limits";
import { FAKE, resetUpstream, upstreamHits } from "./helpers";
import { seededRandom } from "./support/random";
import { MCP_HEADERS, mcpMessages } from "./support/mcp-http";

const { random, pick } = seededRandom(20261201);

const NASTY = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "😀",
  "../../etc/passwd",
  "%00",
  "%E0%A4%A",
  "http://169.254.169.254/",
  "javascript:alert(1)",
  "https://evil.example/cb",
  "http://127.0.0.1:1/cb",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "x".repeat(5000),
  "a:b:c",
  "S256",
  "plain",
  "code",
  "token",
  "papers:read",
  "authorization_code",
  "refresh_token",
  "urn:ietf:params:oauth:grant-type:token-exchange",
  "2401.12345",
  "w10000",
];
const nasty = () => {
  if (random() < 0.7) return pick(NASTY);
  let out = "";
  for (let i = 0, n = Math.floor(random() * 30); i < n; i++) out += String.fromCharCode(Math.floor(random() * 0xffff));
  return out;
};
const WRONG: unknown[] = [null, true, 0, -1, 1e308, [], {}, ["x"], { a: { b: { c: {} } } }];
const anyValue = (): unknown => (random() < 0.6 ? nasty() : pick(WRONG));

async function send(
  url: string,
  init: RequestInit & { headers?: Record<string, string> },
  vars: Record<string, unknown> = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  // Header values a client can send at all: no CR, LF or NUL (fetch refuses those before they leave).
  const headers = Object.fromEntries(
    Object.entries(init.headers ?? {}).map(([name, value]) => [name, value.replace(/[\r\n\0]/g, " ")]),
  );
  const request = new Request(url, {
    ...init,
    headers: { host: new URL(url).host, "cf-connecting-ip": `fuzz-${Math.floor(random() * 1e9)}`, ...headers },
    redirect: "manual",
  }) as unknown as Parameters<typeof worker.fetch>[0];
  const response = await worker.fetch(request, { ...env, ...vars } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/**
 * The stored state once earlier requests' background work has landed: a read or download that outlived its
 * request's budget may still write its cache entry and log row (a later request must not be blamed for it).
 */
async function settledStorageState(): Promise<string> {
  let state = await storageState();
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await storageState();
    if (again === state) return state;
    state = again;
  }
  return state;
}

async function storageState(): Promise<string> {
  const row = await env.DB.prepare(
    "SELECT (SELECT count(*) FROM api_cache) || ',' || (SELECT count(*) FROM nber_papers) || ',' || (SELECT count(*) FROM info_cache) || ',' || (SELECT count(*) FROM query_log) || ',' || (SELECT count(*) FROM download_log) AS state",
  ).first<{ state: string }>();
  const objects = await env.BLOBS.list({ limit: 1000 });
  return `${row!.state};r2=${objects.objects.length}`;
}

const FAST = {
  ARXIV_REQUEST_DELAY_MS: "0",
  ARXIV_CONTENT_REQUEST_DELAY_MS: "0",
  NBER_REQUEST_DELAY_MS: "0",
  ARXIV_API_TIMEOUT_MS: "1000",
  ARXIV_READ_TIMEOUT_MS: "2000",
  NBER_TIMEOUT_MS: "1000",
};
const TOOL_NAMES = [
  "arxiv_list_categories",
  "arxiv_search_papers",
  "arxiv_get_metadata",
  "arxiv_read_paper",
  "nber_read_paper",
  "nber_download_paper",
  "papers_resolve_reference",
  "no_such_tool",
];
/** The tools/call entries of a batch that name an expensive tool. */
const expensiveCalls = (entries: unknown[] | null) =>
  (entries ?? []).filter(
    (entry) =>
      typeof entry === "object" &&
      entry !== null &&
      (entry as { method?: unknown }).method === "tools/call" &&
      EXPENSIVE_TOOLS.has(String((entry as { params?: { name?: unknown } }).params?.name)),
  ).length;

/** One entry of a batch: mostly JSON-RPC requests and notifications, sometimes junk. */
function batchEntry(id: number): unknown {
  const roll = random();
  if (roll < 0.6) {
    const name = pick(TOOL_NAMES);
    const args =
      random() < 0.8
        ? { paper_id: random() < 0.5 ? pick(["1512.03905v1", "w10000", "not-an-id"]) : nasty(), query: nasty() }
        : anyValue();
    return {
      jsonrpc: "2.0",
      id: random() < 0.1 ? pick([id - 1, "x", null]) : id,
      method: "tools/call",
      params: { name, arguments: args },
    };
  }
  if (roll < 0.75)
    return { jsonrpc: "2.0", method: pick(["notifications/initialized", "notifications/cancelled", nasty()]) };
  if (roll < 0.96)
    return { jsonrpc: "2.0", id, method: pick(["tools/list", "resources/list", "ping", "prompts/list", nasty()]) };
  // Rare, since one malformed entry gets the whole batch refused.
  if (roll < 0.98) return { jsonrpc: pick(["1.0", "2.0", null, 2]), id, method: anyValue(), params: anyValue() };
  return anyValue();
}

function batchBody(): { body: string; entries: unknown[] | null } {
  const roll = random();
  if (roll < 0.05) return { body: nasty(), entries: null }; // not JSON
  if (roll < 0.08) return { body: "[".repeat(5000) + "]".repeat(5000), entries: null }; // deeply nested
  if (roll < 0.1) return { body: JSON.stringify([]), entries: [] };
  const size = random() < 0.1 ? 21 + Math.floor(random() * 80) : 1 + Math.floor(random() * 20);
  const entries = Array.from({ length: size }, (_, i) => batchEntry(i + 1));
  return { body: JSON.stringify(entries), entries };
}

/** Every JSON-RPC answer in a body is typed: an error with a numeric code, or a result (tool errors with a reason). */
function expectTypedAnswers(text: string, label: string) {
  const answers = mcpMessages(text);
  for (const answer of answers) {
    if (answer.error) {
      expect(typeof answer.error.code, label).toBe("number");
      expect(typeof answer.error.message, label).toBe("string");
      expect(answer.error.data?.reason, label).not.toBe("internal_error");
    } else {
      expect(answer.result, label).toBeDefined();
      if (answer.result.isError) {
        const error = JSON.parse(answer.result.content[0].text).error;
        expect(error.reason, label).toMatch(/^[a-z_]+$/);
        expect(error.reason, label).not.toBe("internal_error");
      }
    }
  }
  return answers.length;
}

const BATCHES = 1200;

describe("fuzz: JSON-RPC batches on /mcp", () => {
  it(`${BATCHES} hostile batches: never a 5xx, every answer typed, a refused batch writes nothing`, async () => {
    await resetUpstream();
    const statuses = new Map<number, number>();
    let answers = 0;
    for (let i = 0; i < BATCHES; i++) {
      const { body, entries } = batchBody();
      const refusedWhole = (entries?.length ?? 0) > 20 || expensiveCalls(entries) > 2;
      const before = refusedWhole ? await settledStorageState() : "";
      const response = await send(
        "http://localhost/mcp",
        { method: "POST", headers: { ...MCP_HEADERS, "x-papers-workspace": "fuzz-batch" }, body },
        FAST,
      );
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const label = body.slice(0, 200);
      expect(response.status, label).toBeLessThan(500);
      const text = await response.text();
      if (response.status !== 202) answers += expectTypedAnswers(text, label);
      const size = entries?.length ?? 0;
      if (size > 20) {
        expect(response.status, label).toBe(400);
        expect(JSON.parse(text).error.data.reason).toBe("batch_too_large");
      }
      // Refused whole (too big, or more reads than the client may run at once): nothing was written.
      if (refusedWhole) expect(await storageState(), label).toBe(before);
    }
    console.log(`fuzz batches: statuses ${JSON.stringify(Object.fromEntries(statuses))}, ${answers} answers`);
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(statuses.get(200)).toBeGreaterThan(0);
    for (const hit of await upstreamHits())
      expect(hit.path).toMatch(/^\/(arxiv-api|arxiv-oai|arxiv|ar5iv|nber|openalex|crossref)\//);
  }, 300_000);
});

const BASE = "http://localhost";
const OAUTH = {
  AUTH_MODE: "oauth",
  PUBLIC_BASE_URL: BASE,
  OAUTH_IDP: "github",
  OAUTH_IDP_CLIENT_ID: "papers-mcp-test",
  OAUTH_IDP_CLIENT_SECRET: "fake-idp-secret-0123456789",
  OAUTH_GITHUB_BASE_URL: `${FAKE}/idp/github`,
  OAUTH_GITHUB_API_BASE_URL: `${FAKE}/idp/github/api`,
  OAUTH_ALLOWED_GITHUB_LOGINS: "alice-lab",
  // The per-IP limits have their own tests; here every request is a different address anyway.
  RATE_LIMIT_OAUTH: { limit: async () => ({ success: true }) },
  RATE_LIMIT_REGISTER: { limit: async () => ({ success: true }) },
};

function query(keys: string[]): string {
  const params = new URLSearchParams();
  for (const key of keys) if (random() < 0.7) params.set(key, random() < 0.8 ? nasty() : String(anyValue()));
  if (random() < 0.2) params.set(nasty(), nasty());
  return params.toString();
}

function registrationBody(): string {
  if (random() < 0.1) return nasty();
  const body: Record<string, unknown> = {};
  if (random() < 0.8)
    body.redirect_uris =
      random() < 0.7 ? [nasty(), "http://127.0.0.1:3/cb"].slice(0, 1 + Math.floor(random() * 2)) : anyValue();
  if (random() < 0.6) body.client_name = anyValue();
  if (random() < 0.4)
    body.token_endpoint_auth_method = pick(["none", "client_secret_basic", "private_key_jwt", anyValue()]);
  if (random() < 0.4) body.grant_types = pick([["authorization_code"], ["client_credentials"], anyValue()]);
  if (random() < 0.3) body.response_types = pick([["code"], ["token"], anyValue()]);
  if (random() < 0.2) body.scope = anyValue();
  if (random() < 0.1) body.jwks_uri = nasty();
  if (random() < 0.1) body.software_statement = nasty();
  return JSON.stringify(body);
}

/** A client registered properly at the start, so that some authorizations get past the client check. */
let registered: string | undefined;

function oauthRequest(): { url: string; init: RequestInit & { headers: Record<string, string> } } {
  const cookie: Record<string, string> =
    random() < 0.3 ? { cookie: `__Host-oauth-upstream-${nasty()}=${nasty()}; ${nasty()}=${nasty()}` } : {};
  switch (pick(["register", "authorize", "authorize-post", "callback", "token", "metadata", "other"])) {
    case "register":
      return {
        url: `${BASE}/register`,
        init: {
          method: pick(["POST", "POST", "POST", "GET", "PUT"]),
          headers: { "content-type": pick(["application/json", "text/plain", nasty()]) },
          body: undefined,
        },
      };
    case "authorize": {
      const params = new URLSearchParams(
        query([
          "response_type",
          "client_id",
          "redirect_uri",
          "code_challenge",
          "code_challenge_method",
          "state",
          "scope",
          "resource",
        ]),
      );
      // Half the time a real client asks, with hostile values in the other parameters.
      if (registered && random() < 0.5) {
        params.set("client_id", registered);
        params.set("redirect_uri", "http://127.0.0.1:3/cb");
        if (random() < 0.7) params.set("response_type", "code");
      }
      return { url: `${BASE}/authorize?${params}`, init: { method: "GET", headers: { ...cookie } } };
    }
    case "authorize-post":
      return {
        url: `${BASE}/authorize`,
        init: {
          method: "POST",
          headers: {
            "content-type": pick(["application/x-www-form-urlencoded", "multipart/form-data", "application/json"]),
            origin: pick([BASE, nasty()]),
            ...cookie,
          },
          body: query(["handle", "decision"]),
        },
      };
    case "callback":
      return {
        url: `${BASE}/oauth/callback?${query(["code", "state", "error", "error_description", "iss"])}`,
        init: { method: "GET", headers: { ...cookie } },
      };
    case "token":
      return {
        url: `${BASE}/token`,
        init: {
          method: "POST",
          headers: {
            "content-type": pick(["application/x-www-form-urlencoded", "application/json"]),
            ...(random() < 0.2 ? { authorization: `Basic ${btoa(`${nasty().replace(/[^\x20-\x7e]/g, "")}:x`)}` } : {}),
          },
          body: query([
            "grant_type",
            "code",
            "redirect_uri",
            "client_id",
            "code_verifier",
            "refresh_token",
            "resource",
            "subject_token",
          ]),
        },
      };
    case "metadata":
      return {
        url: `${BASE}${pick(["/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/openid-configuration"])}`,
        init: { method: pick(["GET", "POST", "OPTIONS"]), headers: {} },
      };
    default:
      return {
        url: `${BASE}${pick(["/mcp", "/files/nber/w10000.pdf", "/files/nber/../../x", "/", "/status"])}`,
        init: {
          method: pick(["GET", "POST"]),
          headers: { authorization: `Bearer ${nasty().replace(/[^\x21-\x7e]/g, "x") || "x"}`, ...MCP_HEADERS },
          body: undefined,
        },
      };
  }
}

/** A refusal from the OAuth surface is typed: an OAuth error, our error object, or a page naming its reason. */
async function expectTypedRefusal(response: Response, label: string) {
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  if (response.status < 400) return;
  if (type.includes("html")) {
    expect(response.headers.get("x-papers-reason"), label).toMatch(/^[a-z_]+$/);
    return;
  }
  expect(text, `${label} -> ${response.status} with an empty body`).not.toBe("");
  const body = JSON.parse(text);
  const reason = typeof body.error === "string" ? body.error : (body.error?.reason ?? body.error?.data?.reason);
  expect(reason, `${label} -> ${text.slice(0, 200)}`).toMatch(/^[a-z_]+$/);
  expect(reason).not.toBe("internal_error");
}

const OAUTH_REQUESTS = 2000;

describe("fuzz: the OAuth endpoints", () => {
  it(`${OAUTH_REQUESTS} hostile requests: never a 5xx, every refusal typed, nothing stored by a refused one`, async () => {
    await resetUpstream();
    const statuses = new Map<number, number>();
    const registration = await send(
      `${BASE}/register`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:3/cb"], token_endpoint_auth_method: "none" }),
      },
      OAUTH,
    );
    registered = ((await registration.json()) as { client_id: string }).client_id;
    let clients = (await env.OAUTH_KV.list({ prefix: "client:" })).keys.length;
    for (let i = 0; i < OAUTH_REQUESTS; i++) {
      const { url, init } = oauthRequest();
      if (url.endsWith("/register") && init.method === "POST") init.body = registrationBody();
      const before = await storageState();
      const response = await send(url, init, OAUTH);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const label = `${init.method} ${url.slice(0, 160)} ${String(init.body ?? "").slice(0, 120)}`;
      expect(response.status, label).toBeLessThan(500);
      await expectTypedRefusal(response, label);
      const now = (await env.OAUTH_KV.list({ prefix: "client:" })).keys.length;
      // Only an accepted registration stores a client; nothing else writes D1 or R2.
      expect(now - clients, label).toBe(response.status === 201 ? 1 : 0);
      clients = now;
      expect(await storageState(), label).toBe(before);
    }
    console.log(`fuzz oauth: statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect(statuses.get(201)).toBeGreaterThan(0);
    expect(statuses.get(400)).toBeGreaterThan(0);
    // No hostile parameter made the server call the identity provider (no valid state ever reached it).
    expect((await upstreamHits()).filter((hit) => !hit.path.startsWith("/idp/"))).toEqual([]);
  }, 300_000);
});
