// AUTH_MODE=oauth: the consent page at /authorize. @cloudflare/workers-oauth-provider handles
// registration (DCR), PKCE, tokens and the metadata documents; this page only asks the person at
// the browser whether the client may use papers-mcp. Everything shown that came from the client
// is escaped.
import {
  AuthorizationError,
  CimdFetchError,
  type ConsentDescription,
  type OAuthHelpers,
} from "@cloudflare/workers-oauth-provider";

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(details: ConsentDescription, handle: string): string {
  const name = escapeHtml(details.clientName || "An unnamed app");
  const origin = details.clientDomain
    ? `Published by <strong>${escapeHtml(details.clientDomain)}</strong>.`
    : "This app registered itself; its name is not verified.";
  const loopback = details.redirectIsLoopback
    ? "<p><strong>This sends access to an app on your computer.</strong> Continue only if you just started signing in from it.</p>"
    : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize ${name}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}</style></head><body>
<h1>Allow ${name} to use papers-mcp?</h1>
<p>${origin} Access will be sent to <strong>${escapeHtml(details.redirectHost)}</strong>.</p>${loopback}
<p>It will be able to search, read and download arXiv and NBER papers through this server (scopes: ${details.scope.map(escape).join(", ") || "none"}).</p>
<form method="post"><input type="hidden" name="handle" value="${escapeHtml(handle)}">
<p><button name="decision" value="approve">Allow</button> <button name="decision" value="deny">Deny</button></p></form>
</body></html>`;
}

export async function handleAuthorize(request: Request, oauth: OAuthHelpers): Promise<Response> {
  try {
    if (request.method === "GET") {
      const authRequest = await oauth.parseAuthRequest(request);
      const details = await oauth.describeConsent(authRequest);
      const consent = await oauth.beginConsent(authRequest);
      consent.headers.set("content-type", "text/html; charset=utf-8");
      return new Response(page(details, consent.handle), { headers: consent.headers });
    }
    const form = await request.formData();
    const handle = String(form.get("handle") ?? "");
    if (form.get("decision") !== "approve") {
      const denied = await oauth.denyConsent(request, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const approved = await oauth.approveConsent(request, handle);
    // No accounts here: each approval is its own subject, and the client is who limits apply to.
    const userId = crypto.randomUUID();
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request,
      userId,
      metadata: {},
      scope: approved.request.scope,
      props: { userId, clientId: approved.request.clientId },
    });
    approved.headers.set("location", redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (error) {
    if (error instanceof AuthorizationError && error.redirectTo) return Response.redirect(error.redirectTo, 302);
    if (error instanceof AuthorizationError || error instanceof CimdFetchError) {
      const message = error instanceof AuthorizationError ? error.description : "This app could not be verified.";
      return new Response(escapeHtml(message ?? "The authorization request is not valid."), {
        status: 400,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    throw error;
  }
}
