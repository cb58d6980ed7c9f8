// nber://paper/{paperId}: an NBER paper's info (the same record nber_get_paper_info returns).
import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/server";
import { ToolError } from "../../errors";
import { getNberPaperInfo } from "../../sources/nber/info";
import { resourceError, resourceErrorFrom } from "./errors";

export function registerNberPaperResource(server: McpServer, env: Env): void {
  server.registerResource(
    "nber-paper",
    new ResourceTemplate("nber://paper/{paperId}", { list: undefined }),
    {
      title: "NBER paper",
      description: "An NBER working paper's info, e.g. nber://paper/w25000",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const raw = variables["paperId"];
      const paperId = Array.isArray(raw) ? raw.join("/") : (raw ?? "");
      if (paperId.trim() === "")
        throw resourceError(uri.href, "empty_id", "The resource URI names no paper.", "Use nber://paper/w25000.");
      try {
        const info = await getNberPaperInfo(env, decodeURIComponent(paperId), { includeAll: true, refresh: false });
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(info) }] };
      } catch (error) {
        if (error instanceof ToolError) throw resourceErrorFrom(uri.href, error);
        if (error instanceof URIError)
          throw resourceError(
            uri.href,
            "invalid_id",
            "The paper ID is not valid percent-encoding.",
            "Use nber://paper/w25000.",
          );
        throw error;
      }
    },
  );
}
