// One wrapper turns any thrown error into an MCP tool error result that an agent can branch on:
// { reason, message, retryable, retry_after_ms?, recovery }. Handlers never catch.
import type { CallToolResult } from "@modelcontextprotocol/server";
import { PapersError } from "../errors";
import { ConfigError } from "../config";

export { PapersError };

export interface ErrorPayload {
  reason: string;
  message: string;
  retryable: boolean;
  retry_after_ms?: number;
  recovery: string;
}

export function toErrorPayload(error: unknown): ErrorPayload {
  if (error instanceof PapersError) {
    return {
      reason: error.reason,
      message: error.message,
      retryable: error.retryable,
      ...(error.retryAfterMs === undefined ? {} : { retry_after_ms: error.retryAfterMs }),
      recovery: error.recovery,
    };
  }
  if (error instanceof ConfigError) {
    return {
      reason: "server_misconfigured",
      message: error.message,
      retryable: false,
      recovery: "The server's operator must fix its configuration.",
    };
  }
  // Anything else is our bug: log it in full, tell the caller little.
  console.error("unexpected error in tool handler", error);
  return {
    reason: "internal_error",
    message: "papers-mcp failed unexpectedly while handling this call.",
    retryable: true,
    recovery: "Retry once; if it fails again, report the call to the server's operator.",
  };
}

// The payload travels as JSON text, not structuredContent: clients (SDK v1 among them) check
// structuredContent against the tool's outputSchema even on isError results.
export function toErrorResult(error: unknown): { result: CallToolResult; reason: string; payload: ErrorPayload } {
  const payload = toErrorPayload(error);
  return {
    result: { isError: true, content: [{ type: "text", text: JSON.stringify({ error: payload }) }] },
    reason: payload.reason,
    payload,
  };
}
