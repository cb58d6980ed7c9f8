// The Hono app: routes only. Each route delegates to one module.
import { Hono, type Context } from "hono";
import { createMcpHandler } from "agents/mcp/server";
import { ConfigError, loadConfig, type Config } from "./config";
import { startArxivHarvest } from "./harvest/arxiv";
import { nberHarvester } from "./harvest/nber";
import { PapersError } from "./errors";
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { bearerToken, sha256Hex, tokenMatches, unauthorized } from "./http/auth";
import type { GrantProps } from "./http/consent";
import { SIGN_IN_CALLBACK_PATH } from "./http/oauth-paths";
import { withCors } from "./http/cors";
import { preconditionStatus } from "./http/preconditions";
import {
  EXPENSIVE_TOOLS,
  LOCAL_FREE_REQUESTS,
  MAX_BATCH_MESSAGES,
  acquireSlots,
  calledTools,
  jsonRpcRefusal,
  localRequestCount,
  messageCount,
  parseJson,
  readBodyCapped,
  releaseWhenDone,
  toolCallRefusal,
} from "./http/limits";
import { renderLanding } from "./landing";
import { createServer } from "./mcp/server";
import { TOOLS } from "./mcp/registry";
import { readStoreHealth } from "./store/status";
import { nberPdfKey } from "./store/blobs";
import { parseNberId } from "./sources/nber/ids";
import { SERVER_NAME, SERVER_VERSION } from "./version";

export const app = new Hono<{ Bindings: Env }>();

const LOCAL_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Carries the caller's identity from the route to the MCP server factory; any copy a client sends is dropped. */
const IDENTITY_HEADER = "x-papers-identity";

// One MCP handler per isolate (and allowed-host set): building it per request cost ~1 ms.
// The handler still builds a fresh McpServer for every request through the factory.
const mcpHandlers = new WeakMap<Env, Map<string, ReturnType<typeof createMcpHandler>>>();

function mcpHandlerFor(env: Env, requestHost: string): ReturnType<typeof createMcpHandler> {
  // Host/Origin validation: localhost and this *.workers.dev name are always accepted; a deployed
  // custom domain must be listed in MCP_ALLOWED_HOSTNAMES.
  const allowed = [...LOCAL_HOSTNAMES, ...loadConfig(env).MCP_ALLOWED_HOSTNAMES];
  if (requestHost.endsWith(".workers.dev")) allowed.push(requestHost);
  const key = allowed.join(",");
  let perEnv = mcpHandlers.get(env);
  if (!perEnv) mcpHandlers.set(env, (perEnv = new Map()));
  let handler = perEnv.get(key);
  if (!handler) {
    handler = createMcpHandler(
      (context) =>
        createServer(
          env,
          context.requestInfo ? new URL(context.requestInfo.url).origin : "http://localhost",
          context.requestInfo?.headers.get(IDENTITY_HEADER) ?? null,
        ),
      {
        route: "/mcp",
        allowedHostnames: allowed,
        allowedOriginHostnames: allowed,
        onerror: (error) => console.error("mcp handler error", error),
      },
    );
    perEnv.set(key, handler);
  }
  return handler;
}

type AppContext = Context<{ Bindings: Env }>;

/** A rate-limit check that never fails the request: a broken limiter lets traffic through, logged. */
function limit(binding: RateLimit, key: string): Promise<{ success: boolean }> {
  return binding.limit({ key }).catch((error: unknown) => {
    console.error("rate limiter unavailable; allowing the request", error);
    return { success: true };
  });
}

/**
 * Who is calling, for limits and per-client state: the signed-in OAuth user (the same across their
 * clients and grants, so registering again resets nothing), the bearer token (by digest), or the IP address.
 * In bearer mode a missing or wrong token is answered here with 401.
 */
async function identify(
  c: AppContext,
  config: Config,
): Promise<{ client: string; identity: string | null } | { refusal: Response }> {
  if (config.AUTH_MODE === "oauth") {
    // The provider let the request through only with a valid token; its grant's props name the user.
    const props = (c.executionCtx as unknown as { props?: Partial<GrantProps> }).props;
    if (!props?.userId) return { refusal: unauthorized("papers-mcp", "The token names no user; sign in again.") };
    const user = `oauth-user:${props.userId}`;
    return { client: user, identity: user };
  }
  if (config.AUTH_MODE === "bearer") {
    const token = bearerToken(c.req.header("authorization"));
    if (!(await tokenMatches(token, config.AUTH_TOKEN_HASHES))) {
      return {
        refusal: unauthorized("papers-mcp", token ? "The bearer token is not valid." : "A bearer token is required."),
      };
    }
    const client = `token:${(await sha256Hex(token!)).slice(0, 16)}`;
    return { client, identity: client };
  }
  // AUTH_MODE=none has no users: per-client state lives in a workspace the caller names, which
  // anyone who knows the name can use (README: not private).
  const workspace = c.req.header(WORKSPACE_HEADER);
  return {
    client: `ip:${c.req.header("cf-connecting-ip") ?? "local"}`,
    identity: workspace && WORKSPACE_NAME.test(workspace) ? `workspace:${workspace}` : null,
  };
}

const WORKSPACE_HEADER = "x-papers-workspace";
const WORKSPACE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** The request as the MCP handler sees it: with the caller's identity (never one the client sent) for per-client state. */
function withIdentity(request: Request, identity: string | null, body?: string): Request {
  const headers = new Headers(request.headers);
  headers.delete(IDENTITY_HEADER);
  if (identity) headers.set(IDENTITY_HEADER, identity);
  return new Request(request.url, { method: request.method, headers, ...(body === undefined ? {} : { body }) });
}

app.all("/mcp", async (c) => {
  const config = loadConfig(c.env);
  // Hono types its context loosely; at runtime it is the Worker's ExecutionContext.
  const executionCtx = c.executionCtx as unknown as ExecutionContext;
  const handler = mcpHandlerFor(c.env, new URL(c.req.url).hostname);
  // A CORS preflight carries no credentials by design: the handler answers it (Host/Origin checked).
  if (c.req.method === "OPTIONS") return handler(c.req.raw, c.env, executionCtx);
  const who = await identify(c, config);
  if ("refusal" in who) return withCors(who.refusal);
  if (c.req.method !== "POST") return handler(c.req.raw, c.env, executionCtx);

  const body = await readBodyCapped(c.req.raw, config.MCP_MAX_BODY_BYTES);
  if (body === undefined) {
    return withCors(
      jsonRpcRefusal(
        413,
        "request_too_large",
        `The request body is larger than ${config.MCP_MAX_BODY_BYTES} bytes.`,
        "Send smaller arguments; no tool needs a body this large.",
      ),
    );
  }
  if (
    localRequestCount(who.client) > LOCAL_FREE_REQUESTS &&
    !(await limit(c.env.RATE_LIMIT_ENDPOINT, who.client)).success
  ) {
    return withCors(
      jsonRpcRefusal(
        429,
        "rate_limited",
        "Too many requests from this client.",
        "Wait a minute, then retry more slowly.",
        60,
      ),
    );
  }
  const parsed = parseJson(body);
  if (messageCount(parsed) > MAX_BATCH_MESSAGES) {
    return withCors(
      jsonRpcRefusal(
        400,
        "batch_too_large",
        `A JSON-RPC batch may hold at most ${MAX_BATCH_MESSAGES} messages.`,
        "Send fewer messages per request.",
      ),
    );
  }
  let release: (() => void) | undefined;
  // Every expensive call counts, one by one: a batch cannot start more reads than single requests could.
  const expensive = calledTools(parsed).filter((name) => EXPENSIVE_TOOLS.has(name)).length;
  if (expensive > 0) {
    for (let i = 0; i < expensive; i++) {
      if (!(await limit(c.env.RATE_LIMIT_EXPENSIVE, who.client)).success) {
        return withCors(
          toolCallRefusal(
            parsed,
            "rate_limited",
            "Too many paper reads or downloads from this client.",
            "Wait a minute; page through text you already have meanwhile.",
            60,
          ),
        );
      }
    }
    release = acquireSlots(who.client, config.MAX_CONCURRENT_EXPENSIVE_PER_CLIENT, expensive);
    if (!release) {
      return withCors(
        toolCallRefusal(
          parsed,
          "too_many_concurrent",
          `This client may have ${config.MAX_CONCURRENT_EXPENSIVE_PER_CLIENT} reads or downloads running at once; this request would make more.`,
          "Wait for one to finish, then retry (one read per request).",
          5,
        ),
      );
    }
  }
  try {
    // The body is already read: hand the handler the parsed JSON (it skips reading and parsing
    // again); a body that is not JSON goes through as text so the handler answers the parse error.
    const response =
      parsed === undefined
        ? await handler(withIdentity(c.req.raw, who.identity, body), c.env, executionCtx)
        : await handler.fetch(withIdentity(c.req.raw, who.identity), { parsedBody: parsed });
    return release ? releaseWhenDone(response, release) : response;
  } catch (error) {
    release?.();
    throw error;
  }
});

// OAuth sign-in and consent (AUTH_MODE=oauth; the provider in index.ts injects OAUTH_PROVIDER).
// The pages are loaded only in OAuth mode: the provider and identity libraries are not needed otherwise.
app.on(["GET", "POST"], "/authorize", async (c) => {
  const oauth = (c.env as Env & { OAUTH_PROVIDER?: OAuthHelpers }).OAUTH_PROVIDER;
  const config = loadConfig(c.env);
  if (config.AUTH_MODE !== "oauth" || !oauth) return c.notFound();
  const { handleAuthorize } = await import("./http/consent");
  return handleAuthorize(c.req.raw, oauth, c.env, config);
});

app.get(SIGN_IN_CALLBACK_PATH, async (c) => {
  const oauth = (c.env as Env & { OAUTH_PROVIDER?: OAuthHelpers }).OAUTH_PROVIDER;
  const config = loadConfig(c.env);
  if (config.AUTH_MODE !== "oauth" || !oauth) return c.notFound();
  const { handleSignInCallback } = await import("./http/consent");
  return handleSignInCallback(c.req.raw, oauth, c.env, config);
});

// Operator routes: always behind the admin token, whatever AUTH_MODE is.
app.use("/admin/*", async (c, next) => {
  const config = loadConfig(c.env);
  if (
    !config.ADMIN_TOKEN_HASH ||
    !(await tokenMatches(bearerToken(c.req.header("authorization")), [config.ADMIN_TOKEN_HASH]))
  ) {
    return unauthorized(
      "papers-mcp-admin",
      config.ADMIN_TOKEN_HASH
        ? "The admin token is missing or wrong."
        : "Admin routes are closed: ADMIN_TOKEN_HASH is not set.",
    );
  }
  await next();
});

app.get("/admin/status", async (c) => c.json(await readStoreHealth(c.env.DB)));

app.post("/admin/harvest/nber", async (c) => {
  await nberHarvester.onSchedule(c.env, "admin");
  return c.json({ started: "nber", status: "/admin/status" }, 202);
});

// Harvest control: GET shows progress; POST ?source=arxiv&mode=cold|refresh starts a run
// (source=nber starts the NBER listing walk).
app.get("/admin/harvest", async (c) => c.json(await readStoreHealth(c.env.DB)));
app.post("/admin/harvest", async (c) => {
  const source = c.req.query("source") ?? "arxiv";
  const mode = c.req.query("mode") ?? "refresh";
  if (source === "nber") {
    await nberHarvester.onSchedule(c.env, "admin");
    return c.json({ started: "nber", progress: "/admin/harvest" }, 202);
  }
  if (source !== "arxiv" || (mode !== "cold" && mode !== "refresh")) {
    return c.json(
      {
        error: {
          reason: "invalid_request",
          message: "source must be arxiv or nber; mode must be cold or refresh.",
          recovery: "POST /admin/harvest?source=arxiv&mode=cold",
        },
      },
      400,
    );
  }
  try {
    const run = await startArxivHarvest(c.env, mode);
    return c.json({ started: "arxiv", mode, ...run, progress: "/admin/harvest" }, 202);
  } catch (error) {
    if (error instanceof PapersError)
      return c.json({ error: { reason: error.reason, message: error.message, recovery: error.recovery } }, 409);
    throw error;
  }
});

// Mirror progress for anyone: records, pages, rate, started/finished, last error.
app.get("/status", async (c) => {
  const store = await readStoreHealth(c.env.DB);
  return c.json({ name: SERVER_NAME, version: SERVER_VERSION, ...store }, store.reachable ? 200 : 503);
});

// NBER PDFs fetched by nber_download_paper, from R2. The key comes from the validated ID only.
app.on(["GET", "HEAD"], "/files/nber/:file", async (c) => {
  const who = await identify(c, loadConfig(c.env));
  if ("refusal" in who) return who.refusal;
  const parsed = parseNberId(c.req.param("file").replace(/\.pdf$/i, ""));
  const notFound = () =>
    c.json(
      {
        error: {
          reason: "not_found",
          message: "No such file.",
          recovery: "Call nber_download_paper first; it returns this file's URL.",
        },
      },
      404,
    );
  if (!parsed.ok || !c.req.param("file").toLowerCase().endsWith(".pdf")) return notFound();
  const key = nberPdfKey(parsed.id);
  // HEAD reads the object's metadata only; GET lets R2 evaluate the preconditions (no body is
  // read when one fails) and we tell a failed If-Match (412) from "not modified" (304).
  const object =
    c.req.method === "HEAD" ? await c.env.BLOBS.head(key) : await c.env.BLOBS.get(key, { onlyIf: c.req.raw.headers });
  if (!object) return notFound();
  const headers = new Headers({
    "content-type": "application/pdf",
    etag: object.httpEtag,
    "last-modified": object.uploaded.toUTCString(),
    "content-disposition": `attachment; filename="${parsed.id.id}.pdf"`,
    "cache-control": "private, max-age=86400",
  });
  const precondition = preconditionStatus(c.req.raw.headers, object);
  if (precondition !== null || !("body" in object && object.body)) {
    if (precondition === 412) return new Response(null, { status: 412, headers });
    if (precondition === 304 || c.req.method !== "HEAD") return new Response(null, { status: 304, headers });
  }
  headers.set("content-length", String(object.size));
  return new Response(c.req.method === "HEAD" ? null : (object as R2ObjectBody).body, { headers });
});

app.get("/health", async (c) => {
  const store = await readStoreHealth(c.env.DB);
  return c.json(
    { name: SERVER_NAME, version: SERVER_VERSION, status: store.reachable ? "ok" : "degraded", d1: store },
    store.reachable ? 200 : 503,
  );
});

app.get("/", async (c) => {
  const url = new URL(c.req.url);
  const html = renderLanding({
    mcpUrl: `${url.origin}/mcp`,
    version: SERVER_VERSION,
    tools: TOOLS.map(({ name, title, description }) => ({ name, title, description })),
    health: await readStoreHealth(c.env.DB),
  });
  return c.html(html);
});

app.notFound((c) =>
  c.json(
    {
      error: {
        reason: "not_found",
        message: `No route ${c.req.method} ${new URL(c.req.url).pathname}.`,
        recovery: "The MCP endpoint is /mcp; see / for how to connect.",
      },
    },
    404,
  ),
);

app.onError((error, c) => {
  if (error instanceof ConfigError) {
    return c.json(
      {
        error: {
          reason: "server_misconfigured",
          message: error.message,
          recovery: "The operator must fix the Worker's vars.",
        },
      },
      503,
    );
  }
  console.error("unhandled error", error);
  return c.json(
    {
      error: {
        reason: "internal_error",
        message: "papers-mcp failed unexpectedly.",
        recovery: "Retry; if it persists, tell the operator.",
      },
    },
    500,
  );
});
