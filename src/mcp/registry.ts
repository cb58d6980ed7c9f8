// Every tool and resource the server offers. A new capability adds its file and one line here.
import type { McpServer } from "@modelcontextprotocol/server";
import { registerArxivCategoryResources } from "./resources/arxiv-categories";
import { arxivListCategories } from "./tools/arxiv-list-categories";
import type { DefinedTool } from "./tool";

export const TOOLS: readonly DefinedTool[] = [arxivListCategories as unknown as DefinedTool];

export const RESOURCE_REGISTRARS: readonly ((server: McpServer) => void)[] = [registerArxivCategoryResources];
