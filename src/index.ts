// Worker entry: HTTP (Hono, behind the OAuth provider when AUTH_MODE=oauth), cron and queue
// handlers; Durable Object classes re-exported.
import type { OAuthProvider } from "@cloudflare/workers-oauth-provider";
import { app } from "./app";
import { ConfigError, loadConfig } from "./config";
import { handleQueueBatch, registerHarvester, runScheduled } from "./harvest/dispatch";
import { arxivHarvester, resumeStalledArxivRun } from "./harvest/arxiv";
import { nberHarvester } from "./harvest/nber";

export { CrawlGate } from "./upstream/gate";
export { ResearchAgent } from "./agent/research-agent";

registerHarvester("arxiv", arxivHarvester);
registerHarvester("nber", nberHarvester);

const appHandler = { fetch: (request: Request, env: Env, ctx: ExecutionContext) => app.fetch(request, env, ctx) };

// One provider per isolate and public origin: it serves /register, /token, the metadata
// documents, and checks tokens on /mcp and /files/ before the app sees the request.
// The library is imported only in OAuth mode (it is not needed otherwise).
const providers = new Map<string, OAuthProvider<Env>>();

async function oauthProvider(base: string): Promise<OAuthProvider<Env>> {
  let provider = providers.get(base);
  if (!provider) {
    const { OAuthProvider } = await import("@cloudflare/workers-oauth-provider");
    provider = new OAuthProvider<Env>({
      apiRoute: ["/mcp", "/files/"],
      apiHandler: appHandler,
      defaultHandler: appHandler,
      authorizeEndpoint: "/authorize",
      tokenEndpoint: "/token",
      clientRegistrationEndpoint: "/register",
      scopesSupported: ["papers:read"],
      requiredScopes: ["papers:read"],
      // The resource is the whole origin, so one token covers /mcp and the /files/ it links to.
      resourceMetadata: { resource: base, authorization_servers: [base] },
    });
    providers.set(base, provider);
  }
  return provider;
}

// "On start": an isolate's first request (and one a minute after that, or half the stall time) also looks for a harvest
// whose queue message was lost, so a restarted `wrangler dev` (which has no cron of its own)
// picks its run up again. In production the */5 cron does the same.
let watchdogAt = 0;

function watchHarvest(env: Env, ctx: ExecutionContext): void {
  const now = Date.now();
  let everyMs: number;
  try {
    everyMs = Math.min(60_000, loadConfig(env).ARXIV_MIRROR_STALL_SECONDS * 500);
  } catch {
    return; // a broken configuration is answered by the app
  }
  if (now - watchdogAt < everyMs) return;
  watchdogAt = now;
  ctx.waitUntil(resumeStalledArxivRun(env).catch((error: unknown) => console.error("harvest watchdog failed", error)));
}

export default {
  async fetch(request, env, ctx) {
    watchHarvest(env, ctx);
    let mode: string;
    let base: string | undefined;
    try {
      ({ AUTH_MODE: mode, PUBLIC_BASE_URL: base } = loadConfig(env));
    } catch (error) {
      if (error instanceof ConfigError) return app.fetch(request, env, ctx); // the app answers 503 and says why
      throw error;
    }
    return mode === "oauth" && base
      ? (await oauthProvider(base)).fetch(request, env, ctx)
      : app.fetch(request, env, ctx);
  },
  scheduled: (controller, env, ctx) => ctx.waitUntil(runScheduled(controller, env)),
  queue: (batch, env, _ctx) => handleQueueBatch(batch, env),
} satisfies ExportedHandler<Env, unknown>;
