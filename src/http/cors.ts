// CORS for the app's own answers on /mcp (refusals made before the MCP handler runs: 401, 413,
// 429), so that a browser client (the MCP Inspector's web UI) can read why it was refused. The
// MCP handler adds the same headers to its own answers and answers preflights itself.
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers":
    "Content-Type, Accept, Authorization, mcp-session-id, MCP-Protocol-Version, Mcp-Method, Mcp-Name",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  // A refused client needs these to recover: the auth challenge and when to come back.
  "access-control-expose-headers": "mcp-session-id, WWW-Authenticate, Retry-After",
  "access-control-max-age": "86400",
};

export function withCors(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(CORS_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
