// npm run conformance [-- --url <mcp url>] [-- --revision 2025-11-25|2026-07-28]: the MCP
// conformance server suite with our baselines, for each era (both unless --revision names one).
// Without --url it starts the stack itself (fake upstream + wrangler dev) and stops it after.
import { REVISIONS, type Revision, runConformance } from "./lib/conformance.ts";
import { startStack } from "./lib/dev-server.ts";

const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const given = flag("--url");
const asked = flag("--revision");
if (asked !== undefined && !REVISIONS.includes(asked as Revision)) {
  console.error(`--revision must be one of ${REVISIONS.join(", ")}`);
  process.exit(2);
}
const revisions = asked ? [asked as Revision] : REVISIONS;
const stack = given ? undefined : await startStack();
try {
  let failed = false;
  for (const revision of revisions) {
    const { code, output } = await runConformance(given ?? stack.mcpUrl, { revision });
    const summaryAt = output.indexOf("=== SUMMARY ===");
    console.log(`\n### MCP ${revision}\n${summaryAt >= 0 ? output.slice(summaryAt) : output}`);
    failed ||= code !== 0;
  }
  process.exitCode = failed ? 1 : 0;
} finally {
  await stack?.stop();
}
