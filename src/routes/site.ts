// What a person or a monitor sees: /, /status (mirror progress for anyone) and /health.
import { Hono } from "hono";
import { renderLanding } from "../landing";
import { TOOLS } from "../mcp/registry";
import { crossrefStatus } from "../sources/crossref/client";
import { openAlexAllowance } from "../sources/openalex/client";
import { readStoreHealth } from "../store/status";
import { appContextOf, mirrorShardsOf } from "./identity";
import { SERVER_NAME, SERVER_VERSION } from "../version";

export const siteRoutes = new Hono<{ Bindings: Env }>();

// Mirror progress for anyone: records, pages, rate, started/finished, last error; and what is
// left of today's paid upstream allowance (OpenAlex's list calls); the external reference sources.
siteRoutes.get("/status", async (c) => {
  const store = await readStoreHealth(c.env.DB, mirrorShardsOf(c));
  const allowances = store.reachable ? { openalex: await openAlexAllowance(appContextOf(c)).catch(() => null) } : {};
  // Crossref: on or off, the pool asked for, the limits its last answer stated, this isolate's calls today.
  const external = { crossref: crossrefStatus(appContextOf(c)) };
  return c.json(
    {
      name: SERVER_NAME,
      version: SERVER_VERSION,
      ...store,
      upstream_allowances: allowances,
      external_sources: external,
    },
    store.reachable ? 200 : 503,
  );
});

siteRoutes.get("/health", async (c) => {
  const store = await readStoreHealth(c.env.DB, mirrorShardsOf(c));
  return c.json(
    { name: SERVER_NAME, version: SERVER_VERSION, status: store.reachable ? "ok" : "degraded", d1: store },
    store.reachable ? 200 : 503,
  );
});

siteRoutes.get("/", async (c) => {
  const url = new URL(c.req.url);
  const html = renderLanding({
    mcpUrl: `${url.origin}/mcp`,
    version: SERVER_VERSION,
    tools: TOOLS.map(({ name, title, description }) => ({ name, title, description })),
    health: await readStoreHealth(c.env.DB, mirrorShardsOf(c)),
  });
  return c.html(html);
});
