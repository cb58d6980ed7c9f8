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
  type Refusal,
  releaseWhenDone,
  toolCallRefusal,
} from "../http/limits";
import { mendedProtocolHeader, type RequestEra, requestEra } from "../http/mcp-era";
import { createServer, SERVER_INFO, type ServerProfile } from "../mcp/server";
import { callBudgetOf } from "../mcp/tool";
import { withInvocationBudget } from "../call-budget";
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
  // GET and DELETE are the 2025 era's stream and session operations: the SDK answers them (405).
  if (c.req.method !== "POST") return handler(c.req.raw, c.env, executionCtx);

  const protocolHeader = c.req.header("mcp-protocol-version") ?? null;
  const body = await readBodyCapped(c.req.raw, config.MCP_MAX_BODY_BYTES);
  if (body === undefined) {
    // The body was not read: only the header can say which era asked.
    return withCors(jsonRpcRefusal(413, tooLarge(config), requestEra(undefined, protocolHeader, SERVER_INFO)));
  }
  const parsed = parseJson(body);
  const era = requestEra(parsed, protocolHeader, SERVER_INFO);
  const refusal = await endpointRefusal(c.env, who.client, parsed, era);
  if (refusal) return withCors(refusal);
  const slots = await expensiveSlots(c.env, who.client, parsed, app.config, era);
  if ("refusal" in slots) return withCors(slots.refusal);
  const { release } = slots;
  try {
    const forwarded = mendHeader(withIdentity(c.req.raw, who, parsed === undefined ? body : undefined), parsed, app);
    // The body is already read: hand the handler the parsed JSON (it skips reading and parsing
    // again); a body that is not JSON goes through as text so the handler answers the parse error.
    // One budget for the request: the platform's limits are per invocation, and a batch is one.
    const response = await withInvocationBudget(callBudgetOf(app.config), () =>
      parsed === undefined ? handler(forwarded, c.env, executionCtx) : handler.fetch(forwarded, { parsedBody: parsed }),
    );
    return release ? releaseWhenDone(response, release) : response;
  } catch (error) {
    release?.();
    throw error;
  }
}

const tooLarge = (config: AppContext["config"]): Refusal => ({
  reason: "request_too_large",
  message: `The request body is larger than ${config.MCP_MAX_BODY_BYTES} bytes.`,
  recovery: "Send smaller arguments; no tool needs a body this large.",
});

/** The whole endpoint's refusals of a read body: the client's rate limit, then a batch too large. */
async function endpointRefusal(
  env: Env,
  client: string,
  parsed: unknown,
  era: RequestEra,
): Promise<Response | undefined> {
  if (localRequestCount(client) > LOCAL_FREE_REQUESTS && !(await rateLimitAllows(env.RATE_LIMIT_ENDPOINT, client))) {
    const limited: Refusal = {
      reason: "rate_limited",
      message: "Too many requests from this client.",
      recovery: "Wait a minute, then retry more slowly.",
      retryAfterSeconds: 60,
    };
    return jsonRpcRefusal(429, limited, era);
  }
  if (messageCount(parsed) > MAX_BATCH_MESSAGES) {
    const batch: Refusal = {
      reason: "batch_too_large",
      message: `A JSON-RPC batch may hold at most ${MAX_BATCH_MESSAGES} messages.`,
      recovery: "Send fewer messages per request.",
    };
    return jsonRpcRefusal(400, batch, era);
  }
  return undefined;
}

/** claude-code#93290's header, served as the 2026-07-28 request its body is (http/mcp-era.ts says why); logged. */
function mendHeader(request: Request, parsed: unknown, app: AppContext): Request {
  const mended = mendedProtocolHeader(parsed, request.headers.get("mcp-protocol-version"));
  if (mended === undefined) return request;
  const headers = new Headers(request.headers);
  app.log({ event: "mcp_header_mended", header: headers.get("mcp-protocol-version"), served_as: mended });
  headers.set("mcp-protocol-version", mended);
  return new Request(request, { headers });
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
  era: RequestEra,
): Promise<{ release: (() => void) | undefined } | { refusal: Response }> {
  const expensive = calledTools(parsed).filter((name) => EXPENSIVE_TOOLS.has(name)).length;
  if (expensive === 0) return { release: undefined };
  for (let i = 0; i < expensive; i++) {
    if (!(await rateLimitAllows(env.RATE_LIMIT_EXPENSIVE, client))) {
      const limited = {
        reason: "rate_limited",
        message: "Too many expensive calls (paper reads, downloads, reference checks) from this client.",
        recovery:
          "Wait a minute; page through text you already have meanwhile, and check a list of references " +
          "in one papers_check_bibliography call rather than one papers_resolve_reference call each.",
        retryAfterSeconds: 60,
      } as const;
      return { refusal: toolCallRefusal(parsed, limited, era) };
    }
  }
  const release = acquireSlots(client, config.MAX_CONCURRENT_EXPENSIVE_PER_CLIENT, expensive);
  if (release) return { release };
  const busy = {
    reason: "too_many_concurrent",
    message:
      `This client may have ${config.MAX_CONCURRENT_EXPENSIVE_PER_CLIENT} expensive calls (reads, downloads, ` +
      `reference checks) running at once; this request would make more.`,
    recovery: "Wait for one to finish, then retry (one expensive call per request).",
    retryAfterSeconds: 5,
  } as const;
  return { refusal: toolCallRefusal(parsed, busy, era) };
}
