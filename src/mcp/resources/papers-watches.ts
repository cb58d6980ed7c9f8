// papers://watches: the caller's watches with their last check, and papers://library: the saved
// papers (the same per-client state papers_watch and papers_library manage).
import type { McpServer } from "@modelcontextprotocol/server";
import { agentFor } from "../../agent/client";
import { ToolError } from "../../errors";
import { resourceErrorFrom } from "./errors";

export function registerWatchResources(server: McpServer, env: Env, identity: string | null): void {
  const read = (name: string, uri: string, title: string, description: string, body: () => Promise<unknown>) =>
    server.registerResource(name, uri, { title, description, mimeType: "application/json" }, async (requested) => {
      try {
        return {
          contents: [{ uri: requested.href, mimeType: "application/json", text: JSON.stringify(await body()) }],
        };
      } catch (error) {
        if (error instanceof ToolError) throw resourceErrorFrom(requested.href, error);
        throw error;
      }
    });
  read(
    "papers-watches",
    "papers://watches",
    "Your watches",
    "The caller's watches (papers_watch) with when each was last checked",
    async () => ({
      watches: (await (await agentFor(env, identity)).listWatches()).watches,
    }),
  );
  read(
    "papers-library",
    "papers://library",
    "Your library",
    "The caller's saved papers (papers_library) with tags, notes and latest versions",
    async () => ({
      papers: (await (await agentFor(env, identity)).listLibrary()).papers,
    }),
  );
}
