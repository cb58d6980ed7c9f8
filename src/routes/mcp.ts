// /mcp: the caller identified, the body capped, the limits applied call by call (a batch counts
// each call), then the agents SDK's MCP handler with a fresh McpServer per request.
import { createMcpHandler } from "agents/mcp/server";
import { type Context, Hono } from "hono";
import type { AppContext } from "../context";
import { withCors } from "../http/cors";
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
  rateLimitAllows,
  readBodyCapped,
  releaseWhenDone,
  toolCallRefusal,
} from "../http/limits";
import { createServer, type ServerProfile } from "../mcp/server";
import { appContextOf, CLIENT_HEADER, IDENTITY_HEADER, identify, withIdentity } from "./identity";

export const mcpRoutes = new Hono<{ Bindings: Env }>();

const LOCAL_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Where each profile is served: every tool at /mcp; OpenAI's search and fetch at /mcp/chatgpt. */
const ROUTES: Record<ServerProfile, string> = { full: "/mcp", connector: "/mcp/chatgpt" };

// One MCP handler per isolate (and allowed-host set and profile): building it per request cost ~1 ms.
// The handler still builds a fresh McpServer for every request through the factory.
const mcpHandlers = new WeakMap<Env, Map<string, ReturnType<typeof createMcpHandler>>>();

function mcpHandlerFor(
  { env, config }: AppContext,
  requestHost: string,
  profile: ServerProfile,
): ReturnType<typeof createMcpHandler> {
  // Host/Origin validation: localhost and this *.workers.dev name are always accepted; a deployed
  // custom domain must be listed in MCP_ALLOWED_HOSTNAMES.
  const allowed = [...LOCAL_HOSTNAMES, ...config.MCP_ALLOWED_HOSTNAMES];
  if (requestHost.endsWith(".workers.dev")) allowed.push(requestHost);
  const key = `${profile} ${allowed.join(",")}`;
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
          profile,
          context.requestInfo?.headers.get(CLIENT_HEADER) ?? "local",
        ),
      {
        route: ROUTES[profile],
        allowedHostnames: allowed,
        allowedOriginHostnames: allowed,
        onerror: (error) => console.error("mcp handler error", error),
      },
    );
    perEnv.set(key, handler);
  }
  return handler;
}

mcpRoutes.all(ROUTES.full, (c) => serveMcp(c, "full"));
mcpRoutes.all(ROUTES.connector, (c) => serveMcp(c, "connector"));

async function serveMcp(c: Context<{ Bindings: Env }>, profile: ServerProfile): Promise<Response> {
  const app = appContextOf(c);
  const { config } = app;
  // Hono types its context loosely; at runtime it is the Worker's ExecutionContext.
  const executionCtx = c.executionCtx as unknown as ExecutionContext;
  const handler = mcpHandlerFor(app, new URL(c.req.url).hostname, profile);
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
    !(await rateLimitAllows(c.env.RATE_LIMIT_ENDPOINT, who.client))
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
  const slots = await expensiveSlots(c.env, who.client, parsed, app.config);
  if ("refusal" in slots) return withCors(slots.refusal);
  const { release } = slots;
  try {
    // The body is already read: hand the handler the parsed JSON (it skips reading and parsing
    // again); a body that is not JSON goes through as text so the handler answers the parse error.
    const response =
      parsed === undefined
        ? await handler(withIdentity(c.req.raw, who, body), c.env, executionCtx)
        : await handler.fetch(withIdentity(c.req.raw, who), { parsedBody: parsed });
    return release ? releaseWhenDone(response, release) : response;
  } catch (error) {
    release?.();
    throw error;
  }
}

/**
 * Every expensive call counts, one by one: a batch cannot start more reads than single requests
 * could. The client's read slots, taken for the request (released when its answer is done), or
 * the refusal.
 */
async function expensiveSlots(
  env: Env,
  client: string,
  parsed: unknown,
  config: AppContext["config"],
): Promise<{ release: (() => void) | undefined } | { refusal: Response }> {
  const expensive = calledTools(parsed).filter((name) => EXPENSIVE_TOOLS.has(name)).length;
  if (expensive === 0) return { release: undefined };
  for (let i = 0; i < expensive; i++) {
    if (!(await rateLimitAllows(env.RATE_LIMIT_EXPENSIVE, client))) {
      return {
        refusal: toolCallRefusal(
          parsed,
          "rate_limited",
          "Too many paper reads or downloads from this client.",
          "Wait a minute; page through text you already have meanwhile.",
          60,
        ),
      };
    }
  }
  const release = acquireSlots(client, config.MAX_CONCURRENT_EXPENSIVE_PER_CLIENT, expensive);
  if (release) return { release };
  return {
    refusal: toolCallRefusal(
      parsed,
      "too_many_concurrent",
      `This client may have ${config.MAX_CONCURRENT_EXPENSIVE_PER_CLIENT} reads or downloads ` +
        `running at once; this request would make more.`,
      "Wait for one to finish, then retry (one read per request).",
      5,
    ),
  };
}
