// Sign-in for the pages in AUTH_MODE=oauth: the pages are a first-party OAuth client of this same
// server. /signin registers that client once (a public client, PKCE), sends the browser through
// /authorize (the identity provider, the allowlist and the consent page, as for any MCP client),
// and /signin/callback exchanges the code at this Worker's own token endpoint, in-process. The
// access token is kept in an HttpOnly cookie; page-access.ts checks it with the provider.
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { sha256Hex } from "../http/auth";
import { errorBox, PAGE_HEADERS, page } from "../web/layout";
import { appContextOf } from "./identity";

type PageContext = Context<{ Bindings: Env }>;

export const SESSION_COOKIE = "papers_session";
const STATE_COOKIE = "papers_signin";
const CALLBACK_PATH = "/signin/callback";
const PENDING_TTL_SECONDS = 600;

/** Only a path of this site, so the sign-in cannot send anyone elsewhere. */
export const localPath = (next: string) => (/^\/(?!\/|\\)/.test(next) ? next : "/");

const helpers = (c: PageContext) => (c.env as Env & { OAUTH_PROVIDER?: OAuthHelpers }).OAUTH_PROVIDER;

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
  const oauth = helpers(c);
  const base = config.PUBLIC_BASE_URL;
  if (config.AUTH_MODE !== "oauth" || !oauth || !base) return c.notFound();
  const redirectUri = `${base}${CALLBACK_PATH}`;
  const clientId = await pageClientId(c, oauth, redirectUri);
  // PKCE and the state from oauth4webapi, as the upstream sign-in makes them (loaded in oauth mode only).
  const pkce = await import("oauth4webapi");
  const state = pkce.generateRandomState();
  const verifier = pkce.generateRandomCodeVerifier();
  const challenge = await pkce.calculatePKCECodeChallenge(verifier);
  const next = localPath(c.req.query("next") ?? "/");
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
  if (config.AUTH_MODE !== "oauth" || !helpers(c) || !base) return c.notFound();
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
  const { default: worker } = await import("../index");
  const answer = await worker.fetch(
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
    }) as Parameters<typeof worker.fetch>[0],
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
  return c.redirect(localPath(pending.next), 303);
}

/** The signed-in user of a page request (oauth mode), or null: the session cookie's token, checked by the provider. */
export async function pageUser(c: PageContext): Promise<string | null> {
  const token = getCookie(c, SESSION_COOKIE);
  const oauth = helpers(c);
  if (!token || !oauth) return null;
  const summary = await oauth.unwrapToken<{ userId?: string }>(token).catch(() => null);
  if (!summary || summary.expiresAt * 1000 < Date.now()) return null;
  return summary.grant.props?.userId ?? summary.userId;
}

async function signInFailed(c: PageContext, message: string): Promise<Response> {
  return c.html(
    await page({
      title: "Sign in",
      body: html`<h1>Sign in</h1>${errorBox({ reason: "sign_in_failed", message, recovery: "Start again from the page you wanted." })}
<p><a href="/signin">Sign in again</a></p>`,
    }),
    400,
    PAGE_HEADERS,
  );
}
