// Runs @modelcontextprotocol/conformance's server suite against an MCP URL with our baseline.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./dev-server.ts";

const CLI = path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
export const BASELINE = path.join(ROOT, "test/e2e/conformance-baseline.yml");

export interface ConformanceResult {
  code: number | null;
  output: string;
  summary: Record<string, "pass" | "fail">;
}

/** Resolves to { code, output, summary: { scenario: "pass" | "fail" } }. */
export function runConformance(mcpUrl: string, { timeoutMs = 180_000 } = {}): Promise<ConformanceResult> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-conformance-"));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CLI, "server", "--url", mcpUrl, "--expected-failures", BASELINE, "-o", outDir],
      {
        cwd: outDir,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      rmSync(outDir, { recursive: true, force: true });
      const summary: ConformanceResult["summary"] = {};
      for (const match of output.matchAll(/^([✓✗]) ([\w-]+): (\d+) passed, (\d+) failed/gmu)) {
        summary[match[2]] = match[1] === "✓" ? "pass" : "fail";
      }
      resolve({ code, output, summary });
    });
  });
}
