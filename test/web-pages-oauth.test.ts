// The pages' OAuth sign-in (AUTH_MODE=oauth) against hostile input: where `next` may send the
// browser after the identity provider, the rate limit of GET /signin (each one writes KV), the
// sign-out (the grant revoked, the cookie cleared), and malformed addresses. The whole flow runs
// inside workerd with the real provider library and the fake identity provider, as in
// test/oauth.test.ts.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { FAKE } from "./helpers";

const BASE = "http://localhost";

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

function oauthVars(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    AUTH_MODE: "oauth",
    PUBLIC_BASE_URL: BASE,
    OAUTH_IDP: "github",
    OAUTH_IDP_CLIENT_ID: "papers-mcp-test",
    OAUTH_IDP_CLIENT_SECRET: "fake-idp-secret-0123456789",
    OAUTH_GITHUB_BASE_URL: `${FAKE}/idp/github`,
    OAUTH_GITHUB_API_BASE_URL: `${FAKE}/idp/github/api`,
    OAUTH_ALLOWED_GITHUB_LOGINS: "alice-lab",
    RATE_LIMIT_OAUTH: countingLimiter(1_000_000),
    RATE_LIMIT_REGISTER: countingLimiter(1_000_000),
    ...extra,
  };
}

async function call(url: string, init: RequestInit, vars: Record<string, unknown>) {
  const ctx = createExecutionContext();
  const headers = new Headers(init.headers);
  if (!headers.has("cf-connecting-ip")) headers.set("cf-connecting-ip", "198.51.100.1");
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
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/**
 * The whole page sign-in as a browser does it: GET /signin?next=..., the authorization endpoint,
 * the fake GitHub, the consent page, back to /signin/callback. Returns the callback's answer.
 */
async function pageSignIn(next: string, vars: Record<string, unknown>, jar = new CookieJar()) {
  const start = await call(`${BASE}/signin?next=${encodeURIComponent(next)}`, {}, vars);
  expect(start.status).toBe(302);
  jar.take(start);
  const toProvider = await call(start.headers.get("location")!, { headers: { cookie: jar.header() } }, vars);
  jar.take(toProvider);
  const atProvider = new URL(toProvider.headers.get("location")!);
  atProvider.searchParams.set("fake_user", "alice");
  const fromProvider = await fetch(atProvider, { redirect: "manual" });
  const consent = await call(fromProvider.headers.get("location")!, { headers: { cookie: jar.header() } }, vars);
  jar.take(consent);
  const handle = /name="handle" value="([^"]+)"/.exec(await consent.text())![1]!;
  const approval = await call(
    `${BASE}/authorize`,
    {
      method: "POST",
      headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded", origin: BASE },
      body: new URLSearchParams({ handle, decision: "approve" }).toString(),
    },
    vars,
  );
  jar.take(approval);
  const back = await call(approval.headers.get("location")!, { headers: { cookie: jar.header() } }, vars);
  jar.take(back);
  return { back, jar };
}

describe("the OAuth page sign-in sends the browser back only to a path of this site", () => {
  const vars = oauthVars();

  it.each([
    "/\t/evil.example/phish",
    "/\n/evil.example/phish",
    "/\r/evil.example/phish",
    "//evil.example/phish",
    "/\\evil.example/phish",
    "https://evil.example/phish",
    "javascript:alert(1)",
    "/.//evil.example/phish",
  ])("through the identity provider, next=%j comes back as /", async (next) => {
    const { back } = await pageSignIn(next, vars);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/");
  });

  it("keeps a path of this site (an encoded tab is a character of the path, not a way off-site)", async () => {
    expect((await pageSignIn("/search?q=testing", vars)).back.headers.get("location")).toBe("/search?q=testing");
    expect((await pageSignIn("/%09/evil.example", vars)).back.headers.get("location")).toBe("/%09/evil.example");
  });
});

describe("GET /signin is rate-limited per address", () => {
  it("answers a 429 page with Retry-After past the limit, and writes nothing to KV for it", async () => {
    const limiter = countingLimiter(2);
    const vars = oauthVars({ RATE_LIMIT_OAUTH: limiter });
    const pending = async () => (await env.OAUTH_KV.list({ prefix: "papers-page-signin:" })).keys.length;
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 3; i++) {
      refused = await call(`${BASE}/signin?next=/`, { headers: { "cf-connecting-ip": "203.0.113.8" } }, vars);
      statuses.push(refused.status);
    }
    expect(statuses).toEqual([302, 302, 429]);
    expect(await pending()).toBe(2);
    expect(refused!.headers.get("retry-after")).toBe("60");
    expect(refused!.headers.get("content-type")).toContain("text/html");
    expect(await refused!.text()).toContain("<code>rate_limited</code>");
    expect(limiter.counts.get("ip:203.0.113.8")).toBe(3);
  });
});

describe("signing out of the OAuth pages", () => {
  const vars = oauthVars();

  it("revokes the grant and clears the session cookie; a copy of the old cookie no longer works", async () => {
    const { back, jar } = await pageSignIn("/search?q=testing", vars);
    expect(back.status).toBe(303);
    const session = `papers_session=${jar.get("papers_session")}`;
    const signedIn = await call(`${BASE}/search?q=testing`, { headers: { cookie: session } }, vars);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.text()).toContain('action="/signout"');
    const forged = await call(
      `${BASE}/signout`,
      { method: "POST", headers: { cookie: session, origin: "https://evil.example", "sec-fetch-site": "cross-site" } },
      vars,
    );
    expect(forged.status).toBe(403);
    expect((await call(`${BASE}/search?q=testing`, { headers: { cookie: session } }, vars)).status).toBe(200);
    const out = await call(
      `${BASE}/signout`,
      { method: "POST", headers: { cookie: session, origin: BASE, "sec-fetch-site": "same-origin" } },
      vars,
    );
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^papers_session=; Max-Age=0; Path=\//));
    const replayed = await call(`${BASE}/search?q=testing`, { headers: { cookie: session } }, vars);
    expect(replayed.status).toBe(401);
  });
});

describe("malformed addresses on the sign-in routes are a 4xx page, never a 500", () => {
  const vars = oauthVars();

  it.each([
    "/signin?next=%E0%A4%A",
    "/signin?next=%",
    "/signin/callback?state=%E0%A4%A&code=%FF",
    "/signin/callback?state=%",
  ])("%s", async (path) => {
    const response = await call(`${BASE}${path}`, {}, vars);
    expect(response.status).toBeLessThan(500);
    if (response.status >= 400) expect(response.headers.get("content-type")).toContain("text/html");
  });
});
