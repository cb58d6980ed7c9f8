// A 2026-07-28 request as a client sends it on the wire (per-request `_meta`, the mirrored
// headers), for the workerd tests and the end-to-end ones alike. No runtime-specific code here.

export const MODERN = "2026-07-28";

/** The `_meta` every 2026-07-28 request carries. */
export function envelope(version = MODERN): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "papers-mcp-tests", version: "1" },
  };
}

/** The name a method's Mcp-Name header mirrors (SEP-2243), if it has one. */
function mirroredName(method: string, params: Record<string, unknown>): string | undefined {
  const field = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" }[method];
  const value = field ? params[field] : undefined;
  return typeof value === "string" ? value : undefined;
}

/**
 * Headers and body of a 2026-07-28 POST. `header` is the MCP-Protocol-Version sent (null: none);
 * `meta` replaces the envelope (null: no `_meta` at all).
 */
export function modernPost(
  method: string,
  params: Record<string, unknown> = {},
  {
    id = 1 as string | number,
    header = MODERN as string | null,
    meta = envelope() as Record<string, unknown> | null,
  } = {},
): { headers: Record<string, string>; body: string } {
  const name = mirroredName(method, params);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-method": method,
    ...(header === null ? {} : { "mcp-protocol-version": header }),
    ...(name === undefined ? {} : { "mcp-name": name }),
  };
  const body = { jsonrpc: "2.0", id, method, params: meta === null ? params : { ...params, _meta: meta } };
  return { headers, body: JSON.stringify(body) };
}
