// Calls to /mcp/chatgpt, the ChatGPT connector's endpoint (OpenAI's search and fetch), through the
// Worker's own fetch handler.
import { exports } from "cloudflare:workers";
import { MCP_HEADERS, mcpMessage } from "./mcp-http";

export async function connectorCall(method: string, params?: unknown): Promise<any> {
  const response = await exports.default.fetch("http://localhost/mcp/chatgpt", {
    method: "POST",
    // workerd sets no Host header on a fetch to the Worker itself; the MCP handler checks it.
    headers: { host: "localhost", ...MCP_HEADERS },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  if (response.status !== 200)
    throw new Error(`/mcp/chatgpt answered HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return mcpMessage(await response.text());
}

/** A tools/call at /mcp/chatgpt: its result (content, structuredContent, isError). */
export const connectorTool = async (name: string, args: unknown) =>
  (await connectorCall("tools/call", { name, arguments: args })).result;
