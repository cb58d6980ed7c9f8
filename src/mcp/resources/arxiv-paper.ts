// arxiv://paper/{paperId}: one paper's metadata. The ID is percent-decoded, so a legacy ID's
// slash travels as %2F (arxiv://paper/hep-th%2F9901001).
import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/server";
import { ToolError } from "../../errors";
import { getMetadata } from "../../sources/arxiv/lookup";
import { resourceError, resourceErrorFrom } from "./errors";

export function registerArxivPaperResource(server: McpServer, env: Env): void {
  server.registerResource(
    "arxiv-paper",
    new ResourceTemplate("arxiv://paper/{paperId}", { list: undefined }),
    {
      title: "arXiv paper",
      description: "Metadata of one arXiv paper, e.g. arxiv://paper/2401.12345 or arxiv://paper/hep-th%2F9901001",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const raw = variables["paperId"];
      let paperId = Array.isArray(raw) ? raw.join("/") : (raw ?? "");
      try {
        paperId = decodeURIComponent(paperId);
      } catch {
        throw resourceError(
          uri.href,
          "invalid_id",
          `The paper ID ${JSON.stringify(paperId.slice(0, 80))} is not valid percent-encoding.`,
          "Percent-encode the ID (a slash as %2F).",
        );
      }
      if (paperId.trim() === "")
        throw resourceError(
          uri.href,
          "empty_id",
          "The resource URI names no paper.",
          "Use arxiv://paper/<id>, e.g. arxiv://paper/2401.12345.",
        );
      try {
        const { papers } = await getMetadata(env, [paperId]);
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(papers[0]) }] };
      } catch (error) {
        if (error instanceof ToolError) throw resourceErrorFrom(uri.href, error);
        throw error;
      }
    },
  );
}
