// createServer(): a fresh SDK v2 McpServer per request (stateless endpoint). Cheap by design:
// tool definitions and their JSON Schemas are built once per isolate (see schema.ts).
import { McpServer } from "@modelcontextprotocol/server";
import { waitUntil } from "cloudflare:workers";
import { appContext } from "../context";
import { SERVER_NAME, SERVER_VERSION } from "../version";
import { LIST_CACHE_HINTS } from "./cache-hints";
import { CONNECTOR_INSTRUCTIONS, SERVER_INSTRUCTIONS } from "./instructions";
import { CONNECTOR_TOOLS, RESOURCES, TOOLS } from "./registry";
import { registerPrompts } from "./prompts";
import { registerResource } from "./resource";
import { registerTool, type ToolContext } from "./tool";

/** full: every tool and resource (/mcp); connector: OpenAI's search and fetch alone (/mcp/chatgpt). */
export type ServerProfile = "full" | "connector";

/** Who answers: in `initialize`, and in every 2026-07-28 result's `_meta` (ours too: http/limits.ts). */
export const SERVER_INFO = { name: SERVER_NAME, version: SERVER_VERSION, title: "papers-mcp: arXiv and NBER papers" };

// A fresh server per request never sends a list_changed notification (no session, no listen
// stream with anything to say): the lists change only with a deploy, so promise none.
const FIXED = { listChanged: false };

export function createServer(
  env: Env,
  origin: string,
  identity: string | null = null,
  profile: ServerProfile = "full",
  client = identity ?? "local",
): McpServer {
  const connector = profile === "connector";
  const server = new McpServer(SERVER_INFO, {
    instructions: connector ? CONNECTOR_INSTRUCTIONS : SERVER_INSTRUCTIONS,
    capabilities: connector ? { tools: FIXED } : { tools: FIXED, resources: FIXED, completions: {}, prompts: FIXED },
    cacheHints: LIST_CACHE_HINTS,
  });
  const context: Omit<ToolContext, "progress"> = { ...appContext(env, waitUntil), origin, identity, client };
  for (const tool of connector ? CONNECTOR_TOOLS : TOOLS) registerTool(server, tool, context);
  if (!connector) {
    for (const resource of RESOURCES) registerResource(server, resource, context);
    registerPrompts(server);
  }
  return server;
}
