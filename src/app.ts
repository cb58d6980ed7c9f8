// The Hono app: routes only. Each route delegates to one module.
import { Hono } from "hono";
import { createMcpHandler } from "agents/mcp/server";
import { ConfigError, loadConfig } from "./config";
import { renderLanding } from "./landing";
import { createServer } from "./mcp/server";
import { TOOLS } from "./mcp/registry";
import { readStoreHealth } from "./store/status";
import { SERVER_NAME, SERVER_VERSION } from "./version";

export const app = new Hono<{ Bindings: Env }>();

const LOCAL_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"];

app.all("/mcp", (c) => {
  const config = loadConfig(c.env);
  // Hono types its context loosely; at runtime it is the Worker's ExecutionContext.
  const executionCtx = c.executionCtx as unknown as ExecutionContext;
  const requestHost = new URL(c.req.url).hostname;
  // Host/Origin validation: localhost and this *.workers.dev name are always accepted; a deployed
  // custom domain must be listed in MCP_ALLOWED_HOSTNAMES.
  const allowed = [...LOCAL_HOSTNAMES, ...config.MCP_ALLOWED_HOSTNAMES];
  if (requestHost.endsWith(".workers.dev")) allowed.push(requestHost);
  const handler = createMcpHandler(() => createServer(c.env, executionCtx), {
    route: "/mcp",
    allowedHostnames: allowed,
    allowedOriginHostnames: allowed,
    onerror: (error) => console.error("mcp handler error", error),
  });
  return handler(c.req.raw, c.env, executionCtx);
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
  c.json({ error: { reason: "not_found", message: `No route ${c.req.method} ${new URL(c.req.url).pathname}.`, recovery: "The MCP endpoint is /mcp; see / for how to connect." } }, 404),
);

app.onError((error, c) => {
  if (error instanceof ConfigError) {
    return c.json({ error: { reason: "server_misconfigured", message: error.message, recovery: "The operator must fix the Worker's vars." } }, 503);
  }
  console.error("unhandled error", error);
  return c.json({ error: { reason: "internal_error", message: "papers-mcp failed unexpectedly.", recovery: "Retry; if it persists, tell the operator." } }, 500);
});
