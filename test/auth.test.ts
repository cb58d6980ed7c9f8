// Authentication modes, admin routes and abuse limits, through the Worker's own fetch.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { sha256Hex } from "../src/http/auth";
import { FAKE, resetUpstream, upstreamHits } from "./helpers";
import { MCP_HEADERS, mcpMessage } from "./support/mcp-http";

async function call(url: string, init: RequestInit, vars: Record<string, unknown> = {}) {
  const ctx = createExecutionContext();
  const request = new Request(url, init) as unknown as Parameters<typeof worker.fetch>[0];
  const response = await worker.fetch(request, { ...env, ...vars } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const toolCall = (name: string, args: object, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { host: "localhost", ...MCP_HEADERS, ...headers },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
});

/** A stand-in for a Rate Limiting binding: `limit` requests per key, counted here. */
function countingLimiter(limit: number) {
  const counts = new Map<string, number>();
  return {
    counts,
    limit: async ({ key }: { key: string }) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return { success: counts.get(key)! <= limit };
    },
  };
}

const messageOf = async (response: Response) => mcpMessage(await response.text());

describe("AUTH_MODE=bearer", () => {
  const token = "test-token-please-change-0123456789";
  const vars = async () => ({ AUTH_MODE: "bearer", AUTH_TOKEN_HASHES: `${"0".repeat(64)},${await sha256Hex(token)}` });

  it("refuses a missing or wrong token with 401 and WWW-Authenticate; accepts the right one", async () => {
    const missing = await call("http://localhost/mcp", toolCall("arxiv_list_categories", {}), await vars());
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer realm="papers-mcp"/);
    const wrong = await call(
      "http://localhost/mcp",
      toolCall("arxiv_list_categories", {}, { authorization: "Bearer nope" }),
      await vars(),
    );
    expect(wrong.status).toBe(401);
    const right = await call(
      "http://localhost/mcp",
      toolCall("arxiv_list_categories", { group: "econ" }, { authorization: `Bearer ${token}` }),
      await vars(),
    );
    expect(right.status).toBe(200);
    expect((await messageOf(right)).result.structuredContent.count).toBe(3);
  });

  it("lets a browser client in: preflights need no token, and refusals carry CORS headers it can read", async () => {
    const origin = "http://localhost:6274"; // the MCP Inspector's web UI
    const preflight = await call(
      "http://localhost/mcp",
      {
        method: "OPTIONS",
        headers: {
          host: "localhost",
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      },
      await vars(),
    );
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization");
    const refused = await call("http://localhost/mcp", toolCall("arxiv_list_categories", {}, { origin }), await vars());
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
    const big = await call(
      "http://localhost/mcp",
      {
        ...toolCall("arxiv_list_categories", {}, { origin, authorization: `Bearer ${token}` }),
        body: "x".repeat(300_000),
      },
      await vars(),
    );
    expect(big.status).toBe(413);
    expect(big.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("guards /files too", async () => {
    const response = await call(
      "http://localhost/files/nber/w10000.pdf",
      { headers: { host: "localhost" } },
      await vars(),
    );
    expect(response.status).toBe(401);
  });

  it("refuses to start without token hashes (configuration error, not an open door)", async () => {
    const response = await call("http://localhost/mcp", toolCall("arxiv_list_categories", {}), {
      AUTH_MODE: "bearer",
      AUTH_TOKEN_HASHES: "",
    });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("AUTH_TOKEN_HASHES");
  });
});

describe("admin routes", () => {
  it("are closed without ADMIN_TOKEN_HASH and need the admin token with it, in every mode", async () => {
    expect((await call("http://localhost/admin/status", { headers: { host: "localhost" } })).status).toBe(401);
    const sent: unknown[] = [];
    const vars = {
      ADMIN_TOKEN_HASH: await sha256Hex("admin-secret"),
      HARVEST_QUEUE: { send: async (message: unknown) => void sent.push(message) },
    };
    expect(
      (
        await call(
          "http://localhost/admin/status",
          { headers: { host: "localhost", authorization: "Bearer wrong" } },
          vars,
        )
      ).status,
    ).toBe(401);
    const ok = await call(
      "http://localhost/admin/status",
      { headers: { host: "localhost", authorization: "Bearer admin-secret" } },
      vars,
    );
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ reachable: true });
    const harvest = await call(
      "http://localhost/admin/harvest/nber",
      { method: "POST", headers: { host: "localhost", authorization: "Bearer admin-secret" } },
      vars,
    );
    expect(harvest.status).toBe(202);
    expect(sent).toEqual([expect.objectContaining({ source: "nber", cursor: "1" })]);
  });

  it("/admin/harvest starts an arXiv cold harvest or a refresh, refuses a refresh with nothing to refresh, and shows progress", async () => {
    const sent: { source: string; cursor: string }[] = [];
    const vars = {
      ADMIN_TOKEN_HASH: await sha256Hex("admin-secret"),
      HARVEST_QUEUE: { send: async (message: { source: string; cursor: string }) => void sent.push(message) },
    };
    const admin = { host: "localhost", authorization: "Bearer admin-secret" };
    expect(
      (
        await call(
          "http://localhost/admin/harvest?source=arxiv&mode=cold",
          { method: "POST", headers: { host: "localhost" } },
          vars,
        )
      ).status,
    ).toBe(401);
    const refresh = await call(
      "http://localhost/admin/harvest?source=arxiv&mode=refresh",
      { method: "POST", headers: admin },
      vars,
    );
    expect(refresh.status).toBe(409);
    expect(((await refresh.json()) as { error: { recovery: string } }).error.recovery).toContain("mode=cold");
    expect(
      (await call("http://localhost/admin/harvest?source=arxiv&mode=warm", { method: "POST", headers: admin }, vars))
        .status,
    ).toBe(400);
    const cold = await call(
      "http://localhost/admin/harvest?source=arxiv&mode=cold",
      { method: "POST", headers: admin },
      vars,
    );
    expect(cold.status).toBe(202);
    expect(sent.map((m) => [m.source, JSON.parse(m.cursor)])).toEqual([
      [
        "arxiv",
        { kind: "list", step: 1, window: { idx: 0, from: null, until: "2007-05-31" }, token: null, window_pages: 0 },
      ],
    ]);
    const progress = (await (await call("http://localhost/admin/harvest", { headers: admin }, vars)).json()) as {
      mirrors: { source: string; status: string; run: { mode: string } }[];
    };
    expect(progress.mirrors.find((m) => m.source === "arxiv")).toMatchObject({
      status: "running",
      run: { mode: "cold" },
    });
    // The public /status shows the same progress without the token, and the landing page summarises it.
    const status = (await (await call("http://localhost/status", { headers: { host: "localhost" } })).json()) as {
      mirrors: { source: string; status: string }[];
    };
    expect(status.mirrors.find((m) => m.source === "arxiv")!.status).toBe("running");
    const landing = await (await call("http://localhost/", { headers: { host: "localhost" } })).text();
    expect(landing).toMatch(/cold started \d{4}-\d{2}-\d{2} \d{2}:\d{2}, 0 pages, 0 records, in progress/);
  });
});

describe("abuse limits", () => {
  it("caps the request body", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "arxiv_search_papers", arguments: { query: "x".repeat(300_000) } },
    });
    const response = await call("http://localhost/mcp", {
      method: "POST",
      headers: { host: "localhost", ...MCP_HEADERS },
      body: big,
    });
    expect(response.status).toBe(413);
    expect((await response.json()) as object).toMatchObject({ error: { data: { reason: "request_too_large" } } });
  });

  it("rate-limits the expensive tools per client with a tool error the agent can read (reason, retry_after_ms), not a transport failure", async () => {
    const client = { "cf-connecting-ip": "203.0.113.7" };
    const reasons: string[] = [];
    // The binding's own counters live in a Durable Object that other test files reset at any
    // moment; a counter of our own with the same 30-a-minute rule keeps this test exact.
    const limiter = countingLimiter(30);
    for (let i = 0; i < 32; i++) {
      const response = await call(
        "http://localhost/mcp",
        toolCall("nber_download_paper", { paper_id: "not-an-id" }, client),
        { RATE_LIMIT_EXPENSIVE: limiter },
      );
      expect(response.status).toBe(200);
      const message = await messageOf(response);
      const error = JSON.parse(message.result.content[0].text).error;
      reasons.push(error.reason);
      if (error.reason === "rate_limited") {
        expect(message.result.isError).toBe(true);
        expect(response.headers.get("retry-after")).toBe("60");
        expect(error).toMatchObject({ retryable: true, retry_after_ms: 60_000, recovery: expect.any(String) });
      }
    }
    expect(reasons.slice(0, 30).every((reason) => reason === "invalid_id")).toBe(true);
    expect(reasons.slice(30)).toEqual(["rate_limited", "rate_limited"]);
    // Another client is not affected.
    const other = await call(
      "http://localhost/mcp",
      toolCall("nber_download_paper", { paper_id: "not-an-id" }, { "cf-connecting-ip": "203.0.113.8" }),
      { RATE_LIMIT_EXPENSIVE: limiter },
    );
    expect(other.status).toBe(200);
  });

  it("counts the reference tools as expensive: papers_resolve_reference and papers_check_bibliography spend a client's expensive calls", async () => {
    const client = { "cf-connecting-ip": "203.0.113.9" };
    const limiter = countingLimiter(2);
    const reasons: string[] = [];
    // Empty arguments: the tool refuses them at once, after the limits have counted the call.
    for (const name of ["papers_resolve_reference", "papers_check_bibliography", "papers_resolve_reference"]) {
      const response = await call("http://localhost/mcp", toolCall(name, {}, client), {
        RATE_LIMIT_EXPENSIVE: limiter,
      });
      reasons.push(JSON.parse((await messageOf(response)).result.content[0].text).error.reason);
    }
    expect(reasons).toEqual(["invalid_argument", "invalid_argument", "rate_limited"]);
    // One client, each call counted (a bibliography of 200 entries is one call, and costs as one).
    expect([...limiter.counts.values()]).toEqual([3]);
  });

  it("rate-limits the whole endpoint per client: the binding's 300 a minute, counted after a client's first 10", async () => {
    const client = { "cf-connecting-ip": "192.0.2.55" };
    const statuses: number[] = [];
    // The limiter counts per minute: 330 calls that straddle a new minute would start a second count.
    const second = new Date().getUTCSeconds();
    if (second >= 50) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
    for (let i = 0; i < 330; i++) {
      const response = await call("http://localhost/mcp", {
        method: "POST",
        headers: { host: "localhost", ...MCP_HEADERS, ...client },
        body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" }),
      });
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses.slice(0, 310).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(310).every((status) => status === 429)).toBe(true);
  }, 60_000);

  it("bounds one client's concurrent reads", async () => {
    const client = { "cf-connecting-ip": "198.51.100.1" };
    const vars = {
      ARXIV_BASE_URL: `${FAKE}/arxiv/_scenario/slow`,
      AR5IV_BASE_URL: `${FAKE}/ar5iv/_scenario/slow`,
      ARXIV_READ_TIMEOUT_MS: "600",
    };
    const reads = [1, 2, 3].map((n) =>
      call("http://localhost/mcp", toolCall("arxiv_read_paper", { paper_id: `2401.0000${n}v1` }, client), vars),
    );
    const responses = await Promise.all(reads);
    const reasons = await Promise.all(
      responses.map(async (response) => JSON.parse((await messageOf(response)).result.content[0].text).error.reason),
    );
    // The two admitted reads run out of their 600 ms budget: one against the slow source, the other
    // waiting its turn behind it (arXiv is asked one request at a time); the third is refused.
    const [first, second, third] = reasons.sort();
    expect([first, second, third]).toEqual([expect.any(String), "timeout", "too_many_concurrent"]);
    expect(["rate_limited", "timeout"]).toContain(first);
    // Their slots are free again.
    const after = await call(
      "http://localhost/mcp",
      toolCall("arxiv_read_paper", { paper_id: "2401.00004v1" }, client),
      vars,
    );
    expect(after.status).toBe(200);
    await after.text();
  });
});

describe("JSON-RPC batches cannot dodge the limits", () => {
  const batch = (calls: { name: string; args: object }[], extra: object[] = []) =>
    JSON.stringify([
      ...calls.map(({ name, args }, i) => ({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name, arguments: args },
      })),
      ...extra,
    ]);

  it("each expensive call of a batch takes a slot: a batch of more reads than a client may run at once is refused, every call with a tool error", async () => {
    const client = { "cf-connecting-ip": "198.51.100.77" };
    const body = batch(
      [1, 2, 3].map((n) => ({ name: "arxiv_read_paper", args: { paper_id: `2401.0000${n}v1` } })),
      [
        { jsonrpc: "2.0", id: 99, method: "ping" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ],
    );
    const response = await call("http://localhost/mcp", {
      method: "POST",
      headers: { host: "localhost", ...MCP_HEADERS, ...client },
      body,
    });
    expect(response.status).toBe(200);
    const answers = (await response.json()) as any[];
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3, 99]);
    for (const answer of answers.slice(0, 3)) {
      expect(answer.result.isError).toBe(true);
      expect(JSON.parse(answer.result.content[0].text).error).toMatchObject({
        reason: "too_many_concurrent",
        retry_after_ms: 5000,
      });
    }
    expect(answers[3].error.data).toMatchObject({ reason: "too_many_concurrent" });
    // Nothing was started: the client's slots are all free.
    const single = await call(
      "http://localhost/mcp",
      toolCall("nber_download_paper", { paper_id: "not-an-id" }, client),
    );
    expect(JSON.parse((await messageOf(single)).result.content[0].text).error.reason).toBe("invalid_id");
  });

  it("reference checks take read slots too: a batch of three is refused whole", async () => {
    const client = { "cf-connecting-ip": "198.51.100.80" };
    const body = batch([
      { name: "papers_check_bibliography", args: { bibliography: "[1] A. Author, Phys. Rev. D 76, 013009 (2007)." } },
      { name: "papers_resolve_reference", args: { reference: "A. Author, Phys. Rev. D 76, 013009 (2007)." } },
      { name: "papers_check_bibliography", args: { bibliography: "[1] B. Author, JHEP 05 (2007) 034." } },
    ]);
    const response = await call("http://localhost/mcp", {
      method: "POST",
      headers: { host: "localhost", ...MCP_HEADERS, ...client },
      body,
    });
    const answers = (await response.json()) as any[];
    expect(answers.map((answer) => JSON.parse(answer.result.content[0].text).error.reason)).toEqual([
      "too_many_concurrent",
      "too_many_concurrent",
      "too_many_concurrent",
    ]);
  });

  it("a batch of 100 reads is refused whole, before any read starts or any limit is spent", async () => {
    const client = { "cf-connecting-ip": "198.51.100.79" };
    const limiter = countingLimiter(30);
    await resetUpstream();
    const reads = batch(
      Array.from({ length: 100 }, (_, i) => ({
        name: "arxiv_read_paper",
        args: { paper_id: `2401.${String(i).padStart(5, "0")}v1` },
      })),
    );
    const response = await call(
      "http://localhost/mcp",
      { method: "POST", headers: { host: "localhost", ...MCP_HEADERS, ...client }, body: reads },
      { RATE_LIMIT_EXPENSIVE: limiter },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { data: { reason: "batch_too_large" } } });
    expect(await upstreamHits()).toEqual([]);
    expect(limiter.counts.size).toBe(0);
  });

  it("each expensive call of a batch takes a rate-limit token, and a batch of more than 20 messages is refused", async () => {
    const client = { "cf-connecting-ip": "198.51.100.78" };
    const limiter = countingLimiter(30);
    const downloads = (n: number) =>
      batch(Array.from({ length: n }, () => ({ name: "nber_download_paper", args: { paper_id: "not-an-id" } })));
    const send = (body: string) =>
      call(
        "http://localhost/mcp",
        { method: "POST", headers: { host: "localhost", ...MCP_HEADERS, ...client }, body },
        { RATE_LIMIT_EXPENSIVE: limiter },
      );
    // 15 batches of 2 use up the 30 a minute; single requests could not have done more.
    for (let i = 0; i < 15; i++) await (await send(downloads(2))).text();
    const refused = (await (await send(downloads(1))).json()) as any;
    expect(JSON.parse(refused[0].result.content[0].text).error.reason).toBe("rate_limited");
    const huge = await send(
      JSON.stringify(Array.from({ length: 21 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }))),
    );
    expect(huge.status).toBe(400);
    expect(await huge.json()).toMatchObject({ error: { data: { reason: "batch_too_large" } } });
  });
});
