// Every tool and resource the server offers. A new capability adds its file and one line here.
import type { DefinedResource } from "./resource";
import { arxivCategories, arxivCategory } from "./resources/arxiv-categories";
import { arxivMirrorStatus } from "./resources/arxiv-mirror-status";
import { arxivPaper } from "./resources/arxiv-paper";
import { nberPaper } from "./resources/nber-paper";
import { papersLibrary as papersLibraryResource, papersWatches } from "./resources/papers-watches";
import { arxivGetMetadata } from "./tools/arxiv-get-metadata";
import { arxivGetReferences } from "./tools/arxiv-get-references";
import { arxivListCategories } from "./tools/arxiv-list-categories";
import { arxivReadPaper } from "./tools/arxiv-read-paper";
import { arxivSearchPapers } from "./tools/arxiv-search-papers";
import { connectorFetchTool } from "./tools/connector-fetch";
import { connectorSearchTool } from "./tools/connector-search";
import { nberDownloadPaper } from "./tools/nber-download-paper";
import { nberGetPaperInfo } from "./tools/nber-get-paper-info";
import { nberReadPaper } from "./tools/nber-read-paper";
import { nberSearchPapers } from "./tools/nber-search-papers";
import { papersCitations } from "./tools/papers-citations";
import { papersCheckBibliography } from "./tools/papers-check-bibliography";
import { papersExportCitations } from "./tools/papers-export-citations";
import { papersFindInPaper } from "./tools/papers-find-in-paper";
import { papersLibrary } from "./tools/papers-library";
import { papersWatch } from "./tools/papers-watch";
import { papersResolveReference } from "./tools/papers-resolve-reference";
import type { DefinedTool } from "./tool";

export const TOOLS: readonly DefinedTool[] = [
  arxivSearchPapers,
  arxivGetMetadata,
  arxivReadPaper,
  arxivListCategories,
  nberSearchPapers,
  nberGetPaperInfo,
  nberDownloadPaper,
  nberReadPaper,
  papersExportCitations,
  papersResolveReference,
  papersCheckBibliography,
  arxivGetReferences,
  papersFindInPaper,
  papersWatch,
  papersLibrary,
  papersCitations,
] as unknown as DefinedTool[];

/** What /mcp/chatgpt offers: OpenAI's search and fetch, for ChatGPT connectors and deep research. */
export const CONNECTOR_TOOLS: readonly DefinedTool[] = [
  connectorSearchTool,
  connectorFetchTool,
] as unknown as DefinedTool[];

export const RESOURCES: readonly DefinedResource[] = [
  arxivCategories,
  arxivCategory,
  arxivPaper,
  arxivMirrorStatus,
  nberPaper,
  papersWatches,
  papersLibraryResource,
];
