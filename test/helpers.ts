import { vi } from "vitest";
// Helpers for workerd tests: call the Worker like a client, and read the fake upstream's log.
import { env, exports } from "cloudflare:workers";
import { answerOf, MCP_HEADERS as CLIENT_HEADERS, mcpMessage } from "./support/mcp-http";

export { answerOf };

export { mcpMessage, mcpMessages, toolErrorOf } from "./support/mcp-http";

export const FAKE = "http://fake.upstream";

export interface UpstreamHit {
  at: number;
  method: string;
  path: string;
  userAgent: string | null;
}

export async function upstreamHits(): Promise<UpstreamHit[]> {
  return (await (await fetch(`${FAKE}/_hits`)).json()) as UpstreamHit[];
}

export async function resetUpstream(): Promise<void> {
  await fetch(`${FAKE}/_reset`, { method: "POST" });
}

const MCP_HEADERS = { host: "localhost", ...CLIENT_HEADERS };

/** One JSON-RPC call to /mcp; returns the HTTP status and the parsed JSON-RPC message (SSE or JSON). */
export async function mcpCall(
  method: string,
  params?: unknown,
  init: { headers?: Record<string, string>; rawBody?: string } = {},
): Promise<{ status: number; message: any }> {
  const response = await exports.default.fetch("http://localhost/mcp", {
    method: "POST",
    headers: { ...MCP_HEADERS, ...init.headers },
    body:
      init.rawBody ?? JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  return { status: response.status, message: mcpMessage(await response.text()) };
}

export async function callTool(name: string, args: unknown) {
  const { status, message } = await mcpCall("tools/call", { name, arguments: args });
  if (status !== 200) throw new Error(`tools/call ${name} answered HTTP ${status}: ${JSON.stringify(message)}`);
  return message.result as ToolResult;
}

type ToolResult = {
  isError?: boolean;
  content: { type: string; text: string; _meta?: Record<string, unknown> }[];
  structuredContent: any;
  _meta?: Record<string, unknown>;
};

/**
 * The structured answer of a tool result; a failed call throws with its error text. A text-payload
 * answer (the read tools, export) has no structuredContent: its fields are in `_meta` and its text
 * in the content item marked with the field's name, put back together here.
 */
export function structuredOf(result: ToolResult) {
  if (result.isError) throw new Error(result.content[0]!.text);
  return answerOf(result);
}

/** tools/call that must succeed: its structured answer. */
export async function callToolOk(name: string, args: unknown) {
  return structuredOf(await callTool(name, args));
}

/** The rows a SQL query reads from the test database. */
export async function dbRows(sql: string): Promise<Record<string, unknown>[]> {
  return (await env.DB.prepare(sql).all()).results as Record<string, unknown>[];
}

/** The Worker's /status answer (mirrors, databases, upstream allowances), through its own fetch handler. */
export async function statusJson(): Promise<any> {
  const { default: worker } = await import("../src/index");
  const { createExecutionContext } = await import("cloudflare:test");
  const request = new Request("http://localhost/status") as unknown as Parameters<typeof worker.fetch>[0];
  return (await worker.fetch(request, env, createExecutionContext())).json();
}

/** The typed error payload of an isError tool result. */
export function toolError(result: { isError?: boolean; content: { type: string; text: string }[] }) {
  if (!result.isError) throw new Error(`expected an error result, got ${JSON.stringify(result).slice(0, 300)}`);
  return JSON.parse(result.content[0]!.text).error as {
    reason: string;
    message: string;
    retryable: boolean;
    retry_after_ms?: number;
    recovery: string;
  };
}

/** The reason of an isError tool result. */
export const reasonOf = (result: { isError?: boolean; content: { type: string; text: string }[] }) =>
  toolError(result).reason;

/**
 * One JSON-RPC call through the Worker's fetch with some vars overridden (a scenario base URL, a small budget):
 * the override applies to this call only, and the call's background work is awaited.
 */
export async function mcpCallWith(
  method: string,
  params: unknown,
  vars: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; message: any }> {
  const { default: worker } = await import("../src/index");
  const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
  const { env } = await import("cloudflare:workers");
  const ctx = createExecutionContext();
  const request = new Request("http://localhost/mcp", {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  }) as unknown as Parameters<typeof worker.fetch>[0];
  const response = await worker.fetch(request, { ...env, ...vars } as unknown as Env, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { status: response.status, message: mcpMessage(text) };
}

/** One tools/call with some vars overridden (see mcpCallWith). */
export async function callToolWith(
  name: string,
  args: unknown,
  vars: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; result: any; message: any }> {
  const { status, message } = await mcpCallWith("tools/call", { name, arguments: args }, vars, headers);
  return { status, result: message?.result, message };
}

/**
 * The Worker's log lines from here on (console.log spied): a call writes its lines together, one
 * JSON object per line, so each write is split into its lines.
 */
export function capturedLogLines(): { lines: string[]; restore: () => void } {
  const lines: string[] = [];
  const spy = vi
    .spyOn(console, "log")
    .mockImplementation((text: unknown) => void lines.push(...String(text).split("\n")));
  return { lines, restore: () => spy.mockRestore() };
}
