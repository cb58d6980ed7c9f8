// npm run conformance [-- --url <mcp url>]: the MCP conformance server suite with our baseline.
// Without --url it starts the stack itself (fake upstream + wrangler dev) and stops it after.
import { runConformance } from "./lib/conformance.ts";
import { startStack } from "./lib/dev-server.ts";

const urlFlag = process.argv.indexOf("--url");
const given = urlFlag >= 0 ? process.argv[urlFlag + 1] : undefined;
const stack = given ? undefined : await startStack();
try {
  const { code, output } = await runConformance(given ?? stack.mcpUrl);
  const summaryAt = output.indexOf("=== SUMMARY ===");
  console.log(summaryAt >= 0 ? output.slice(summaryAt) : output);
  process.exitCode = code ?? 1;
} finally {
  await stack?.stop();
}
