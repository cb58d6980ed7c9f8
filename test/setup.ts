// Storage is not isolated between tests: migrate before each, wipe after each.
import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach } from "vitest";
import { clearMemoryCache } from "../src/store/cache";
import { forgetCoverage } from "../src/store/nber-mirror";
import { forgetMirrorState } from "../src/store/arxiv-mirror-state";
import { clearRecentDocuments } from "../src/sources/arxiv/read/reader";
import { clearPassageIndexes } from "../src/sources/text/passages";

beforeEach(async () => {
  await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
});

afterEach(async () => {
  await reset();
  // reset() wipes D1; the per-isolate layer in front of it must go too.
  clearMemoryCache();
  clearRecentDocuments();
  clearPassageIndexes();
  forgetCoverage(env.DB);
  forgetMirrorState(env.DB);
});
