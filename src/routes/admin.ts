// Operator routes: always behind the admin token, whatever AUTH_MODE is. GET /admin/status and
// /admin/harvest show the mirrors' progress; POST /admin/harvest starts a run
// (?source=arxiv&mode=cold|refresh, or ?source=nber; POST /admin/harvest/nber is the same as the latter);
// &rank=full makes the arXiv run end in a full rebuild of the ranking tables instead of a merge of its changes;
// mode=rebalance lists nothing: it moves papers to the shards ARXIV_MIRROR_SHARDS gives them (a shard added).
import { Hono } from "hono";
import { PapersError } from "../errors";
import { startArxivHarvest } from "../harvest/arxiv/run";
import { nberHarvester } from "../harvest/nber";
import { bearerToken, tokenMatches, unauthorized } from "../http/auth";
import { requestFullRebuildStatement } from "../store/ranking/refresh";
import { arxivShards } from "../store/arxiv-shards";
import { readStoreHealth } from "../mcp/status-report";
import { appContextOf, mirrorShardsOf, type RouteContext } from "./identity";

export const adminRoutes = new Hono<{ Bindings: Env }>();

adminRoutes.use("/admin/*", async (c, next) => {
  const { config } = appContextOf(c);
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

const progress = async (c: RouteContext) => c.json(await readStoreHealth(c.env.DB, mirrorShardsOf(c)));
adminRoutes.get("/admin/status", progress);
adminRoutes.get("/admin/harvest", progress);

const startNber = async (c: RouteContext) => {
  await nberHarvester.onSchedule(appContextOf(c), "admin");
  return c.json({ started: "nber", progress: "/admin/harvest" }, 202);
};
adminRoutes.post("/admin/harvest/nber", startNber);

adminRoutes.post("/admin/harvest", async (c) => {
  const source = c.req.query("source") ?? "arxiv";
  const mode = c.req.query("mode") ?? "refresh";
  const rank = c.req.query("rank");
  if (source === "nber") return startNber(c);
  if (
    source !== "arxiv" ||
    (mode !== "cold" && mode !== "refresh" && mode !== "rebalance") ||
    (rank !== undefined && rank !== "full")
  ) {
    return c.json(
      {
        error: {
          reason: "invalid_request",
          message:
            "source must be arxiv or nber; mode must be cold, refresh or rebalance; rank, if given, must be full.",
          recovery: "POST /admin/harvest?source=arxiv&mode=cold",
        },
      },
      400,
    );
  }
  try {
    const ctx = appContextOf(c);
    const run = await startArxivHarvest(ctx, mode);
    if (rank === "full") for (const shard of arxivShards(ctx)) await requestFullRebuildStatement(shard.db).run();
    return c.json({ started: "arxiv", mode, ...run, ...(rank ? { rank } : {}), progress: "/admin/harvest" }, 202);
  } catch (error) {
    if (error instanceof PapersError)
      return c.json({ error: { reason: error.reason, message: error.message, recovery: error.recovery } }, 409);
    throw error;
  }
});
