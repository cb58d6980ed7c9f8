// End-to-end tests on the Node side: one stack (fake upstream + wrangler dev) for all files,
// started and stopped by test/e2e/global-setup.ts.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/e2e/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/e2e/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The files share one wrangler dev; run them one after another.
    fileParallelism: false,
  },
});
