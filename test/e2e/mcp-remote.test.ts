// A stdio MCP client's path: JSON-RPC over stdin/stdout of mcp-remote, proxied to wrangler dev.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const mcpUrl = inject("mcpUrl");
const MCP_REMOTE = path.resolve("node_modules/mcp-remote/dist/proxy.js");

let proxy: ChildProcessWithoutNullStreams;
let configDir: string;
let stderr = "";
const waiting = new Map<number, (message: any) => void>();
const notifications: any[] = [];

function send(message: object): void {
  proxy.stdin.write(`${JSON.stringify(message)}\n`);
}

function request(id: number, method: string, params?: object): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no answer to ${method} within 30 s; mcp-remote stderr:\n${stderr}`)),
      30_000,
    );
    waiting.set(id, (message) => {
      clearTimeout(timer);
      resolve(message);
    });
    send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
  });
}

beforeAll(() => {
  configDir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-mcp-remote-"));
  proxy = spawn(process.execPath, [MCP_REMOTE, mcpUrl, "--transport", "http-only"], {
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
    stdio: ["pipe", "pipe", "pipe"],
  });
  proxy.stderr.on("data", (chunk) => (stderr += chunk));
  createInterface({ input: proxy.stdout }).on("line", (line) => {
    let message: any;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not a JSON-RPC line
    }
    if (message.id !== undefined) waiting.get(message.id)?.(message);
    else if (message.method) notifications.push(message);
  });
});

afterAll(async () => {
  if (proxy.exitCode === null) {
    const exited = new Promise((resolve) => proxy.once("exit", resolve));
    proxy.kill("SIGTERM");
    await exited;
  }
  rmSync(configDir, { recursive: true, force: true });
});

describe("mcp-remote as a stdio proxy", () => {
  it("initializes, lists tools and calls one over stdio", async () => {
    const init = await request(1, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "stdio-e2e", version: "1" },
    });
    expect(init.result.serverInfo.name).toBe("papers-mcp");
    send({ jsonrpc: "2.0", method: "notifications/initialized" });

    const list = await request(2, "tools/list", {});
    expect(list.result.tools.map((tool: { name: string }) => tool.name)).toContain("arxiv_list_categories");

    const call = await request(3, "tools/call", { name: "arxiv_list_categories", arguments: { group: "eess" } });
    expect(call.result.isError).toBeFalsy();
    expect(call.result.structuredContent.categories.map((c: { code: string }) => c.code)).toEqual([
      "eess.AS",
      "eess.IV",
      "eess.SP",
      "eess.SY",
    ]);

    // The NBER download is offered over stdio too (it writes to R2, never to the client's disk).
    expect(list.result.tools.map((tool: { name: string }) => tool.name)).toContain("nber_download_paper");
    const download = await request(5, "tools/call", { name: "nber_download_paper", arguments: { paper_id: "w10000" } });
    expect(download.result.content.map((c: { type: string }) => c.type)).toEqual(["text", "resource_link"]);

    const bad = await request(4, "tools/call", { name: "arxiv_list_categories", arguments: { group: "nonsense" } });
    expect(bad.result.isError).toBe(true);
    expect(JSON.parse(bad.result.content[0].text).error.reason).toBe("invalid_group");
  });

  it("passes the server's progress notifications through to a stdio client that asked for them", async () => {
    // A reference list read for the first time: the PDF is fetched and extracted, then the entries resolved.
    const call = await request(6, "tools/call", {
      name: "arxiv_get_references",
      arguments: { paper_id: "1704.01689v1" },
      _meta: { progressToken: "refs-1" },
    });
    expect(call.result.isError).toBeFalsy();
    const progress = notifications
      .filter((n) => n.method === "notifications/progress" && n.params.progressToken === "refs-1")
      .map((n) => n.params);
    const messages = progress.map((p) => p.message);
    expect(messages).toContain("fetching the PDF");
    expect(messages.some((m) => /^PDF \d+\.\d MB fetched$/.test(m))).toBe(true);
    expect(messages.some((m) => /^page \d+ of \d+ extracted$/.test(m))).toBe(true);
    expect(messages.at(-1)).toBe("25 of 25 references resolved");
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });
});
