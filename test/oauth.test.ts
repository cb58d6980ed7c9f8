// AUTH_MODE=oauth end to end inside workerd: the real @cloudflare/workers-oauth-provider, our
// sign-in and consent pages, and the fake identity provider (hand-made, GitHub and OpenID
// Connect; scripts/fake-upstream/identity-provider.ts) answering through the fixture router.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../src/index";
import { FAKE } from "./helpers";
import { MCP_HEADERS, mcpMessage } from "./support/mcp-http";

const BASE = "http://localhost";
const REDIRECT = "http://127.0.0.1:33418/callback";
const FAKE_CLIENT = { id: "papers-mcp-test", secret: "fake-idp-secret-0123456789" };

/** A limiter stand-in: `limit` requests per key (the bindings' own counters are shared across test files). */
function countingLimiter(limit: number) {
  const counts = new Map<string, number>();
  return {
    counts,
    limit: async ({ key }: { key: string }) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return { success: counts.get(key)! <= limit };
    },
  };
}

function oauthVars(idp: "github" | "oidc", extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    AUTH_MODE: "oauth",
    PUBLIC_BASE_URL: BASE,
    OAUTH_IDP: idp,
    OAUTH_IDP_CLIENT_ID: FAKE_CLIENT.id,
    OAUTH_IDP_CLIENT_SECRET: FAKE_CLIENT.secret,
    OAUTH_GITHUB_BASE_URL: `${FAKE}/idp/github`,
    OAUTH_GITHUB_API_BASE_URL: `${FAKE}/idp/github/api`,
    OAUTH_OIDC_ISSUER: `${FAKE}/idp/oidc`,
    RATE_LIMIT_OAUTH: countingLimiter(1_000_000),
    RATE_LIMIT_REGISTER: countingLimiter(1_000_000),
    ...extra,
  };
}

async function call(url: string, init: RequestInit, vars: Record<string, unknown>, ip = "198.51.100.1") {
  const ctx = createExecutionContext();
  const headers = new Headers(init.headers);
  if (!headers.has("host")) headers.set("host", new URL(url).host);
  if (!headers.has("cf-connecting-ip")) headers.set("cf-connecting-ip", ip);
  const request = new Request(url, { ...init, headers, redirect: "manual" }) as unknown as Parameters<
    typeof worker.fetch
  >[0];
  const response = await worker.fetch(request, { ...env, ...vars } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** The browser's cookies across the flow. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, ...value] = pair!.split("=");
      const cleared = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value.join("=") === "";
      if (cleared) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join("="));
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

const b64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

async function register(vars: Record<string, unknown>, ip?: string): Promise<Response> {
  return call(
    `${BASE}/register`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Test <client>",
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      }),
    },
    vars,
    ip,
  );
}

interface Flow {
  jar: CookieJar;
  clientId: string;
  verifier: string;
  /** The identity provider's authorization URL our server sent the browser to. */
  providerUrl: URL;
}

/** A registered client starts an authorization: our server sends the browser to the identity provider. */
async function startAuthorization(vars: Record<string, unknown>): Promise<Flow> {
  const registration = await register(vars);
  expect(registration.status).toBe(201);
  const { client_id: clientId } = (await registration.json()) as { client_id: string };
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)).buffer);
  const challenge = b64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const url = new URL(`${BASE}/authorize`);
  for (const [key, value] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "client-state-1",
    scope: "papers:read",
    resource: BASE,
  }))
    url.searchParams.set(key, value);
  const jar = new CookieJar();
  const toProvider = await call(url.href, {}, vars);
  expect(toProvider.status).toBe(302);
  jar.take(toProvider);
  return { jar, clientId, verifier, providerUrl: new URL(toProvider.headers.get("location")!) };
}

/** The person signs in at the fake provider as `user`; the browser comes back to our callback. */
async function signInAt(flow: Flow, vars: Record<string, unknown>, user: string, hooks: Record<string, string> = {}) {
  const url = new URL(flow.providerUrl);
  url.searchParams.set("fake_user", user);
  for (const [key, value] of Object.entries(hooks)) url.searchParams.set(key, value);
  const atProvider = await fetch(url, { redirect: "manual" });
  expect(atProvider.status).toBe(302);
  const callback = new URL(atProvider.headers.get("location")!);
  expect(callback.origin + callback.pathname).toBe(`${BASE}/oauth/callback`);
  const response = await call(callback.href, { headers: { cookie: flow.jar.header() } }, vars);
  flow.jar.take(response);
  return { response, callback };
}

/** Approves the consent page and exchanges the code: the access token. */
async function consentAndToken(flow: Flow, consent: Response, vars: Record<string, unknown>): Promise<string> {
  const html = await consent.text();
  const handle = /name="handle" value="([^"]+)"/.exec(html)![1]!;
  const approval = await call(
    `${BASE}/authorize`,
    {
      method: "POST",
      headers: { cookie: flow.jar.header(), "content-type": "application/x-www-form-urlencoded", origin: BASE },
      body: new URLSearchParams({ handle, decision: "approve" }).toString(),
    },
    vars,
  );
  expect(approval.status).toBe(302);
  const back = new URL(approval.headers.get("location")!);
  expect(back.searchParams.get("state")).toBe("client-state-1");
  const token = await call(
    `${BASE}/token`,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        client_id: flow.clientId,
        code_verifier: flow.verifier,
        resource: BASE,
      }).toString(),
    },
    vars,
  );
  expect(token.status).toBe(200);
  return ((await token.json()) as { access_token: string }).access_token;
}

async function signedInToken(vars: Record<string, unknown>, user: string): Promise<string> {
  const flow = await startAuthorization(vars);
  const { response } = await signInAt(flow, vars, user);
  expect(response.status).toBe(200);
  return consentAndToken(flow, response, vars);
}

async function toolCall(vars: Record<string, unknown>, token: string | null, name: string, args: object) {
  const response = await call(
    `${BASE}/mcp`,
    {
      method: "POST",
      headers: { ...MCP_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    },
    vars,
  );
  if (response.status !== 200) return { status: response.status, response, message: undefined };
  return { status: 200, response, message: mcpMessage(await response.text()) };
}

afterEach(() => vi.restoreAllMocks());

describe("AUTH_MODE=oauth with GitHub sign-in", () => {
  const vars = oauthVars("github", { OAUTH_ALLOWED_GITHUB_LOGINS: "alice-lab" });

  it("a client registers, the user signs in at GitHub (PKCE both ways), consents, and the token carries the user", async () => {
    const unauthenticated = await toolCall(vars, null, "arxiv_list_categories", {});
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.response.headers.get("www-authenticate")).toContain("resource_metadata");

    const flow = await startAuthorization(vars);
    // Our server's request to the provider: our client id, our callback, PKCE, the scopes we need.
    expect(flow.providerUrl.origin + flow.providerUrl.pathname).toBe(`${FAKE}/idp/github/login/oauth/authorize`);
    expect(flow.providerUrl.searchParams.get("client_id")).toBe(FAKE_CLIENT.id);
    expect(flow.providerUrl.searchParams.get("redirect_uri")).toBe(`${BASE}/oauth/callback`);
    expect(flow.providerUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(flow.providerUrl.searchParams.get("scope")).toBe("read:user user:email");
    expect(flow.providerUrl.searchParams.get("state")).not.toBe("client-state-1");

    const { response } = await signInAt(flow, vars, "alice");
    expect(response.status).toBe(200);
    const page = await response.clone().text();
    expect(page).toContain("Signed in as <strong>Alice-Lab</strong> through GitHub");
    expect(page).toContain("Allow Test &#60;client&#62; to use papers-mcp?");
    const token = await consentAndToken(flow, response, vars);

    const categories = await toolCall(vars, token, "arxiv_list_categories", { group: "stat" });
    expect(categories.status).toBe(200);
    expect(categories.message.result.structuredContent.count).toBe(6);
  });

  it("state that belongs to the user follows the user across clients and grants (the token's user id, not the client)", async () => {
    const first = await signedInToken(vars, "alice");
    const saved = await toolCall(vars, first, "papers_library", { action: "add", ids: ["0704.0001"], tags: ["oauth"] });
    expect(saved.message.result.isError).toBeFalsy();
    // Another client, registered afresh, signed in as the same person: the same library.
    const second = await signedInToken(vars, "alice");
    expect(second).not.toBe(first);
    const listed = await toolCall(vars, second, "papers_library", { action: "list", tag: "oauth" });
    expect(listed.message.result.structuredContent.papers.map((p: { id: string }) => p.id)).toEqual(["0704.0001"]);
  });

  it("per-user limits key on the signed-in user: registering a new client does not reset them", async () => {
    const expensive = countingLimiter(1);
    const limited = { ...vars, RATE_LIMIT_EXPENSIVE: expensive };
    const first = await signedInToken(limited, "alice");
    const second = await signedInToken(limited, "alice");
    const read = (token: string) => toolCall(limited, token, "nber_download_paper", { paper_id: "not-an-id" });
    const reasonOf = (result: Awaited<ReturnType<typeof read>>) =>
      JSON.parse(result.message.result.content[0].text).error.reason;
    expect(reasonOf(await read(first))).toBe("invalid_id");
    expect(reasonOf(await read(second))).toBe("rate_limited");
    expect([...expensive.counts.keys()]).toEqual(["oauth-user:github-1001"]);
  });

  it("a signed-in user who is not on the allowlist is refused: 403, no code, a way back to the app", async () => {
    const flow = await startAuthorization(vars);
    const { response } = await signInAt(flow, vars, "bob");
    expect(response.status).toBe(403);
    expect(response.headers.get("x-papers-reason")).toBe("not_allowed");
    const page = await response.text();
    expect(page).toContain("Signed in as bob-outsider");
    expect(page).not.toContain('name="handle"');
    const back = new URL(/href="([^"]+)"/.exec(page)![1]!.replace(/&#38;/g, "&"));
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("organizations and verified email domains admit; an unverified address does not; no allowlist admits nobody", async () => {
    const byOrg = oauthVars("github", { OAUTH_ALLOWED_GITHUB_ORGS: "Papers-Lab" });
    const orgFlow = await startAuthorization(byOrg);
    expect(orgFlow.providerUrl.searchParams.get("scope")).toBe("read:user user:email read:org");
    expect((await signInAt(orgFlow, byOrg, "alice")).response.status).toBe(200);
    expect((await signInAt(await startAuthorization(byOrg), byOrg, "bob")).response.status).toBe(403);

    const byDomain = oauthVars("github", { OAUTH_ALLOWED_EMAIL_DOMAINS: "lab.example.edu" });
    expect((await signInAt(await startAuthorization(byDomain), byDomain, "alice")).response.status).toBe(200);
    // carol@lab.example.edu is on the domain, but GitHub says the address is not verified.
    expect((await signInAt(await startAuthorization(byDomain), byDomain, "carol")).response.status).toBe(403);

    const nobody = oauthVars("github");
    const refused = (await signInAt(await startAuthorization(nobody), nobody, "alice")).response;
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("configured no allowlist");
  });

  it("a callback without the browser that started it, a replayed callback, and a declined sign-in get no grant", async () => {
    const flow = await startAuthorization(vars);
    const url = new URL(flow.providerUrl);
    url.searchParams.set("fake_user", "alice");
    const callback = (await fetch(url, { redirect: "manual" })).headers.get("location")!;
    // Login CSRF: someone else's browser (no binding cookie) presents the callback.
    const foreign = await call(callback, {}, vars);
    expect(foreign.status).toBe(400);
    const first = await call(callback, { headers: { cookie: flow.jar.header() } }, vars);
    expect(first.status).toBe(200);
    const replay = await call(callback, { headers: { cookie: flow.jar.header() } }, vars);
    expect(replay.status).toBe(400);

    // A code the provider does not know (GitHub answers that with 200 and an error body).
    const bogus = await startAuthorization(vars);
    const bogusUrl = new URL(bogus.providerUrl);
    bogusUrl.searchParams.set("fake_user", "alice");
    const bogusCallback = new URL((await fetch(bogusUrl, { redirect: "manual" })).headers.get("location")!);
    bogusCallback.searchParams.set("code", "not-a-code");
    const refusedCode = await call(bogusCallback.href, { headers: { cookie: bogus.jar.header() } }, vars);
    expect(refusedCode.status).toBe(400);
    expect(await refusedCode.text()).toContain("refused the code: bad_verification_code");

    const declined = await startAuthorization(vars);
    const { response } = await signInAt(declined, vars, "alice", { fake_deny: "1" });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-papers-reason")).toBe("sign_in_failed");
  });

  it("a consent form is approved only with the user it was shown to, once", async () => {
    const flow = await startAuthorization(vars);
    const { response } = await signInAt(flow, vars, "alice");
    const html = await response.clone().text();
    await consentAndToken(flow, response, vars);
    const handle = /name="handle" value="([^"]+)"/.exec(html)![1]!;
    const again = await call(
      `${BASE}/authorize`,
      {
        method: "POST",
        headers: { cookie: flow.jar.header(), "content-type": "application/x-www-form-urlencoded", origin: BASE },
        body: new URLSearchParams({ handle, decision: "approve" }).toString(),
      },
      vars,
    );
    expect(again.status).toBe(400);
  });

  it("a forged, tampered or expired access token is refused with 401", async () => {
    const token = await signedInToken(vars, "alice");
    expect((await toolCall(vars, token, "arxiv_list_categories", {})).status).toBe(200);
    const [user, grant, secret] = token.split(":");
    expect(
      (await toolCall(vars, `${user}:${grant}:${"A".repeat(secret!.length)}`, "arxiv_list_categories", {})).status,
    ).toBe(401);
    expect((await toolCall(vars, "not-a-token-at-all", "arxiv_list_categories", {})).status).toBe(401);
    const files = await call(`${BASE}/files/nber/w10000.pdf`, { headers: { authorization: "Bearer forged" } }, vars);
    expect(files.status).toBe(401);
    // An hour and a minute later (OAUTH_ACCESS_TOKEN_TTL_SECONDS 3600), the same token has expired.
    const later = Date.now() + 3_660_000;
    vi.spyOn(Date, "now").mockReturnValue(later);
    expect((await toolCall(vars, token, "arxiv_list_categories", {})).status).toBe(401);
  });
});

describe("AUTH_MODE=oauth: the pages for people sign in through the same provider and consent", () => {
  const vars = oauthVars("github", { OAUTH_ALLOWED_GITHUB_LOGINS: "alice-lab" });

  it("asks to sign in, goes through GitHub and the consent page, and keeps the person signed in by cookie", async () => {
    const refused = await call(`${BASE}/search?q=testing`, {}, vars);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('href="/signin?next=%2Fsearch%3Fq%3Dtesting"');

    const jar = new CookieJar();
    const start = await call(`${BASE}/signin?next=${encodeURIComponent("/search?q=testing")}`, {}, vars);
    expect(start.status).toBe(302);
    jar.take(start);
    const authorize = new URL(start.headers.get("location")!);
    expect(authorize.origin + authorize.pathname).toBe(`${BASE}/authorize`);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${BASE}/signin/callback`);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    const toProvider = await call(authorize.href, { headers: { cookie: jar.header() } }, vars);
    expect(toProvider.status).toBe(302);
    jar.take(toProvider);
    const flow: Flow = { jar, clientId: "", verifier: "", providerUrl: new URL(toProvider.headers.get("location")!) };
    const { response: consent } = await signInAt(flow, vars, "alice");
    expect(consent.status).toBe(200);
    const consentPage = await consent.text();
    expect(consentPage).toContain("papers-mcp web pages");
    const handle = /name="handle" value="([^"]+)"/.exec(consentPage)![1]!;
    const approval = await call(
      `${BASE}/authorize`,
      {
        method: "POST",
        headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded", origin: BASE },
        body: new URLSearchParams({ handle, decision: "approve" }).toString(),
      },
      vars,
    );
    expect(approval.status).toBe(302);
    jar.take(approval);
    const callback = new URL(approval.headers.get("location")!);
    expect(callback.pathname).toBe("/signin/callback");

    // Someone else's browser (no state cookie) cannot finish this sign-in.
    const forged = await call(callback.href, {}, vars);
    expect(forged.status).toBe(400);

    const back = await call(callback.href, { headers: { cookie: jar.header() } }, vars);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/search?q=testing");
    jar.take(back);
    expect(back.headers.getSetCookie().join()).toMatch(/papers_session=[^;]+;.*HttpOnly.*SameSite=Lax/);
    const signedIn = await call(`${BASE}/search?q=testing`, { headers: { cookie: jar.header() } }, vars);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.text()).toContain("<h1>“testing”</h1>");
    // The code was used: the same callback again is refused.
    const replay = await call(callback.href, { headers: { cookie: jar.header() } }, vars);
    expect(replay.status).toBe(400);
  });

  it("refuses a session cookie the provider did not issue", async () => {
    const forged = await call(`${BASE}/search?q=testing`, { headers: { cookie: "papers_session=abc:def:ghi" } }, vars);
    expect(forged.status).toBe(401);
  });
});

describe("AUTH_MODE=oauth with OpenID Connect sign-in", () => {
  const vars = oauthVars("oidc", {
    OAUTH_ALLOWED_EMAIL_DOMAINS: "lab.example.edu",
    OAUTH_ALLOWED_EMAILS: "bob@elsewhere.example",
  });

  it("discovers the provider, checks the ID token (signature, nonce, audience), reads userinfo, and admits by email", async () => {
    const flow = await startAuthorization(vars);
    expect(flow.providerUrl.origin + flow.providerUrl.pathname).toBe(`${FAKE}/idp/oidc/authorize`);
    expect(flow.providerUrl.searchParams.get("scope")).toBe("openid email profile");
    expect(flow.providerUrl.searchParams.get("nonce")).toMatch(/^[\w-]{20,}$/);
    const { response } = await signInAt(flow, vars, "alice");
    expect(response.status).toBe(200);
    expect(await response.clone().text()).toContain("Signed in as <strong>Alice Lab</strong>");
    const token = await consentAndToken(flow, response, vars);
    expect(
      (await toolCall(vars, token, "arxiv_list_categories", { group: "econ" })).message.result.structuredContent.count,
    ).toBe(3);
    // A subject with a colon (tenant:bob-1002) is a user id too.
    const bob = await signedInToken(vars, "bob");
    expect((await toolCall(vars, bob, "arxiv_list_categories", {})).status).toBe(200);
  });

  it("refuses a forged ID token: another key's signature, another sign-in's nonce, another client's audience", async () => {
    for (const forge of ["signature", "nonce", "audience"]) {
      const flow = await startAuthorization(vars);
      const { response } = await signInAt(flow, vars, "alice", { fake_forge: forge });
      expect(response.status, forge).toBe(400);
      expect(response.headers.get("x-papers-reason")).toBe("sign_in_failed");
      expect(await response.text()).not.toContain('name="handle"');
    }
  });

  it("an address the provider has not verified does not admit", async () => {
    const flow = await startAuthorization(vars);
    expect((await signInAt(flow, vars, "carol")).response.status).toBe(403);
  });
});

describe("OAuth endpoints are limited per IP address, and registrations per day", () => {
  it("/register: per IP, then the daily cap over everyone; a refused registration stores nothing", async () => {
    const perIp = countingLimiter(2);
    const vars = oauthVars("github", { RATE_LIMIT_REGISTER: perIp, OAUTH_MAX_REGISTRATIONS_PER_DAY: "1000" });
    const clientsBefore = (await env.OAUTH_KV.list({ prefix: "client:" })).keys.length;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await register(vars, "203.0.113.50")).status);
    expect(statuses).toEqual([201, 201, 429, 429]);
    const refused = await register(vars, "203.0.113.50");
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable", reason: "rate_limited" });
    expect((await env.OAUTH_KV.list({ prefix: "client:" })).keys.length).toBe(clientsBefore + 2);
    // Another address may register.
    expect((await register(vars, "203.0.113.51")).status).toBe(201);

    const capped = oauthVars("github", { OAUTH_MAX_REGISTRATIONS_PER_DAY: "0" });
    const closed = await register(capped, "203.0.113.52");
    expect(closed.status).toBe(429);
    expect(Number(closed.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await env.OAUTH_KV.list({ prefix: "client:" })).keys.length).toBe(clientsBefore + 3);
  });

  it("/authorize, /oauth/callback and /token share a per-IP limit", async () => {
    const perIp = countingLimiter(3);
    const vars = oauthVars("github", { RATE_LIMIT_OAUTH: perIp });
    const ip = "203.0.113.60";
    const paths = ["/authorize", "/token", "/oauth/callback", "/authorize"];
    const statuses = [];
    for (const path of paths)
      statuses.push((await call(`${BASE}${path}`, { method: path === "/token" ? "POST" : "GET" }, vars, ip)).status);
    expect(statuses.slice(0, 3).every((status) => status !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
    // /mcp is not behind this limit (it has its own).
    expect((await call(`${BASE}/mcp`, { method: "POST", headers: MCP_HEADERS, body: "{}" }, vars, ip)).status).toBe(
      401,
    );
  });
});

describe("OAuth input the provider library would pass to KV", () => {
  it("a client_id longer than any client's is a typed 400 invalid_client on /token and /authorize, never a 500", async () => {
    const vars = oauthVars("github");
    const long = "x".repeat(5_000);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const requests: [string, RequestInit][] = [
      [
        `${BASE}/token`,
        { method: "POST", headers: form, body: `grant_type=authorization_code&code=c&client_id=${long}` },
      ],
      [
        `${BASE}/token`,
        {
          method: "POST",
          headers: { ...form, authorization: `Basic ${btoa(`${long}:s`)}` },
          body: "grant_type=authorization_code&code=c",
        },
      ],
      [
        `${BASE}/authorize?response_type=code&client_id=${long}&redirect_uri=${encodeURIComponent(REDIRECT)}`,
        { method: "GET" },
      ],
    ];
    for (const [url, init] of requests) {
      const response = await call(url, init, vars);
      expect(response.status, url.slice(0, 40)).toBe(400);
      expect(await response.json()).toMatchObject({ error: "invalid_client", reason: "invalid_argument" });
    }
    // A client_id of an ordinary length still reaches the library, which answers for itself.
    const ordinary = await call(
      `${BASE}/token`,
      { method: "POST", headers: form, body: "grant_type=authorization_code&code=c&client_id=abc" },
      vars,
    );
    expect(ordinary.status).toBe(401);
  });
});

describe("AUTH_MODE=oauth configuration", () => {
  it("refuses to run without the provider's client, with an http origin that is not loopback, or OIDC without an issuer", async () => {
    const cases: Record<string, unknown>[] = [
      { ...oauthVars("github"), OAUTH_IDP_CLIENT_SECRET: "" },
      { ...oauthVars("github"), PUBLIC_BASE_URL: "http://papers.example.org" },
      { ...oauthVars("oidc"), OAUTH_OIDC_ISSUER: "" },
      { ...oauthVars("github"), PUBLIC_BASE_URL: "https://papers.example.org" }, // http provider URLs off loopback
    ];
    for (const vars of cases) {
      const response = await call(`${BASE}/mcp`, { method: "POST", headers: MCP_HEADERS, body: "{}" }, vars);
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { reason: string } }).error.reason).toBe("server_misconfigured");
    }
  });

  it("/authorize and /oauth/callback are not served in the other modes", async () => {
    expect((await call("http://localhost/authorize", {}, {})).status).toBe(404);
    expect((await call("http://localhost/oauth/callback?code=x&state=y", {}, {})).status).toBe(404);
  });
});
