// The one reader of MCP's HTTP answers, for tests (workerd and Node) and the benchmarks: a
// Streamable HTTP answer is either JSON or an SSE stream of `data:` lines (which may open with
// `: keepalive` comments while a slow call runs). No runtime-specific code here.

/** The headers an MCP client sends on every POST (the 2025-11-25 protocol revision). */
export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
} as const;

/** The answer's payloads: the JSON body, or each `data:` line of the stream, in order. */
function payloads(text: string): any[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  const sse = trimmed.startsWith("event:") || trimmed.startsWith("data:") || trimmed.startsWith(":");
  if (!sse) return [JSON.parse(trimmed)];
  return trimmed
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
}

/** Every JSON-RPC message in the answer, in order (a batch's answers are flattened). */
export function mcpMessages(text: string): any[] {
  return payloads(text).flat();
}

/**
 * The answer: the JSON body as it is (a batch's array included), or the stream's last message
 * (the response, after any progress notifications); undefined when the body is empty.
 */
export function mcpMessage(text: string): any {
  return payloads(text).at(-1);
}

/** The typed error a tool result carries (`isError: true`, JSON text), or undefined for a success. */
export function toolErrorOf(result: { isError?: boolean; content?: { text?: string }[] } | undefined) {
  if (!result?.isError) return undefined;
  return JSON.parse(result.content?.[0]?.text ?? "{}").error as {
    reason: string;
    message: string;
    retryable: boolean;
    retry_after_ms?: number;
    recovery: string;
  };
}

interface AnswerLike {
  content?: { text?: string; _meta?: Record<string, unknown> }[];
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
}

/**
 * A tool's answer as one object: its structuredContent, or for a text-payload answer (the read
 * tools, export: no structuredContent) its `_meta` fields with the payload put back from the
 * content item that names its field.
 */
export function answerOf(result: AnswerLike | undefined): any {
  if (result?.structuredContent !== undefined) return result.structuredContent;
  const fields = result?._meta?.["papers-mcp/answer"];
  if (fields === undefined) return undefined;
  const payload = result?.content?.find((item) => typeof item._meta?.["papers-mcp/field"] === "string");
  if (!payload) return fields;
  return { ...(fields as object), [payload._meta!["papers-mcp/field"] as string]: payload.text };
}
