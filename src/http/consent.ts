// AUTH_MODE=oauth: who the user is, then whether they consent. @cloudflare/workers-oauth-provider
// handles registration (DCR), PKCE, tokens and the metadata documents; this module runs the pages:
//   GET  /authorize       the client's request is checked and sealed, the browser goes to the identity provider
//   GET  /oauth/callback  the provider's answer: the user is read, held to the allowlist, and asked to consent
//   POST /authorize       the consent form: approve issues a grant whose props carry the user's id
// Everything shown that came from the client or the provider is escaped.
import {
  AuthorizationError,
  authorizationErrorRedirect,
  CimdFetchError,
  type ConsentDescription,
  type OAuthHelpers,
} from "@cloudflare/workers-oauth-provider";
import type { AppContext } from "../context";
import type { ErrorReason } from "../errors";
import { sha256Hex } from "./auth";
import { admits } from "./allowlist";
import {
  finishSignIn,
  newPendingSignIn,
  type PendingSignIn,
  SignInError,
  type SignedInUser,
  signInUrl,
} from "./identity-provider";

/** What a token issued here carries to /mcp and /files (the provider hands it over as ctx.props). */
export interface GrantProps {
  userId: string;
  provider: SignedInUser["provider"];
  displayName: string;
  clientId: string;
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const STYLE = "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}</style>";

function htmlPage(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${STYLE}</head>` +
    `<body>${body}</body></html>`
  );
}

/** An HTML refusal that still names its reason, like every other error of the server. */
function refusal(status: number, reason: ErrorReason, title: string, message: string, extra = ""): Response {
  return new Response(
    htmlPage(
      title,
      `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${extra}<p><small>reason: ${reason}</small></p>`,
    ),
    {
      status,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-papers-reason": reason },
    },
  );
}

function consentPage(details: ConsentDescription, handle: string, user: SignedInUser): string {
  const name = escapeHtml(details.clientName || "An unnamed app");
  const origin = details.clientDomain
    ? `Published by <strong>${escapeHtml(details.clientDomain)}</strong>.`
    : "This app registered itself; its name is not verified.";
  const loopback = details.redirectIsLoopback
    ? "<p><strong>This sends access to an app on your computer.</strong> Continue only if you just started signing in from it.</p>"
    : "";
  const via = user.provider === "github" ? "GitHub" : "your organization's sign-in";
  return htmlPage(
    `Authorize ${details.clientName || "an app"}`,
    `<h1>Allow ${name} to use papers-mcp?</h1>
<p>Signed in as <strong>${escapeHtml(user.displayName)}</strong> through ${via}.</p>
<p>${origin} Access will be sent to <strong>${escapeHtml(details.redirectHost)}</strong>.</p>${loopback}
<p>It will be able to search, read and download arXiv and NBER papers through this server, and keep your watches
and library (scopes: ${details.scope.map(escapeHtml).join(", ") || "none"}).</p>
<form method="post"><input type="hidden" name="handle" value="${escapeHtml(handle)}">
<p><button name="decision" value="approve">Allow</button> <button name="decision" value="deny">Deny</button></p></form>`,
  );
}

/** The signed-in user waiting on a consent form, keyed by the form's handle (which only this browser can use). */
const consentUserKey = async (handle: string) => `papers-consent-user:${await sha256Hex(handle)}`;
const CONSENT_TTL_SECONDS = 600;

export async function handleAuthorize(request: Request, oauth: OAuthHelpers, { env, config }: AppContext) {
  try {
    if (request.method === "GET") {
      const authRequest = await oauth.parseAuthRequest(request).catch((error: unknown) => {
        // The library throws a plain Error for a request it cannot parse (a missing or unknown response_type, ...).
        if (error instanceof AuthorizationError || error instanceof CimdFetchError || !(error instanceof Error))
          throw error;
        throw new AuthorizationError("invalid_request", { description: error.message.slice(0, 300) });
      });
      const pending = newPendingSignIn(config);
      // The client's request and the PKCE verifier are sealed by the library, bound to this browser by a cookie.
      const upstream = await oauth.beginUpstream(authRequest, { data: pending });
      upstream.headers.set("location", await signInUrl(config, upstream.state, pending));
      return new Response(null, { status: 302, headers: upstream.headers });
    }
    const form = await request.formData().catch(() => null);
    if (!form) return refusal(400, "invalid_request", "Cannot authorize", "The consent form was not sent as a form.");
    const handle = String(form.get("handle") ?? "");
    if (form.get("decision") !== "approve") {
      const denied = await oauth.denyConsent(request, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const userKey = await consentUserKey(handle);
    const user = await env.OAUTH_KV.get<SignedInUser>(userKey, "json");
    if (!user) return refusal(400, "sign_in_failed", "Sign in again", "This consent form has expired; start again.");
    const approved = await oauth.approveConsent(request, handle);
    await env.OAUTH_KV.delete(userKey);
    const props: GrantProps = {
      userId: user.userId,
      provider: user.provider,
      displayName: user.displayName,
      clientId: approved.request.clientId,
    };
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request,
      userId: user.userId,
      metadata: { provider: user.provider, displayName: user.displayName },
      scope: approved.request.scope,
      props,
    });
    approved.headers.set("location", redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (error) {
    return authorizationFailure(error);
  }
}

export async function handleSignInCallback(request: Request, oauth: OAuthHelpers, { env, config }: AppContext) {
  try {
    const resumed = await oauth.finishUpstream<PendingSignIn>(request);
    const user = await finishSignIn(config, new URL(request.url), resumed.data);
    const admission = admits(config, user);
    if (!admission.admitted) {
      console.log(JSON.stringify({ event: "oauth_sign_in_refused", userId: user.userId, provider: user.provider }));
      const back = authorizationErrorRedirect(resumed.request, "access_denied", "not on this server's allowlist");
      const response = refusal(
        403,
        "not_allowed",
        "Not allowed",
        `Signed in as ${user.displayName}. ${admission.why} Ask the server's operator to add you.`,
        `<p><a href="${escapeHtml(back)}">Return to the app</a></p>`,
      );
      for (const cookie of resumed.headers.getSetCookie()) response.headers.append("set-cookie", cookie);
      return response;
    }
    const details = await oauth.describeConsent(resumed.request);
    const consent = await oauth.beginConsent(resumed.request);
    await env.OAUTH_KV.put(await consentUserKey(consent.handle), JSON.stringify(user), {
      expirationTtl: CONSENT_TTL_SECONDS,
    });
    const headers = consent.headers;
    for (const cookie of resumed.headers.getSetCookie()) headers.append("set-cookie", cookie);
    headers.set("content-type", "text/html; charset=utf-8");
    return new Response(consentPage(details, consent.handle, user), { headers });
  } catch (error) {
    return authorizationFailure(error);
  }
}

function authorizationFailure(error: unknown): Response {
  if (error instanceof SignInError) {
    const title = error.status === 502 ? "Sign-in provider unavailable" : "Sign-in failed";
    const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    return refusal(error.status, "sign_in_failed", title, `${message} Start again from the app.`);
  }
  if (error instanceof AuthorizationError && error.redirectTo) return Response.redirect(error.redirectTo, 302);
  if (error instanceof AuthorizationError || error instanceof CimdFetchError) {
    const message = error instanceof AuthorizationError ? error.description : "This app could not be verified.";
    return refusal(400, "invalid_request", "Cannot authorize", message ?? "The authorization request is not valid.");
  }
  throw error;
}
