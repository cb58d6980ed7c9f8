// The pages' token sign-in (AUTH_MODE=bearer) against hostile input: where `next` may send the
// browser, cross-site posts of the sign-in and sign-out forms (login CSRF), the sign-out, and the
// sign-in's rate limit. The OAuth sign-in's side is test/web-pages-oauth.test.ts.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../src/index";
import { sha256Hex } from "../src/http/auth";
import { seedMirror } from "./mirror/driver";

const ORIGIN = "http://localhost";
const TOKEN = "page-token-0123456789-abcdef";

/** A limiter stand-in with its own counters (the bindings' counters are shared across test files). */
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

async function vars(extra: Record<string, unknown> = {}) {
  return {
    AUTH_MODE: "bearer",
    AUTH_TOKEN_HASHES: await sha256Hex(TOKEN),
    RATE_LIMIT_OAUTH: countingLimiter(1_000_000),
    ...extra,
  };
}

async function call(url: string, init: RequestInit = {}, extra: Record<string, unknown> = {}) {
  const ctx = createExecutionContext();
  const request = new Request(url, { ...init, redirect: "manual" }) as unknown as Parameters<typeof worker.fetch>[0];
  const response = await worker.fetch(request, { ...env, ...(await vars(extra)) } as Env, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { response, text };
}

/** What a browser sends with a form posted from one of this site's own pages. */
const SAME_ORIGIN = { origin: ORIGIN, "sec-fetch-site": "same-origin" };

function signInForm(token: string, next: string, headers: Record<string, string> = SAME_ORIGIN): RequestInit {
  const body = new FormData();
  body.set("token", token);
  body.set("next", next);
  return { method: "POST", body, headers };
}

beforeEach(async () => {
  await seedMirror();
});

const cookieOf = (response: Response) => response.headers.get("set-cookie")?.split(";")[0] ?? "";

describe("the token sign-in sends the browser only to a path of this site", () => {
  // Each spelling a browser would follow off-site (a tab, newline or CR is dropped from a URL; a
  // backslash is a slash), or to a script.
  const OFF_SITE = [
    "/\t/evil.example/phish",
    "/\n/evil.example/phish",
    "/\r/evil.example/phish",
    "//evil.example/phish",
    "/\\evil.example/phish",
    "\\/evil.example/phish",
    "https://evil.example/phish",
    "https:evil.example",
    "javascript:alert(1)",
    " //evil.example/phish",
    "/.//evil.example/phish",
    "/%2e//evil.example/phish",
    "",
  ];

  it.each(OFF_SITE)("falls back to / for next=%j", async (next) => {
    const { response } = await call(`${ORIGIN}/signin`, signInForm(TOKEN, next));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
  });

  it("keeps a path of this site with its query, even one with an encoded tab, and drops the fragment", async () => {
    const cases: [string, string][] = [
      ["/search?q=quantum&start=10", "/search?q=quantum&start=10"],
      ["/paper/hep-th/9901001#abstract", "/paper/hep-th/9901001"],
      // Encoded, the tab stays a character of a path on this site: the browser does not drop it.
      ["/%09/evil.example/phish", "/%09/evil.example/phish"],
      [`${ORIGIN}/search?q=x`, "/search?q=x"],
    ];
    for (const [next, location] of cases) {
      const { response } = await call(`${ORIGIN}/signin`, signInForm(TOKEN, next));
      expect(response.headers.get("location"), next).toBe(location);
    }
  });

  it("links the failed sign-in's Back to a path of this site only", async () => {
    const { response, text } = await call(`${ORIGIN}/signin`, signInForm("wrong", "/\t/evil.example/phish"));
    expect(response.status).toBe(401);
    expect(text).toContain('<a href="/">Back</a>');
  });
});

describe("the token sign-in and sign-out refuse cross-site posts (login CSRF)", () => {
  const CROSS_SITE: [string, Record<string, string>][] = [
    ["another site's form", { origin: "https://evil.example", "sec-fetch-site": "cross-site" }],
    ["a sibling subdomain's form", { origin: "https://evil.localhost", "sec-fetch-site": "same-site" }],
    ["an older browser's cross-site form (Origin only)", { origin: "https://evil.example" }],
    ["a sandboxed or data: page (Origin null)", { origin: "null" }],
    ["a cross-site fetch whose Origin was stripped", { "sec-fetch-site": "cross-site" }],
  ];

  it.each(CROSS_SITE)("refuses %s with 403 and signs nobody in", async (_name, headers) => {
    const { response, text } = await call(`${ORIGIN}/signin`, signInForm(TOKEN, "/search?q=x", headers));
    expect(response.status).toBe(403);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(text).toContain("<code>invalid_request</code>");
    expect(text).toContain("came from another site");
  });

  it("signs in from this site's own form, and from a client that is not a browser (no Origin, no Sec-Fetch-Site)", async () => {
    const browser = await call(`${ORIGIN}/signin`, signInForm(TOKEN, "/"));
    expect(browser.response.status).toBe(303);
    expect(cookieOf(browser.response)).toMatch(/^papers_token=/);
    const script = await call(`${ORIGIN}/signin`, signInForm(TOKEN, "/", {}));
    expect(script.response.status).toBe(303);
  });

  it("shows a signed-in browser a sign-out button, and signing out clears the cookie", async () => {
    const signedIn = await call(`${ORIGIN}/signin`, signInForm(TOKEN, "/"));
    const cookie = cookieOf(signedIn.response);
    const before = await call(`${ORIGIN}/search?q=quantum`, { headers: { cookie } });
    expect(before.response.status).toBe(200);
    expect(before.text).toContain('<form class="account" action="/signout" method="post">');
    // Open pages show it too: the header is the same on every page.
    expect((await call(`${ORIGIN}/`, { headers: { cookie } })).text).toContain('action="/signout"');
    // Someone else's site cannot sign the browser out.
    const forged = await call(`${ORIGIN}/signout`, {
      method: "POST",
      headers: { cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(forged.response.status).toBe(403);
    expect(forged.response.headers.get("set-cookie")).toBeNull();
    const out = await call(`${ORIGIN}/signout`, { method: "POST", headers: { cookie, ...SAME_ORIGIN } });
    expect(out.response.status).toBe(303);
    expect(out.response.headers.get("location")).toBe("/");
    expect(out.response.headers.getSetCookie()).toContainEqual(
      expect.stringMatching(/^papers_token=; Max-Age=0; Path=\//),
    );
    // Without the cookie: the sign-in page, and no sign-out button.
    const after = await call(`${ORIGIN}/search?q=quantum`);
    expect(after.response.status).toBe(401);
    expect(after.text).not.toContain('action="/signout"');
    // The header's account slot is always filled in (here: with nothing), never sent as it is.
    expect(after.text).not.toContain("<!--account-->");
  });

  it("still shows the open pages of a misconfigured server (bearer mode without hashes): nobody is signed in", async () => {
    for (const path of ["/", "/check"]) {
      const { response, text } = await call(
        `${ORIGIN}${path}`,
        { headers: { cookie: `papers_token=${TOKEN}` } },
        {
          AUTH_TOKEN_HASHES: "",
        },
      );
      expect(response.status, path).toBe(200);
      expect(text, path).not.toContain('action="/signout"');
    }
  });

  it("shows no sign-out button for a cookie whose token is not valid", async () => {
    const { text } = await call(`${ORIGIN}/`, { headers: { cookie: "papers_token=stale" } });
    expect(text).not.toContain('action="/signout"');
  });
});

describe("the token sign-in is rate-limited per address", () => {
  it("answers 429 with Retry-After on a page, past the sign-in limit", async () => {
    const limiter = countingLimiter(2);
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 3; i++) {
      const attempt = await call(
        `${ORIGIN}/signin`,
        signInForm(TOKEN, "/", { ...SAME_ORIGIN, "cf-connecting-ip": "203.0.113.7" }),
        { RATE_LIMIT_OAUTH: limiter },
      );
      statuses.push(attempt.response.status);
      refused = attempt;
    }
    expect(statuses).toEqual([303, 303, 429]);
    expect(refused!.response.headers.get("retry-after")).toBe("60");
    expect(refused!.response.headers.get("set-cookie")).toBeNull();
    expect(refused!.text).toContain("<code>rate_limited</code>");
    expect([...limiter.counts.keys()]).toEqual(["ip:203.0.113.7"]);
  });
});
