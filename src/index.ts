// Worker entry: HTTP (Hono, behind the OAuth provider when AUTH_MODE=oauth), cron and queue
// handlers; Durable Object classes re-exported.
import type { OAuthProvider } from "@cloudflare/workers-oauth-provider";
import { app } from "./app";
import { type Config, ConfigError } from "./config";
import { type AppContext, appContext } from "./context";
import { oauthEndpointRefusal } from "./http/oauth-limits";
import { AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH } from "./http/oauth-paths";
import { oversizedClientIdRefusal } from "./http/oauth-input";
import { withTypedRefusal } from "./http/provider-refusals";
import { countRegistrationToday } from "./store/oauth";
import { handleQueueBatch, registerHarvester, runScheduled } from "./harvest/dispatch";
import { arxivHarvester, resumeStalledArxivRun } from "./harvest/arxiv/run";
import { nberHarvester } from "./harvest/nber";
import { serveTokenEndpointWith } from "./routes/page-token-endpoint";

export { CrawlGate } from "./upstream/gate";
export { ResearchAgent } from "./agent/research-agent";

registerHarvester("arxiv", arxivHarvester);
registerHarvester("nber", nberHarvester);

const appHandler = { fetch: (request: Request, env: Env, ctx: ExecutionContext) => app.fetch(request, env, ctx) };

// One provider per isolate and configuration: it serves /register, /token, the metadata
// documents, and checks tokens on /mcp and /files/ before the app sees the request.
// The library is imported only in OAuth mode (it is not needed otherwise).
const providers = new Map<string, OAuthProvider<Env>>();

async function oauthProvider(config: Config): Promise<OAuthProvider<Env>> {
  const base = config.PUBLIC_BASE_URL!;
  const key = `${base} ${config.OAUTH_ACCESS_TOKEN_TTL_SECONDS}`;
  let provider = providers.get(key);
  if (!provider) {
    const { OAuthProvider } = await import("@cloudflare/workers-oauth-provider");
    provider = new OAuthProvider<Env>({
      apiRoute: ["/mcp", "/files/"],
      apiHandler: appHandler,
      defaultHandler: appHandler,
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientRegistrationEndpoint: REGISTER_PATH,
      accessTokenTTL: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      scopesSupported: ["papers:read"],
      requiredScopes: ["papers:read"],
      // The resource is the whole origin, so one token covers /mcp and the /files/ it links to.
      resourceMetadata: { resource: base, authorization_servers: [base] },
    });
    providers.set(key, provider);
  }
  return provider;
}

// "On start": an isolate's first request (and one a minute after that, or half the stall time) also looks for a harvest
// whose queue message was lost, so a restarted `wrangler dev` (which has no cron of its own)
// picks its run up again. In production the */5 cron does the same.
let watchdogAt = 0;

function watchHarvest(context: AppContext): void {
  const now = Date.now();
  if (now - watchdogAt < Math.min(60_000, context.config.ARXIV_MIRROR_STALL_SECONDS * 500)) return;
  watchdogAt = now;
  context.waitUntil(
    resumeStalledArxivRun(context).catch((error: unknown) => console.error("harvest watchdog failed", error)),
  );
}

const worker = {
  async fetch(request, env, ctx) {
    let context: AppContext;
    try {
      context = appContext(env, (promise) => ctx.waitUntil(promise));
    } catch (error) {
      if (error instanceof ConfigError) return app.fetch(request, env, ctx); // the app answers 503 and says why
      throw error;
    }
    watchHarvest(context);
    const { config } = context;
    if (config.AUTH_MODE !== "oauth" || !config.PUBLIC_BASE_URL) return app.fetch(request, env, ctx);
    const refusal = await oauthEndpointRefusal(request, {
      perIp: env.RATE_LIMIT_OAUTH,
      registrationsPerIp: env.RATE_LIMIT_REGISTER,
      maxRegistrationsPerDay: config.OAUTH_MAX_REGISTRATIONS_PER_DAY,
      countRegistration: () => countRegistrationToday(env.DB),
    });
    return (
      refusal ??
      (await oversizedClientIdRefusal(request)) ??
      withTypedRefusal(await (await oauthProvider(config)).fetch(request, env, ctx))
    );
  },
  scheduled: (controller, env, ctx) =>
    ctx.waitUntil(
      runScheduled(
        controller,
        appContext(env, (promise) => ctx.waitUntil(promise)),
      ),
    ),
  queue: (batch, env, ctx) =>
    handleQueueBatch(
      batch,
      appContext(env, (promise) => ctx.waitUntil(promise)),
    ),
} satisfies ExportedHandler<Env, unknown>;

// The pages' sign-in exchanges its code at /token through this same fetch (provider and limits
// included), handed in here so that no route imports the entry.
serveTokenEndpointWith((request, env, ctx) => worker.fetch(request as Parameters<typeof worker.fetch>[0], env, ctx));

export default worker;
