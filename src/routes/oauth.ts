// OAuth sign-in and consent pages (AUTH_MODE=oauth; the provider in index.ts injects OAUTH_PROVIDER).
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { Hono } from "hono";
import { SIGN_IN_CALLBACK_PATH } from "../http/oauth-paths";
import { appContextOf } from "./identity";

export const oauthRoutes = new Hono<{ Bindings: Env }>();

// The pages are loaded only in OAuth mode: the provider and identity libraries are not needed otherwise.
oauthRoutes.on(["GET", "POST"], "/authorize", async (c) => {
  const oauth = (c.env as Env & { OAUTH_PROVIDER?: OAuthHelpers }).OAUTH_PROVIDER;
  const app = appContextOf(c);
  if (app.config.AUTH_MODE !== "oauth" || !oauth) return c.notFound();
  const { handleAuthorize } = await import("../http/consent");
  return handleAuthorize(c.req.raw, oauth, app);
});

oauthRoutes.get(SIGN_IN_CALLBACK_PATH, async (c) => {
  const oauth = (c.env as Env & { OAUTH_PROVIDER?: OAuthHelpers }).OAUTH_PROVIDER;
  const app = appContextOf(c);
  if (app.config.AUTH_MODE !== "oauth" || !oauth) return c.notFound();
  const { handleSignInCallback } = await import("../http/consent");
  return handleSignInCallback(c.req.raw, oauth, app);
});
