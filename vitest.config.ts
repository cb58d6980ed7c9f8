// Unit and integration tests inside workerd. Upstreams are answered by the shared fixture router;
// any request to another host is refused and recorded, and test/global-setup.ts fails the run.
import { appendFileSync } from "node:fs";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { FAKE_ORIGIN, createFixtureRouter, fakeUpstreamVars } from "./scripts/fake-upstream/router.ts";
import { BLOCKED_LOG, SENTINEL_HOST } from "./test/harness-paths.ts";
import { loadSampleRecords } from "./scripts/arxiv/sample.ts";
import { referenceSample } from "./scripts/citations/reference-set.ts";

export default defineConfig(async () => {
  const router = createFixtureRouter({ fixturesDir: "test/fixtures" });
  const fakeHost = new URL(FAKE_ORIGIN).host;
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Three more databases for the sharded mirror's tests (test/arxiv-shards.test.ts); the
          // deployment has DB alone unless ARXIV_MIRROR_SHARDS names more.
          d1Databases: ["DB", "ARXIV_SHARD_1", "ARXIV_SHARD_2", "ARXIV_SHARD_3"],
          bindings: {
            TEST_MIGRATIONS: await readD1Migrations("migrations"),
            // The real records of data/arxiv-sample as mirror records (workerd has no file system).
            TEST_ARXIV_SAMPLE: JSON.stringify(loadSampleRecords()),
            // A sample of the reference set (issue 31) and the NBER records it needs, with distractors.
            TEST_REFERENCE_SAMPLE: JSON.stringify(referenceSample()),
            ...fakeUpstreamVars(FAKE_ORIGIN),
            // Short spacings keep the suite fast; the gate logic is the same at 3000 ms.
            ARXIV_REQUEST_DELAY_MS: "150",
            ARXIV_MIRROR_OAI_REQUEST_DELAY_MS: "150",
            ARXIV_CONTENT_REQUEST_DELAY_MS: "50",
            NBER_REQUEST_DELAY_MS: "50",
            OPENALEX_REQUEST_DELAY_MS: "5",
            CROSSREF_REQUEST_DELAY_MS: "5",
            // In-process, departures and arrivals are microseconds apart; bench:gate measures the default margin.
            CRAWL_GATE_MARGIN_MS: "5",
            ARXIV_API_TIMEOUT_MS: "2000",
            // 15,000 fuzz calls would print 15,000 log lines; test/errors.test.ts turns it on where it checks it.
            LOG_TOOL_CALLS: "false",
          },
          outboundService: async (request: Request) => {
            const url = new URL(request.url);
            if (url.host === fakeHost) return router.handle(request);
            if (url.hostname !== SENTINEL_HOST) appendFileSync(BLOCKED_LOG, `${request.method} ${request.url}\n`);
            return new Response(`test harness: blocked request to non-fake host ${url.host}`, {
              status: 403,
              headers: { "x-test-harness": "blocked" },
            });
          },
        },
      }),
    ],
    test: {
      // Integration tests in test/, unit tests of pure modules beside them in src/.
      include: ["test/**/*.test.ts", "src/**/*.test.ts"],
      exclude: ["test/e2e/**", "node_modules/**"],
      setupFiles: ["./test/setup.ts"],
      globalSetup: ["./test/global-setup.ts"],
      // A budget against hangs, not a speed check (speed is the benchmarks'): on a busy 2-core CI
      // machine the PDF and bibliography tests have run past vitest's 5 s default.
      testTimeout: 30_000,
    },
  };
});
