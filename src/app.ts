// The Hono app: routes only. Each route delegates to one module.
import { Hono } from "hono";
import { createMcpHandler } from "agents/mcp/server";
import { ConfigError, loadConfig } from "./config";
import { renderLanding } from "./landing";
import { createServer } from "./mcp/server";
import { TOOLS } from "./mcp/registry";
import { readStoreHealth } from "./store/status";
import { nberPdfKey } from "./sources/nber/download";
import { parseNberId } from "./sources/nber/ids";
import { SERVER_NAME, SERVER_VERSION } from "./version";

export const app = new Hono<{ Bindings: Env }>();

const LOCAL_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"];

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
    handler = createMcpHandler((context) => createServer(env, context.requestInfo ? new URL(context.requestInfo.url).origin : "http://localhost"), {
      route: "/mcp",
      allowedHostnames: allowed,
      allowedOriginHostnames: allowed,
      onerror: (error) => console.error("mcp handler error", error),
    });
    perEnv.set(key, handler);
  }
  return handler;
}

app.all("/mcp", (c) => {
  // Hono types its context loosely; at runtime it is the Worker's ExecutionContext.
  const executionCtx = c.executionCtx as unknown as ExecutionContext;
  return mcpHandlerFor(c.env, new URL(c.req.url).hostname)(c.req.raw, c.env, executionCtx);
});

// NBER PDFs fetched by nber_download_paper, from R2. The key comes from the validated ID only.
app.on(["GET", "HEAD"], "/files/nber/:file", async (c) => {
  const parsed = parseNberId(c.req.param("file").replace(/\.pdf$/i, ""));
  const notFound = () =>
    c.json({ error: { reason: "not_found", message: "No such file.", recovery: "Call nber_download_paper first; it returns this file's URL." } }, 404);
  if (!parsed.ok || !c.req.param("file").toLowerCase().endsWith(".pdf")) return notFound();
  const object = await c.env.BLOBS.get(nberPdfKey(parsed.id), { onlyIf: c.req.raw.headers });
  if (!object) return notFound();
  const headers = new Headers({
    "content-type": "application/pdf",
    etag: object.httpEtag,
    "content-disposition": `attachment; filename="${parsed.id.id}.pdf"`,
    "cache-control": "private, max-age=86400",
  });
  // onlyIf answered "not modified": the body is absent.
  if (!("body" in object)) return new Response(null, { status: 304, headers });
  headers.set("content-length", String(object.size));
  return new Response(c.req.method === "HEAD" ? null : object.body, { headers });
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
