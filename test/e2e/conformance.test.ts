// @modelcontextprotocol/conformance against wrangler dev, once per MCP era, each with its baseline:
// 0.1.16's server suite for 2025-11-25, and 0.2.0-alpha.12's frozen 2026-07-28 requirement set.
import { describe, expect, inject, it } from "vitest";
import { runConformance } from "../../scripts/lib/conformance.ts";

describe("MCP conformance (server suite)", () => {
  it("2025-11-25: passes every scenario that applies to a domain server; the rest match the baseline", async () => {
    const { code, output, summary } = await runConformance(inject("mcpUrl"), { revision: "2025-11-25" });
    for (const scenario of ["server-initialize", "ping", "tools-list", "resources-list", "dns-rebinding-protection"]) {
      expect(summary[scenario], `${scenario}\n${output.slice(-3000)}`).toBe("pass");
    }
    expect(code, output.slice(-3000)).toBe(0);
  }, 180_000);

  it("2026-07-28: every check a domain server can meet passes; only checks of the suite's own fixtures are baselined", async () => {
    const { code, output, summary } = await runConformance(inject("mcpUrl"), { revision: "2026-07-28" });
    // Whole scenarios with nothing baselined (server-stateless passes all but four fixture checks:
    // the exit code says the rest passed).
    for (const scenario of [
      "tools-list",
      "resources-list",
      "prompts-list",
      "caching",
      "sep-2164-resource-not-found",
      "dns-rebinding-protection",
      "http-header-validation",
      "input-required-result-unsupported-methods",
      "input-required-result-validate-input",
    ]) {
      expect(summary[scenario], `${scenario}\n${output.slice(-3000)}`).toBe("pass");
    }
    expect(output).toContain("Baseline check passed");
    expect(code, output.slice(-4000)).toBe(0);
  }, 180_000);
});
