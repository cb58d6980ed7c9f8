// The Hono app: it mounts the route modules and answers what none of them serves.
import { Hono } from "hono";
import { ConfigError } from "./config";
import { adminRoutes } from "./routes/admin";
import { fileRoutes } from "./routes/files";
import { mcpRoutes } from "./routes/mcp";
import { oauthRoutes } from "./routes/oauth";
import { pageRoutes } from "./routes/pages";
import { siteRoutes } from "./routes/site";

export const app = new Hono<{ Bindings: Env }>();

app.route("/", mcpRoutes);
app.route("/", oauthRoutes);
app.route("/", adminRoutes);
app.route("/", fileRoutes);
app.route("/", siteRoutes);
app.route("/", pageRoutes);

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
