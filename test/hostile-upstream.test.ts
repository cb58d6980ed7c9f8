// Hostile upstreams against the fake upstream: each case must end inside its time budget with a
// typed error, without reading past the size caps, leaving the caches empty and the gate usable.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PapersError } from "../src/errors";
import { pdfToDocument } from "../src/sources/text/pdf";
import { encryptedPdf } from "./support/pdf";
import { FAKE, callTool, callToolWith, resetUpstream, toolError } from "./helpers";

async function searchAgainst(scenario: string, vars: Record<string, string> = {}) {
  await resetUpstream();
  const started = Date.now();
  const { result } = await callToolWith(
    "arxiv_search_papers",
    { query: "testing" },
    { ARXIV_API_BASE_URL: `${FAKE}/arxiv-api/_scenario/${scenario}`, ...vars },
  );
  const elapsed = Date.now() - started;
  console.log(`hostile upstream ${scenario}: ${elapsed} ms`);
  return { error: toolError(result), elapsed };
}

describe("hostile upstreams", () => {
  it.each([
    ["entity-expansion", "upstream_malformed"], // billion laughs
    ["xxe", "upstream_malformed"], // DOCTYPE with an external entity
    ["truncated-xml", "upstream_malformed"],
    ["html", "upstream_malformed"], // 200 with an HTML error page and scripts
    ["huge-xml", "upstream_malformed"], // 100 MB body: reading stops at the 10 MB cap
  ])("%s -> %s, quickly, nothing cached", async (scenario, reason) => {
    const { error, elapsed } = await searchAgainst(scenario);
    expect(error.reason).toBe(reason);
    expect(elapsed).toBeLessThan(10_000);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM api_cache").first<{ n: number }>())!.n).toBe(0);
  });

  it("a body that never ends is cut off at the API timeout", async () => {
    const { error, elapsed } = await searchAgainst("drip", { ARXIV_API_TIMEOUT_MS: "1500" });
    expect(error.reason).toBe("timeout");
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(5000);
  });

  it("the gate stays usable afterwards: the next good request goes through", async () => {
    await searchAgainst("huge-xml");
    const result = await callTool("arxiv_search_papers", { query: "testing" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.returned).toBe(10);
  });

  it("an encrypted PDF is pdf_extraction_failed (encrypted)", async () => {
    const started = Date.now();
    const error = await pdfToDocument(encryptedPdf(), { maxPages: 10, maxChars: 10_000 }, "r").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PapersError);
    expect((error as PapersError).reason).toBe("pdf_extraction_failed");
    expect((error as PapersError).message).toMatch(/encrypted|does not parse/i);
    console.log(`hostile upstream encrypted-pdf: ${Date.now() - started} ms`);
  });

  it("a PDF that is not a PDF at all is pdf_extraction_failed", async () => {
    const error = await pdfToDocument(
      new TextEncoder().encode("<html>not a pdf</html>"),
      { maxPages: 10, maxChars: 10_000 },
      "r",
    ).catch((e: unknown) => e);
    expect((error as PapersError).reason).toBe("pdf_extraction_failed");
  });

  it("reading through a 429 leaves the caches empty and reports rate_limited", async () => {
    const { result } = await callToolWith(
      "arxiv_read_paper",
      { paper_id: "2501.11120v1" },
      { ARXIV_BASE_URL: `${FAKE}/arxiv/_scenario/status-429` },
    );
    expect(toolError(result).reason).toBe("rate_limited");
    expect((await env.BLOBS.list()).objects).toHaveLength(0);
  });
});
