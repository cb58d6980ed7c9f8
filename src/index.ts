// Worker entry: HTTP (Hono), cron and queue handlers; Durable Object classes re-exported.
import { app } from "./app";
import { handleQueueBatch, registerHarvester, runScheduled } from "./harvest/dispatch";
import { nberHarvester } from "./harvest/nber";

registerHarvester("nber", nberHarvester);

export { CrawlGate } from "./upstream/gate";

export default {
  fetch: app.fetch,
  scheduled: (controller, env, ctx) => ctx.waitUntil(runScheduled(controller, env)),
  queue: (batch, env, _ctx) => handleQueueBatch(batch, env),
} satisfies ExportedHandler<Env, unknown>;
