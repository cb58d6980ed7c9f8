// mcp-remote 0.15.1 with `--protocol auto`: a stdio client that speaks 2025 on its side while the
// proxy negotiates 2026-07-28 with the server (server/discover, then per-request `_meta`). A
// loopback proxy between mcp-remote and wrangler dev records what went over the wire. The 2025
// lane (`--protocol legacy`, its default) is test/e2e/mcp-remote.test.ts.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type LoopbackProxy, type SeenRequest, startLoopbackProxy } from "../../scripts/lib/loopback-proxy.ts";
import { MCP_HEADERS, mcpMessage } from "../support/mcp-http.ts";

const mcpUrl = inject("mcpUrl");
const MCP_REMOTE = path.resolve("node_modules/mcp-remote/dist/proxy.js");
// mcp-remote's requests count as this client (the per-client limits), apart from the other tests.
const CLIENT_IP = "198.18.59.3";

let proxy: LoopbackProxy;
let remote: ChildProcessWithoutNullStreams;
let configDir: string;
let stderr = "";
const seen: SeenRequest[] = [];
const waiting = new Map<number, (message: any) => void>();

function request(id: number, method: string, params?: object): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${method} in 30 s; mcp-remote:\n${stderr}`)), 30_000);
    waiting.set(id, (message) => {
      clearTimeout(timer);
      resolve(message);
    });
    remote.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) })}\n`);
  });
}

beforeAll(async () => {
  proxy = await startLoopbackProxy(mcpUrl, {
    headers: { "cf-connecting-ip": CLIENT_IP },
    onRequest: (seenRequest) => seen.push(seenRequest),
  });
  configDir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-mcp-remote-auto-"));
  remote = spawn(process.execPath, [MCP_REMOTE, proxy.url, "--transport", "http-only", "--protocol", "auto"], {
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
    stdio: ["pipe", "pipe", "pipe"],
  });
  remote.stderr.on("data", (chunk) => (stderr += chunk));
  createInterface({ input: remote.stdout }).on("line", (line) => {
    try {
      const message = JSON.parse(line);
      if (message.id !== undefined) waiting.get(message.id)?.(message);
    } catch {
      // not a JSON-RPC line
    }
  });
});

afterAll(async () => {
  if (remote && remote.exitCode === null) {
    const exited = new Promise((resolve) => remote.once("exit", resolve));
    remote.kill("SIGTERM");
    await exited;
  }
  await proxy?.close();
  rmSync(configDir, { recursive: true, force: true });
});

/** The JSON-RPC bodies mcp-remote POSTed to the server. */
const posted = () =>
  seen
    .filter((seenRequest) => seenRequest.method === "POST")
    .map((seenRequest) => ({ headers: seenRequest.headers, body: JSON.parse(seenRequest.body) }));

describe("mcp-remote --protocol auto", () => {
  it("negotiates 2026-07-28 with server/discover and sends every request with its _meta, never initialize", async () => {
    const init = await request(1, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "stdio-e2e-auto", version: "1" },
    });
    expect(init.result.serverInfo.name).toBe("papers-mcp");
    remote.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const list = await request(2, "tools/list", {});
    expect(list.result.tools.map((tool: { name: string }) => tool.name)).toContain("arxiv_list_categories");
    const call = await request(3, "tools/call", { name: "arxiv_list_categories", arguments: { group: "econ" } });
    expect(call.result.structuredContent.count).toBe(3);

    const bodies = posted().map(({ body }) => body);
    expect(bodies[0].method).toBe("server/discover");
    expect(bodies.map((body) => body.method)).not.toContain("initialize");
    for (const { headers, body } of posted()) {
      expect(headers["mcp-protocol-version"], body.method).toBe("2026-07-28");
      expect(body.params._meta["io.modelcontextprotocol/protocolVersion"], body.method).toBe("2026-07-28");
    }
    expect(bodies.map((body) => body.method)).toEqual(expect.arrayContaining(["tools/list", "tools/call"]));
  });

  it("opens no subscriptions/listen stream: the server promises no list_changed notifications", () => {
    expect(posted().map(({ body }) => body.method)).not.toContain("subscriptions/listen");
  });

  it("passes a refusal of ours through as the tool error the server wrote", async () => {
    // Spend this client's expensive calls (30 a minute) directly, then ask through mcp-remote.
    for (let i = 0; i < 40; i++) {
      const response = await fetch(mcpUrl, {
        method: "POST",
        headers: { ...MCP_HEADERS, "cf-connecting-ip": CLIENT_IP },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: { name: "nber_download_paper", arguments: { paper_id: "nope" } },
        }),
      });
      const message = mcpMessage(await response.text());
      if (JSON.parse(message.result.content[0].text).error.reason === "rate_limited") break;
    }
    const refused = await request(4, "tools/call", { name: "nber_download_paper", arguments: { paper_id: "w10000" } });
    expect(refused.result.isError).toBe(true);
    expect(JSON.parse(refused.result.content[0].text).error).toMatchObject({
      reason: "rate_limited",
      retry_after_ms: 60_000,
    });
    // The stdio client speaks 2025: the proxy hands it the result without the 2026 fields.
    expect(refused.result).not.toHaveProperty("resultType");
  });
});
