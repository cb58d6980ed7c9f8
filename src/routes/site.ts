// What a person or a monitor sees: /, /status (mirror progress for anyone) and /health.
import { Hono } from "hono";
import { renderLanding } from "../web/landing-page";
import { renderStatusPage } from "../web/status-page";
import { htmlPage } from "./pages";
import { signIn } from "./page-access";
import { finishPageSignIn, startPageSignIn } from "./page-signin";
import { TOOLS } from "../mcp/registry";
import { crossrefStatus } from "../sources/crossref/client";
import { openAlexAllowance } from "../sources/openalex/client";
import { readGateStatus, readStoreHealth } from "../mcp/status-report";
import { appContextOf, mirrorShardsOf } from "./identity";
import { SERVER_NAME, SERVER_VERSION } from "../version";

export const siteRoutes = new Hono<{ Bindings: Env }>();

// Mirror progress for anyone: records, pages, rate, started/finished, last error; and what is
// left of today's paid upstream allowance (OpenAlex's list calls); the external reference sources;
// the crawl gates' queues and requests in flight.
// A browser (Accept: text/html) gets the page for people; programs, and ?format=json, the JSON.
siteRoutes.get("/status", async (c) => {
  const [store, gates] = await Promise.all([
    readStoreHealth(c.env.DB, mirrorShardsOf(c)),
    // Each gate's queue and requests in flight (one Durable Object call a gate).
    readGateStatus(c.env, appContextOf(c).config),
  ]);
  if (wantsHtml(c.req.header("accept"), c.req.query("format")))
    return htmlPage(c, renderStatusPage(store, SERVER_VERSION, gates), store.reachable ? 200 : 503);
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
      gates,
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

siteRoutes.post("/signin", signIn);
siteRoutes.get("/signin", startPageSignIn);
siteRoutes.get("/signin/callback", finishPageSignIn);

/** HTML only when the client ranks it first (a browser), never for ?format=json. */
function wantsHtml(accept: string | undefined, format: string | undefined): boolean {
  if (format === "json") return false;
  if (format === "html") return true;
  const first = (accept ?? "").split(",")[0]?.trim().toLowerCase() ?? "";
  return first.startsWith("text/html");
}

siteRoutes.get("/", async (c) => {
  const url = new URL(c.req.url);
  const html = renderLanding({
    mcpUrl: `${url.origin}/mcp`,
    version: SERVER_VERSION,
    tools: TOOLS.map(({ name, title, description }) => ({ name, title, description })),
    health: await readStoreHealth(c.env.DB, mirrorShardsOf(c)),
  });
  return htmlPage(c, html);
});
