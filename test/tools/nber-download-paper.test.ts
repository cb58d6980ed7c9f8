// nber_download_paper and /files: the PDF stored once in R2, the link with size and sha256, HTTP
// preconditions, and NBER's refusals.

import { env, exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { callTool, callToolWith, resetUpstream, toolError, upstreamHits, dbRows } from "../helpers";

beforeEach(resetUpstream);
describe("nber_download_paper and /files", () => {
  it("stores the PDF once in R2 and hands out a link with size and sha256", async () => {
    const first = await callTool("nber_download_paper", { paper_id: "w10000" });
    const out = first.structuredContent;
    expect(out).toMatchObject({
      paper_id: "w10000",
      url: "http://localhost/files/nber/w10000.pdf",
      filename: "w10000.pdf",
      served_from: "live",
    });
    const object = await env.BLOBS.get("nber/pdf/w10000.pdf");
    const bytes = new Uint8Array(await object!.arrayBuffer());
    expect(out.size).toBe(bytes.byteLength);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(out.sha256).toBe(digest);
    expect(first.content[1]).toMatchObject({ type: "resource_link", uri: out.url, mimeType: "application/pdf" });

    const second = await callTool("nber_download_paper", { paper_id: "10000" });
    expect(second.structuredContent).toMatchObject({ served_from: "cache", sha256: digest });
    expect(await upstreamHits()).toHaveLength(1);
    expect(await dbRows("SELECT status, size FROM download_log ORDER BY id")).toEqual([
      { status: "stored", size: bytes.byteLength },
      { status: "cached", size: bytes.byteLength },
    ]);

    const file = await exports.default.fetch("http://localhost/files/nber/w10000.pdf");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(file.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="w10000.pdf"');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
    const etag = file.headers.get("etag")!;
    const again = await exports.default.fetch("http://localhost/files/nber/w10000.pdf", {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
  });

  it("a cached download is described from R2's metadata without reading the PDF; an old copy without its digest is digested as a stream", async () => {
    const first = (await callTool("nber_download_paper", { paper_id: "w10000" })).structuredContent;
    let gets = 0;
    const blobs = new Proxy(env.BLOBS, {
      get(target, property, receiver) {
        if (property === "get") gets++;
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const cached = await callToolWith("nber_download_paper", { paper_id: "w10000" }, { BLOBS: blobs });
    expect(cached.result.structuredContent).toMatchObject({
      served_from: "cache",
      size: first.size,
      sha256: first.sha256,
    });
    expect(gets).toBe(0);
    // A copy stored without the digest in its metadata (as early versions did).
    const bytes = await (await env.BLOBS.get("nber/pdf/w10000.pdf"))!.arrayBuffer();
    await env.BLOBS.put("nber/pdf/w10000.pdf", bytes, { httpMetadata: { contentType: "application/pdf" } });
    const old = await callTool("nber_download_paper", { paper_id: "w10000" });
    expect(old.structuredContent).toMatchObject({ served_from: "cache", size: first.size, sha256: first.sha256 });
  });

  it("/files answers preconditions as HTTP says (412 for a failed If-Match, 304 for not modified), and HEAD reads no body", async () => {
    await callTool("nber_download_paper", { paper_id: "w10000" });
    const url = "http://localhost/files/nber/w10000.pdf";
    const etag = (await exports.default.fetch(url, { method: "HEAD" })).headers.get("etag")!;
    const status = async (init: RequestInit) => {
      const response = await exports.default.fetch(url, init);
      await response.arrayBuffer();
      return response.status;
    };
    expect(await status({ headers: { "if-match": '"not-this-one"' } })).toBe(412);
    expect(await status({ method: "HEAD", headers: { "if-match": '"not-this-one"' } })).toBe(412);
    expect(await status({ headers: { "if-match": etag } })).toBe(200);
    expect(await status({ headers: { "if-match": "*" } })).toBe(200);
    expect(await status({ headers: { "if-unmodified-since": "Mon, 01 Jan 2001 00:00:00 GMT" } })).toBe(412);
    expect(await status({ method: "HEAD", headers: { "if-none-match": etag } })).toBe(304);
    expect(await status({ headers: { "if-modified-since": new Date(Date.now() + 60_000).toUTCString() } })).toBe(304);
    expect(await status({ headers: { "if-none-match": '"other"' } })).toBe(200);
    // HEAD: the size and the validators from the object's metadata, and R2's get() never called.
    let gets = 0;
    const blobs = new Proxy(env.BLOBS, {
      get(target, property, receiver) {
        if (property === "get") gets++;
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const { default: worker } = await import("../../src/index");
    const { createExecutionContext } = await import("cloudflare:test");
    const head = await worker.fetch(
      new Request(url, { method: "HEAD" }) as never,
      { ...env, BLOBS: blobs } as Env,
      createExecutionContext(),
    );
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(1000);
    expect(head.headers.get("last-modified")).toMatch(/GMT$/);
    expect(head.body).toBeNull();
    expect(gets).toBe(0);
  });

  it.each([
    "/files/nber/w20000.pdf",
    "/files/nber/..%2F..%2Fsecret.pdf",
    "/files/nber/w10000",
    "/files/nber/arxiv%2Fpdf%2Fx.pdf",
  ])("%s is a 404", async (path) => {
    const response = await exports.default.fetch(`http://localhost${path}`);
    expect(response.status).toBe(404);
  });

  it("NBER's 403 becomes not_downloadable_now, stores nothing, and is logged", async () => {
    const error = toolError(await callTool("nber_download_paper", { paper_id: "w33509" }));
    expect(error).toMatchObject({ reason: "not_downloadable_now", retryable: true });
    expect(await env.BLOBS.head("nber/pdf/w33509.pdf")).toBeNull();
    expect(await dbRows("SELECT status FROM download_log")).toEqual([{ status: "not_downloadable_now" }]);
  });
});
