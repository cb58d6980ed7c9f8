// Sign-in for the pages in AUTH_MODE=oauth: the pages are a first-party OAuth client of this same
// server. /signin registers that client once (a public client, PKCE), sends the browser through
// /authorize (the identity provider, the allowlist and the consent page, as for any MCP client),
// and /signin/callback exchanges the code at this Worker's own token endpoint, in-process. The
// access token is kept in an HttpOnly cookie; page-access.ts checks it with the provider.
// POST /signout (either auth mode) is here too.
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { sha256Hex } from "../http/auth";
import { errorBox, page } from "../web/layout";
import { appContextOf } from "./identity";
import { crossSiteRefusal, localPath, signInRateRefusal } from "./page-guards";
import { htmlPage, oauthHelpers, oauthSession, SESSION_COOKIE, TOKEN_COOKIE } from "./page-session";
import { tokenEndpointFetch } from "./page-token-endpoint";

type PageContext = Context<{ Bindings: Env }>;

const STATE_COOKIE = "papers_signin";
const CALLBACK_PATH = "/signin/callback";
const PENDING_TTL_SECONDS = 600;

/** The pages' client at the provider, registered once per redirect address and remembered in KV. */
async function pageClientId(c: PageContext, oauth: OAuthHelpers, redirectUri: string): Promise<string> {
  const key = `papers-page-client:${redirectUri}`;
  const known = await c.env.OAUTH_KV.get(key);
  if (known && (await oauth.lookupClient(known))) return known;
  const client = await oauth.createClient({
    redirectUris: [redirectUri],
    clientName: "papers-mcp web pages",
    tokenEndpointAuthMethod: "none",
    grantTypes: ["authorization_code"],
    responseTypes: ["code"],
  });
  await c.env.OAUTH_KV.put(key, client.clientId);
  return client.clientId;
}

/** GET /signin (oauth mode): to the authorization endpoint, with PKCE and a state bound to this browser. */
export async function startPageSignIn(c: PageContext): Promise<Response> {
  const { config } = appContextOf(c);
  const oauth = oauthHelpers(c);
  const base = config.PUBLIC_BASE_URL;
  if (config.AUTH_MODE !== "oauth" || !oauth || !base) return c.notFound();
  // Before anything is written: each sign-in started stores a pending record (and maybe a client) in KV.
  const tooMany = await signInRateRefusal(c);
  if (tooMany) return tooMany;
  const redirectUri = `${base}${CALLBACK_PATH}`;
  const clientId = await pageClientId(c, oauth, redirectUri);
  // PKCE and the state from oauth4webapi, as the upstream sign-in makes them (loaded in oauth mode only).
  const pkce = await import("oauth4webapi");
  const state = pkce.generateRandomState();
  const verifier = pkce.generateRandomCodeVerifier();
  const challenge = await pkce.calculatePKCECodeChallenge(verifier);
  const next = localPath(c.req.query("next") ?? "/", base);
  await c.env.OAUTH_KV.put(`papers-page-signin:${await sha256Hex(state)}`, JSON.stringify({ verifier, next }), {
    expirationTtl: PENDING_TTL_SECONDS,
  });
  // Lax: the browser comes back from the identity provider by a top-level navigation.
  setCookie(c, STATE_COOKIE, state, {
    httpOnly: true,
    sameSite: "Lax",
    secure: base.startsWith("https:"),
    path: "/signin",
    maxAge: PENDING_TTL_SECONDS,
  });
  const authorize = new URL(`${base}/authorize`);
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "papers:read",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: base,
  }))
    authorize.searchParams.set(name, value);
  return c.redirect(authorize.href, 302);
}

/** GET /signin/callback: the state checked against this browser's, the code exchanged, the session cookie set. */
export async function finishPageSignIn(c: PageContext): Promise<Response> {
  const { config } = appContextOf(c);
  const base = config.PUBLIC_BASE_URL;
  if (config.AUTH_MODE !== "oauth" || !oauthHelpers(c) || !base) return c.notFound();
  const tooMany = await signInRateRefusal(c);
  if (tooMany) return tooMany;
  const state = c.req.query("state") ?? "";
  const code = c.req.query("code");
  const cookieState = getCookie(c, STATE_COOKIE);
  deleteCookie(c, STATE_COOKIE, { path: "/signin" });
  const key = `papers-page-signin:${await sha256Hex(state)}`;
  const pending =
    state && state === cookieState ? await c.env.OAUTH_KV.get<{ verifier: string; next: string }>(key, "json") : null;
  if (!pending || !code)
    return signInFailed(
      c,
      c.req.query("error") === "access_denied" ? "You declined." : "This sign-in has expired or was not started here.",
    );
  await c.env.OAUTH_KV.delete(key);
  const redirectUri = `${base}${CALLBACK_PATH}`;
  const clientId = await c.env.OAUTH_KV.get(`papers-page-client:${redirectUri}`);
  // The token endpoint is the provider's, in front of the app: asked in-process, not over the network.
  const serveToken = tokenEndpointFetch();
  if (!serveToken) return signInFailed(c, "This server cannot issue tokens to its pages; tell the operator.", 503);
  const answer = await serveToken(
    new Request(`${base}/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "cf-connecting-ip": c.req.header("cf-connecting-ip") ?? "local",
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: clientId ?? "",
        code_verifier: pending.verifier,
        resource: base,
      }).toString(),
    }),
    c.env,
    c.executionCtx as unknown as ExecutionContext,
  );
  const token = answer.ok ? ((await answer.json()) as { access_token?: string; expires_in?: number }) : null;
  if (!token?.access_token) return signInFailed(c, "The server did not issue a token; sign in again.");
  setCookie(c, SESSION_COOKIE, token.access_token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: base.startsWith("https:"),
    path: "/",
    maxAge: token.expires_in ?? config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
  });
  // Checked again on the way out: a pending record written before this check existed holds any `next`.
  return c.redirect(localPath(pending.next, base), 303);
}

async function signInFailed(c: PageContext, message: string, status: 400 | 503 = 400): Promise<Response> {
  const body = html`<h1>Sign in</h1>${errorBox({ reason: "sign_in_failed", message, recovery: "Start again from the page you wanted." })}
<p><a href="/signin">Sign in again</a></p>`;
  return htmlPage(c, page({ title: "Sign in", body }), status);
}

/**
 * POST /signout (the header's button): only from this site's own pages, so another site cannot
 * sign a browser out either. In oauth mode the grant is revoked too, so a copy of the cookie
 * stops working as well; then both modes' cookies are cleared and the browser goes home.
 */
export async function signOut(c: PageContext): Promise<Response> {
  const refused = await crossSiteRefusal(c);
  if (refused) return refused;
  const session = await oauthSession(c);
  if (session)
    await oauthHelpers(c)
      ?.revokeGrant(session.grantId, session.userId)
      .catch((error: unknown) => console.error("sign-out: the grant could not be revoked", error));
  const secure = new URL(c.req.url).protocol === "https:";
  for (const name of [TOKEN_COOKIE, SESSION_COOKIE]) deleteCookie(c, name, { path: "/", secure, httpOnly: true });
  return c.redirect("/", 303);
}
