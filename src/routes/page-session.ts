// A person's session on the pages: the cookie each auth mode keeps (bearer: the token itself;
// oauth: the access token the pages' sign-in got), whether the request holds a valid one, and the
// page answer that shows it in the header (with the sign-out form).
import type { OAuthHelpers, TokenSummary } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { type Config, ConfigError } from "../config";
import { tokenMatches } from "../http/auth";
import { type Html, PAGE_HEADERS, withAccount } from "../web/layout";
import { appContextOf } from "./identity";

type PageContext = Context<{ Bindings: Env }>;

/** AUTH_MODE=bearer: the token, kept once the sign-in form has checked it. */
export const TOKEN_COOKIE = "papers_token";
/** AUTH_MODE=oauth: the access token the pages' own sign-in was issued. */
export const SESSION_COOKIE = "papers_session";

/** The OAuth provider's helpers: set on env by the provider library, in oauth mode only. */
export const oauthHelpers = (c: PageContext) => (c.env as Env & { OAUTH_PROVIDER?: OAuthHelpers }).OAUTH_PROVIDER;

type Session = TokenSummary<{ userId?: string }>;

// One look-up per request: the access check and the header both ask (each a KV read).
const sessionsByRequest = new WeakMap<Request, Promise<Session | null>>();

/** The OAuth session cookie's token as the provider knows it; null when missing, forged, revoked or expired. */
export function oauthSession(c: PageContext): Promise<Session | null> {
  let session = sessionsByRequest.get(c.req.raw);
  if (!session) {
    session = unwrapSession(c);
    sessionsByRequest.set(c.req.raw, session);
  }
  return session;
}

async function unwrapSession(c: PageContext): Promise<Session | null> {
  const token = getCookie(c, SESSION_COOKIE);
  const oauth = oauthHelpers(c);
  if (!token || !oauth) return null;
  const summary = await oauth.unwrapToken<{ userId?: string }>(token).catch(() => null);
  if (!summary || summary.expiresAt * 1000 < Date.now()) return null;
  return summary;
}

/** The signed-in user of a page request (oauth mode), or null: the session cookie's token, checked by the provider. */
export async function pageUser(c: PageContext): Promise<string | null> {
  const session = await oauthSession(c);
  return session ? (session.grant.props?.userId ?? session.userId) : null;
}

/** Whether the browser holds a valid sign-in cookie of the server's auth mode (a stale one shows no sign-out). */
export async function signedIn(c: PageContext): Promise<boolean> {
  let config: Config;
  try {
    config = appContextOf(c).config;
  } catch (error) {
    // A broken configuration signs nobody in; the open pages (/, /status) still answer and say why elsewhere.
    if (error instanceof ConfigError) return false;
    throw error;
  }
  if (config.AUTH_MODE === "oauth") return (await pageUser(c)) !== null;
  if (config.AUTH_MODE === "bearer") return tokenMatches(getCookie(c, TOKEN_COOKIE), config.AUTH_TOKEN_HASHES);
  return false;
}

/** A page as the answer, the header saying whether the person is signed in (with the way out). */
export async function htmlPage(
  c: PageContext,
  body: Html,
  status = 200,
  headers: Record<string, string> = {},
): Promise<Response> {
  const document = withAccount(String(await body), await signedIn(c));
  return c.html(document, status as 200, { ...PAGE_HEADERS, ...headers });
}
