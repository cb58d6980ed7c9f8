// Which era a request to /mcp speaks (for our own refusals), and the one header disagreement let through.
import { describe, expect, it } from "vitest";
import { mendedProtocolHeader, requestEra } from "./mcp-era";

const serverInfo = { name: "papers-mcp", version: "0.1.0" };
const KEY = "io.modelcontextprotocol/protocolVersion";
const request = (meta?: Record<string, unknown>, id: unknown = 3) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/list",
  params: meta ? { _meta: meta } : {},
});

describe("requestEra", () => {
  it("reads the era from the body's _meta first, from the header only when the body names none", () => {
    expect(requestEra(request({ [KEY]: "2026-07-28" }), null, serverInfo)).toEqual({
      era: "modern",
      id: 3,
      serverInfo,
    });
    expect(requestEra(request({ [KEY]: "2026-07-28" }, "x"), "2025-11-25", serverInfo)).toMatchObject({ id: "x" });
    expect(requestEra(request({ [KEY]: "2025-11-25" }), "2026-07-28", serverInfo).era).toBe("legacy");
    // A malformed claim is a 2026 request the SDK refuses as such.
    expect(requestEra(request({ [KEY]: 7 }), null, serverInfo).era).toBe("modern");
    expect(requestEra(request(), "2026-07-28", serverInfo).era).toBe("modern");
    expect(requestEra(request(), " 2026-07-28 ", serverInfo).era).toBe("modern");
    expect(requestEra(undefined, "2026-07-28", serverInfo)).toEqual({ era: "modern", id: undefined, serverInfo });
    expect(requestEra(request(), "2025-11-25", serverInfo).era).toBe("legacy");
    expect(requestEra(request(), null, serverInfo).era).toBe("legacy");
    // Not a dated revision: not later than anything.
    expect(requestEra(request(), "zzz", serverInfo).era).toBe("legacy");
  });

  it("takes a batch for the 2025 era whatever it claims (2026-07-28 has no batches); a null id is no id", () => {
    expect(requestEra([request({ [KEY]: "2026-07-28" })], "2026-07-28", serverInfo).era).toBe("legacy");
    expect(requestEra(request({ [KEY]: "2026-07-28" }, null), null, serverInfo)).toMatchObject({ id: undefined });
  });
});

describe("mendedProtocolHeader (claude-code#93290)", () => {
  it("serves a 2025-11-25 header with a 2026-07-28 body as 2026-07-28, and leaves every other pair to the SDK", () => {
    expect(mendedProtocolHeader(request({ [KEY]: "2026-07-28" }), "2025-11-25")).toBe("2026-07-28");
    expect(mendedProtocolHeader(request({ [KEY]: "2026-07-28" }), "2025-06-18")).toBeUndefined();
    expect(mendedProtocolHeader(request({ [KEY]: "2026-07-28" }), "2026-07-28")).toBeUndefined();
    expect(mendedProtocolHeader(request({ [KEY]: "v999.0.0" }), "2025-11-25")).toBeUndefined();
    expect(mendedProtocolHeader(request(), "2025-11-25")).toBeUndefined();
    expect(mendedProtocolHeader([request({ [KEY]: "2026-07-28" })], "2025-11-25")).toBeUndefined();
  });
});
