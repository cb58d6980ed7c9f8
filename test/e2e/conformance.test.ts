// @modelcontextprotocol/conformance against wrangler dev, with the expected-failures baseline.
import { describe, expect, inject, it } from "vitest";
import { runConformance } from "../../scripts/lib/conformance.ts";

describe("MCP conformance (server suite)", () => {
  it("passes every scenario that applies to a domain server; the rest match the baseline", async () => {
    const { code, output, summary } = await runConformance(inject("mcpUrl"));
    for (const scenario of ["server-initialize", "ping", "tools-list", "resources-list", "dns-rebinding-protection"]) {
      expect(summary[scenario], `${scenario}\n${output.slice(-3000)}`).toBe("pass");
    }
    expect(code, output.slice(-3000)).toBe(0);
  }, 180_000);
});
