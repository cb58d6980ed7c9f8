// arxiv://categories (the whole taxonomy) and arxiv://categories/{code} (one category with its description).
import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/server";
import { findCategory, listCategories } from "../../sources/arxiv/categories";
import { resourceError } from "./errors";

export function registerArxivCategoryResources(server: McpServer): void {
  server.registerResource(
    "arxiv-categories",
    "arxiv://categories",
    {
      title: "arXiv category taxonomy",
      description: "All active arXiv categories: { categories: [{ code, name, group, archive, ... }] }",
      mimeType: "application/json",
    },
    (uri) => ({
      contents: [
        { uri: uri.href, mimeType: "application/json", text: JSON.stringify({ categories: listCategories() }) },
      ],
    }),
  );

  server.registerResource(
    "arxiv-category",
    new ResourceTemplate("arxiv://categories/{code}", {
      list: undefined,
      complete: {
        code: (value) =>
          listCategories()
            .map((category) => category.code)
            .filter((code) => code.toLowerCase().startsWith(value.toLowerCase()))
            .slice(0, 100),
      },
    }),
    {
      title: "arXiv category",
      description: "One arXiv category with its description, e.g. arxiv://categories/cs.CL",
      mimeType: "application/json",
    },
    (uri, variables) => {
      const raw = variables["code"];
      let code: string;
      try {
        code = decodeURIComponent(Array.isArray(raw) ? (raw[0] ?? "") : (raw ?? ""));
      } catch {
        throw resourceError(
          uri.href,
          "invalid_category",
          "The category code is not valid percent-encoding.",
          "Use a code such as arxiv://categories/cs.CL; read arxiv://categories for all of them.",
        );
      }
      const category = findCategory(code);
      if (!category) {
        throw resourceError(
          uri.href,
          "not_found",
          `No active arXiv category ${JSON.stringify(code.slice(0, 80))}.`,
          "Read arxiv://categories for the valid codes.",
        );
      }
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(category) }] };
    },
  );
}
