// Hostile upstreams against the fake upstream: each case must end inside its time budget with a
// typed error, without reading past the size caps, leaving the caches empty and the gate usable.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PapersError } from "../src/errors";
import { pdfToDocument } from "../src/sources/text/pdf";
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

/** A one-page PDF with a Standard security handler and an unknown user password (hand-made). */
function encryptedPdf(): Uint8Array {
  const parts: string[] = ["%PDF-1.4\n"];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const object = (n: number, body: string) => {
    offsets[n] = length;
    const text = `${n} 0 obj\n${body}\nendobj\n`;
    parts.push(text);
    length += text.length;
  };
  const hex32 = "A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90";
  object(1, "<< /Type /Catalog /Pages 2 0 R >>");
  object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
  object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>");
  object(4, `<< /Filter /Standard /V 1 /R 2 /O <${hex32}> /U <${hex32}> /P -44 >>`);
  const xref = length;
  parts.push(
    `xref\n0 5\n0000000000 65535 f \n${[1, 2, 3, 4].map((n) => `${String(offsets[n]).padStart(10, "0")} 00000 n \n`).join("")}`,
  );
  parts.push(
    `trailer\n<< /Size 5 /Root 1 0 R /Encrypt 4 0 R /ID [<0123456789ABCDEF0123456789ABCDEF> <0123456789ABCDEF0123456789ABCDEF>] >>\nstartxref\n${xref}\n%%EOF\n`,
  );
  return new TextEncoder().encode(parts.join(""));
}
