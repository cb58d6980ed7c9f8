// arxiv://paper/{paperId}: a paper's record, and typed JSON-RPC errors for bad IDs and failing upstreams.

import { beforeEach, describe, expect, it } from "vitest";
import { FAKE, mcpCall, mcpCallWith, resetUpstream } from "../helpers";

beforeEach(resetUpstream);

describe("arxiv://paper/{paperId}", () => {
  it("reads a paper, with a legacy ID's slash percent-encoded", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://paper/astro-ph%2F0601001" });
    expect(JSON.parse(message.result.contents[0].text)).toMatchObject({ base_id: "astro-ph/0601001" });
  });

  it("fails empty_id for a blank ID", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://paper/%20" });
    expect(message.error.data).toMatchObject({ reason: "empty_id" });
  });

  it("refuses a parameter the template does not have, naming it and the one it has", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://paper/1411.4413?full_authors=true" });
    expect(message.error.data).toMatchObject({ reason: "invalid_argument" });
    expect(message.error.message).toContain(
      "`full_authors` is not a parameter of arxiv://paper/{paperId}; its only parameters are {paperId}",
    );
    expect(message.error.data.recovery).toContain("arxiv_get_metadata with full_authors");
  });

  it("fails invalid_id and no_match as JSON-RPC errors", async () => {
    const invalid = await mcpCall("resources/read", { uri: "arxiv://paper/banana" });
    expect(invalid.message.error.data).toMatchObject({ reason: "invalid_id" });
    const missing = await mcpCall("resources/read", { uri: "arxiv://paper/2401.99999" });
    expect([-32002, -32602]).toContain(missing.message.error.code);
    expect(missing.message.error.message).toContain("2401.99999");
  });

  it("a malformed percent-encoding is a typed invalid-params error on every template, never an internal error", async () => {
    for (const [uri, reason] of [
      ["arxiv://paper/%E0%A4%A", "invalid_id"],
      ["nber://paper/%E0%A4%A", "invalid_id"],
      ["arxiv://categories/%E0%A4%A", "invalid_category"],
    ]) {
      const { message } = await mcpCall("resources/read", { uri });
      expect(message.error, uri).toMatchObject({ code: -32602, data: { reason } });
    }
  });

  it("an upstream that is down or rate-limits is a retryable internal error with its reason, not invalid params", async () => {
    const vars = { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/status-429`, ARXIV_MIRROR_ENABLED: "false" };
    const { message } = await mcpCallWith("resources/read", { uri: "arxiv://paper/1605.08386" }, vars);
    expect(message.error).toMatchObject({ code: -32603, data: { reason: "rate_limited", retryable: true } });
    expect(message.error.data.retry_after_ms).toBeGreaterThan(0);
  });
});
