// createServer(): a fresh SDK v2 McpServer per request (stateless endpoint). Cheap by design:
// tool definitions and their JSON Schemas are built once per isolate (see schema.ts).
import { McpServer } from "@modelcontextprotocol/server";
import { waitUntil } from "cloudflare:workers";
import { appContext } from "../context";
import { SERVER_NAME, SERVER_VERSION } from "../version";
import { SERVER_INSTRUCTIONS } from "./instructions";
import { RESOURCES, TOOLS } from "./registry";
import { registerResource } from "./resource";
import { registerTool, type ToolContext } from "./tool";

export function createServer(env: Env, origin: string, identity: string | null = null): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION, title: "papers-mcp: arXiv and NBER papers" },
    { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: {}, resources: {}, completions: {} } },
  );
  const context: Omit<ToolContext, "progress"> = { ...appContext(env, waitUntil), origin, identity };
  for (const tool of TOOLS) registerTool(server, tool, context);
  for (const resource of RESOURCES) registerResource(server, resource, context);
  return server;
}
