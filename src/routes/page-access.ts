// Who may use the pages, and how often: the same auth mode and limits as /mcp.
// - AUTH_MODE=none: open, limited per IP address like /mcp.
// - AUTH_MODE=bearer: a browser cannot send an Authorization header, so /signin takes the token once
//   and keeps it in an HttpOnly, SameSite=Strict cookie; an Authorization header works too.
// - AUTH_MODE=oauth: the pages sign the person in as a first-party OAuth client of this server
//   (page-signin.ts); the session cookie's token is checked with the provider on every page.
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { bearerToken, sha256Hex, tokenMatches } from "../http/auth";
import { acquireSlot, LOCAL_FREE_REQUESTS, localRequestCount, rateLimitAllows } from "../http/limits";
import type { ErrorPayload } from "../mcp/errors";
import { type Html, errorBox, page } from "../web/layout";
import { appContextOf } from "./identity";
import { crossSiteRefusal, localPath, signInRateRefusal } from "./page-guards";
import { htmlPage, pageUser, TOKEN_COOKIE } from "./page-session";

type PageContext = Context<{ Bindings: Env }>;

/** HTTP status of a typed error shown on a page. */
export function statusOf(error: Pick<ErrorPayload, "reason">): 400 | 401 | 404 | 413 | 429 | 500 | 502 | 503 | 504 {
  const reason = error.reason;
  if (reason === "no_match" || reason === "not_found" || reason === "version_unavailable") return 404;
  if (reason === "rate_limited" || reason === "too_many_concurrent" || reason === "server_busy") return 429;
  if (reason === "request_too_large" || reason === "content_too_large") return 413;
  if (reason === "unauthorized") return 401;
  if (reason === "upstream_malformed") return 502;
  if (reason === "upstream_unavailable" || reason === "server_misconfigured" || reason === "not_downloadable_now")
    return 503;
  if (reason === "timeout") return 504;
  if (reason === "internal_error") return 500;
  return 400;
}

const pageRefusal = (c: PageContext, status: 401 | 429, body: Html, extra: Record<string, string> = {}) =>
  htmlPage(c, body, status, extra);

/**
 * Lets a page's work run, or answers why not. `expensive` (the bibliography check) also takes one
 * of the client's slots for expensive work, released when the page is done.
 */
export async function pageAccess(
  c: PageContext,
  { expensive = false }: { expensive?: boolean } = {},
): Promise<{ release: () => void } | { refusal: Response }> {
  const { config } = appContextOf(c);
  let client = `ip:${c.req.header("cf-connecting-ip") ?? "local"}`;
  const url = new URL(c.req.url);
  const here = localPath(url.pathname + url.search, url.origin);
  if (config.AUTH_MODE === "oauth") {
    const user = await pageUser(c);
    if (!user) return { refusal: await pageRefusal(c, 401, oauthSignInPage(here)) };
    client = `oauth-user:${user}`;
  }
  if (config.AUTH_MODE === "bearer") {
    const token = bearerToken(c.req.header("authorization")) ?? getCookie(c, TOKEN_COOKIE);
    if (!(await tokenMatches(token, config.AUTH_TOKEN_HASHES)))
      return { refusal: await pageRefusal(c, 401, signInPage(here)) };
    client = `token:${(await sha256Hex(token!)).slice(0, 16)}`;
  }
  if (localRequestCount(client) > LOCAL_FREE_REQUESTS && !(await rateLimitAllows(c.env.RATE_LIMIT_ENDPOINT, client)))
    return {
      refusal: await pageRefusal(c, 429, tooMany("Too many requests from you in the last minute."), {
        "retry-after": "60",
      }),
    };
  if (!expensive) return { release: () => {} };
  const release = acquireSlot(client, config.MAX_CONCURRENT_EXPENSIVE_PER_CLIENT);
  if (!release)
    return {
      refusal: await pageRefusal(c, 429, tooMany("You have as many checks running as one person may."), {
        "retry-after": "5",
      }),
    };
  return { release };
}

const tooMany = (message: string): Html =>
  page({
    title: "Too many requests",
    body: html`<h1>Too many requests</h1>${errorBox({ reason: "rate_limited", message, recovery: "Wait a minute, then try again." })}`,
  });

/** The sign-in page of bearer mode: a token form. */
function signInPage(next: string): Html {
  return page({
    title: "Sign in",
    body: html`<h1>Sign in</h1><p>This server asks for the access token its operator gave you.</p>
<form action="/signin" method="post"><input type="hidden" name="next" value="${next}">
<p><label for="token">Access token</label><br><input id="token" name="token" type="password" autocomplete="current-password" required size="40"></p>
<p><button type="submit">Sign in</button></p></form>`,
  });
}

/** Oauth mode's sign-in page: a link through the server's identity provider, back to this page. */
function oauthSignInPage(next: string): Html {
  return page({
    title: "Sign in",
    body: html`<h1>Sign in</h1><p>This server asks everyone to sign in with its identity provider first.</p>
<p><a class="button" href="/signin?next=${encodeURIComponent(next)}">Sign in</a></p>`,
  });
}

/**
 * POST /signin (bearer mode): the token form. Only this site's own form is acted on (login CSRF),
 * at most as often as the sign-in limit allows; the browser goes back to `next`, a path of this site.
 */
export async function signIn(c: PageContext): Promise<Response> {
  const refused = (await crossSiteRefusal(c)) ?? (await signInRateRefusal(c));
  if (refused) return refused;
  const { config } = appContextOf(c);
  const form = await c.req.formData().catch(() => null);
  const token = String(form?.get("token") ?? "");
  const next = localPath(String(form?.get("next") ?? "/"), c.req.url);
  if (config.AUTH_MODE !== "bearer" || !(await tokenMatches(token, config.AUTH_TOKEN_HASHES))) {
    const body = html`<h1>Sign in</h1>${errorBox({
      reason: "unauthorized",
      message:
        config.AUTH_MODE === "bearer" ? "That token is not valid." : "This server does not sign in with a token.",
      recovery: "Check the token with the server's operator.",
    })}<p><a href="${next}">Back</a></p>`;
    return htmlPage(c, page({ title: "Sign in", body }), 401);
  }
  setCookie(c, TOKEN_COOKIE, token, {
    httpOnly: true,
    sameSite: "Strict",
    secure: new URL(c.req.url).protocol === "https:",
    path: "/",
    maxAge: 7 * 24 * 3600,
  });
  return c.redirect(next, 303);
}
