// Runs @modelcontextprotocol/conformance's server suite against an MCP URL with our baseline, for
// each MCP era: 0.1.16's suite for 2025-11-25 (the handshake revisions), and 0.2.0-alpha.12's
// frozen 2026-07-28 requirement set (the stateless revision) from the npm alias conformance-next.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./dev-server.ts";
import { startLoopbackProxy } from "./loopback-proxy.ts";

export type Revision = "2025-11-25" | "2026-07-28";

interface Suite {
  cli: string;
  args: string[];
  baseline: string;
  /** The client address the run is counted as (the per-client limits): each run its own. */
  clientIp: string;
}

export const SUITES: Record<Revision, Suite> = {
  "2025-11-25": {
    cli: path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js"),
    args: [],
    baseline: path.join(ROOT, "test/e2e/conformance-baseline.yml"),
    clientIp: "198.18.25.11",
  },
  "2026-07-28": {
    cli: path.join(ROOT, "node_modules/@modelcontextprotocol/conformance-next/dist/index.js"),
    args: ["--requirements", "2026-07-28"],
    baseline: path.join(ROOT, "test/e2e/conformance-baseline-2026-07-28.yml"),
    clientIp: "198.18.26.7",
  },
};
export const REVISIONS = Object.keys(SUITES) as Revision[];

export interface ConformanceResult {
  code: number | null;
  output: string;
  summary: Record<string, "pass" | "fail">;
}

/**
 * Resolves to { code, output, summary: { scenario: "pass" | "fail" } }. A run makes 100-150
 * requests in seconds: it goes through a loopback proxy that counts it as a client of its own, so
 * it never spends the per-client limits of the tests sharing the stack.
 */
export async function runConformance(
  mcpUrl: string,
  { revision = "2025-11-25" as Revision, timeoutMs = 180_000 } = {},
): Promise<ConformanceResult> {
  const suite = SUITES[revision];
  const proxy = await startLoopbackProxy(mcpUrl, { headers: { "cf-connecting-ip": suite.clientIp } });
  const outDir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-conformance-"));
  try {
    return await new Promise((resolve, reject) => {
      const args = [suite.cli, "server", "--url", proxy.url, ...suite.args];
      const child = spawn(process.execPath, [...args, "--expected-failures", suite.baseline, "-o", outDir], {
        cwd: outDir,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        const summary: ConformanceResult["summary"] = {};
        for (const match of output.matchAll(/^([✓✗]) ([\w-]+): (\d+) passed, (\d+) failed/gmu)) {
          summary[match[2]] = match[1] === "✓" ? "pass" : "fail";
        }
        resolve({ code, output, summary });
      });
    });
  } finally {
    rmSync(outDir, { recursive: true, force: true });
    await proxy.close();
  }
}
