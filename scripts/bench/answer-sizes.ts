// npm run bench:answers
// The largest answer of every tool and resource, in bytes and estimated tokens (the estimate the
// read tools page by), over the worst records the seeded sample has: the three many-author
// collaboration papers (1411.4413: 2,831 authors; 2103.11058: 968; 1310.8286), 50-result pages,
// 50-ID exports, 10-ID lookups, whole author lists, a 1,000-paper library with 2,000-character
// notes, and the recorded papers' first pages. An answer is the whole tools/call or
// resources/read result as a client receives it (content, structuredContent and _meta). Also
// tools/list's bytes per tool. Writes bench/results/answer-sizes.{json,md}.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { loadSampleRecords } from "../arxiv/sample.ts";
import { MCP_HEADERS, mcpMessage } from "../lib/mcp-bench.ts";
import { estimateTokens } from "../../src/sources/text/tokens.ts";
import { buildReferenceSet } from "../citations/reference-set.ts";

/** The default answer budget (issue 32), and a search page's of the default size. */
const ANSWER_BUDGET = 20_000;
const DEFAULT_PAGE_BUDGET = 6_000;
const WORKSPACE = { "x-papers-workspace": "answer-sizes-bench" };
const MANY_AUTHORS = ["1411.4413", "2103.11058", "1310.8286"];

type Case = {
  name: string;
  label: string;
  method: "tools/call" | "resources/read";
  params: unknown;
  budget?: number;
  /** /mcp/chatgpt for the connector's search and fetch. */
  path?: string;
};

let client = 0;
async function rpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, "cf-connecting-ip": `answers-${++client}`, ...WORKSPACE, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const message = mcpMessage(await response.text());
  if (message.error) throw new Error(`${method}: ${JSON.stringify(message.error).slice(0, 300)}`);
  return message.result;
}

const tool = (name: string, label: string, args: unknown, budget?: number): Case => ({
  name,
  label,
  method: "tools/call",
  params: { name, arguments: args },
  ...(budget ? { budget } : {}),
});
const resource = (name: string, uri: string, label = uri): Case => ({
  name,
  label,
  method: "resources/read",
  params: { uri },
});

const records = loadSampleRecords();
const sampleIds = records.map((record) => record.id);
const others = sampleIds.filter((id) => !MANY_AUTHORS.includes(id));
const fiftyIds = [...MANY_AUTHORS, ...others.slice(0, 47)];
const tenIds = [...MANY_AUTHORS, ...others.slice(0, 7)];
const longestAbstracts = [...records]
  .sort((a, b) => b.abstract.length - a.abstract.length)
  .slice(0, 10)
  .map((record) => record.id);

// The worst bibliography a call takes: 200 entries (the most one call checks), every kind of answer
// (mirror papers with the many-author ones, journal versions, physics references without a title,
// works only Crossref holds, fabricated and near-miss references with their tried lists).
const referenceSet = buildReferenceSet();
const byStyle = (style: string, n: number) => referenceSet.cases.filter((c) => c.style === style).slice(0, n);
const worstBibliography = [
  ...referenceSet.cases.filter((c) => c.kind === "real" && c.style === "ieee").slice(0, 40),
  ...referenceSet.cases
    .filter((c) => c.kind === "real" && c.expect.status === "match" && c.expect.source === "crossref")
    .slice(0, 20),
  ...byStyle("journal-version", 30),
  ...byStyle("physics", 30),
  ...referenceSet.cases.filter((c) => c.kind === "fabricated").slice(0, 40),
  ...referenceSet.cases.filter((c) => c.kind === "near").slice(0, 40),
]
  .slice(0, 200)
  .map((c, i) => `[${i + 1}] ${c.text.replace(/\s*\n\s*/g, " ")}`)
  .join("\n");
const manyAuthorCase = referenceSet.cases.find(
  (c) => c.style === "apa" && c.expect.status === "match" && c.expect.id === "1411.4413",
);

const CASES: Case[] = [
  tool(
    "arxiv_search_papers",
    "cat:hep-ex, default page (many-author papers)",
    { query: "cat:hep-ex" },
    DEFAULT_PAGE_BUDGET,
  ),
  tool("arxiv_search_papers", "all:measurement, default page", { query: "all:measurement" }, DEFAULT_PAGE_BUDGET),
  tool("arxiv_search_papers", "cat:quant-ph, default page", { query: "cat:quant-ph" }, DEFAULT_PAGE_BUDGET),
  tool("arxiv_search_papers", "cat:hep-ex, 50 results", { query: "cat:hep-ex", max_results: 50 }),
  tool("arxiv_search_papers", "all:measurement, 50 results", { query: "all:measurement", max_results: 50 }),
  tool("arxiv_search_papers", "cat:quant-ph, 50 results", { query: "cat:quant-ph", max_results: 50 }),
  tool("arxiv_get_metadata", "10 IDs with the 3 many-author papers", { paper_ids: tenIds }),
  tool("arxiv_get_metadata", "10 longest abstracts", { paper_ids: longestAbstracts }),
  tool("arxiv_get_metadata", "1411.4413 with full_authors (2,831)", { paper_ids: ["1411.4413"], full_authors: true }),
  tool("arxiv_get_metadata", "3 many-author papers with full_authors", { paper_ids: MANY_AUTHORS, full_authors: true }),
  tool("arxiv_read_paper", "2501.11120v1 (HTML), default page", { paper_id: "2501.11120v1" }),
  tool("arxiv_read_paper", "1512.03905v1 (PDF), default page", { paper_id: "1512.03905v1" }),
  tool("arxiv_read_paper", "1905.00506v2 (PDF), default page", { paper_id: "1905.00506v2" }),
  tool("arxiv_list_categories", "all categories", {}),
  tool("nber_search_papers", "labor, 100 a page (mirror)", { query: "labor", per_page: 100 }),
  tool("nber_get_paper_info", "w10000", { paper_id: "w10000" }),
  tool("nber_download_paper", "w10000", { paper_id: "w10000" }),
  tool("nber_read_paper", "w10000, default page", { paper_id: "w10000" }),
  tool("papers_export_citations", "50 IDs, BibTeX", { ids: fiftyIds, format: "bibtex" }),
  tool("papers_export_citations", "50 IDs, RIS", { ids: fiftyIds, format: "ris" }),
  tool("papers_export_citations", "50 IDs, CSL-JSON", { ids: fiftyIds, format: "csl-json" }),
  tool("papers_export_citations", "3 many-author, CSL-JSON, full_authors", {
    ids: MANY_AUTHORS,
    format: "csl-json",
    full_authors: true,
  }),
  tool("papers_resolve_reference", "a reference in ACM style", {
    reference:
      "CMS and LHCb Collaborations. 2015. Observation of the rare Bs0→µ+µ− decay from the combined analysis of CMS and LHCb data. Nature 522 (2015), 68–72.",
  }),
  tool("papers_check_bibliography", "50 entries, default budget", {
    bibliography: records
      .slice(0, 50)
      .map(
        (record, i) =>
          `[${i + 1}] ${record.authors.split(/,| and /)[0]}. ${record.title.replace(/\s+/g, " ")}. arXiv:${record.id}.`,
      )
      .join("\n"),
  }),
  tool("papers_check_bibliography", "200 entries of every kind (mirror, journal, physics, Crossref, fabricated)", {
    bibliography: worstBibliography,
  }),
  ...(manyAuthorCase
    ? [
        tool("papers_resolve_reference", "the 2,831-author paper in APA", {
          reference: manyAuthorCase.text,
        }),
      ]
    : []),
  tool("arxiv_get_references", "2501.11120v1, 100 entries", { paper_id: "2501.11120v1", max_results: 100 }),
  tool("papers_find_in_paper", "2501.11120v1, 20 passages", {
    paper_id: "2501.11120v1",
    query: "behavioral self-awareness of finetuned models",
    max_passages: 20,
  }),
  tool("papers_library", "list of 1,000 papers with 2,000-character notes", { action: "list" }),
  tool("papers_citations", "2007.14454 references, 50 a page (recorded OpenAlex page)", {
    id: "2007.14454",
    direction: "references",
    limit: 50,
  }),
  tool("papers_watch", "check (watches made in this run: no news yet)", { action: "check" }),
  tool("papers_watch", "list of 50 watches", { action: "list" }),
  {
    ...tool("search", "minimum wage employment effects (/mcp/chatgpt)", { query: "minimum wage employment effects" }),
    path: "/chatgpt",
  },
  {
    ...tool("fetch", "arxiv:2501.11120v1, first piece (/mcp/chatgpt)", { id: "arxiv:2501.11120v1" }),
    path: "/chatgpt",
  },
  resource("arxiv://categories", "arxiv://categories"),
  resource("arxiv://categories/{code}", "arxiv://categories/hep-ex"),
  resource("arxiv://paper/{paperId}", "arxiv://paper/1411.4413", "1411.4413 (2,831 authors)"),
  resource("arxiv://paper/{paperId}", "arxiv://paper/2103.11058", "2103.11058 (968 authors)"),
  resource("arxiv://mirror/status", "arxiv://mirror/status"),
  resource("nber://paper/{paperId}", "nber://paper/w10000"),
  resource("papers://watches", "papers://watches", "50 watches"),
  resource("papers://library", "papers://library", "1,000 papers with 2,000-character notes"),
];

/** The worst per-client state: a full library with the longest notes, and 50 watches. */
async function fillState(url: string) {
  const note = "A long note a researcher keeps on a paper. ".repeat(50).slice(0, 2_000);
  const ids = sampleIds.slice(0, 1_000);
  for (let i = 0; i < ids.length; i += 50)
    await rpc(url, "tools/call", {
      name: "papers_library",
      arguments: { action: "add", ids: ids.slice(i, i + 50), tags: ["bench", "to-read"], note },
    });
  for (let i = 0; i < 50; i++)
    await rpc(url, "tools/call", {
      name: "papers_watch",
      arguments: {
        action: "create",
        name: `watch ${i} on measurements`,
        arxiv_query: "all:measurement",
        categories: ["hep-ex"],
      },
    });
}

const stack = await startStack({ waitFor: "health", seed: true });
try {
  const url = stack.mcpUrl;
  await fillState(url);
  const rows = [];
  for (const c of CASES) {
    const result = await rpc(`${url}${c.path ?? ""}`, c.method, c.params);
    const json = JSON.stringify(result);
    const tokens = estimateTokens(json);
    const budget = c.budget ?? ANSWER_BUDGET;
    const error = result?.isError ? JSON.parse(result.content[0].text).error.reason : undefined;
    rows.push({
      name: c.name,
      case: c.label,
      bytes: json.length,
      tokens,
      budget,
      within: tokens <= budget,
      ...(error ? { error } : {}),
    });
    console.log(
      `${tokens <= budget ? "ok  " : "OVER"} ${c.name} ${c.label}: ${json.length} bytes, ${tokens} tokens${error ? ` (error ${error})` : ""}`,
    );
  }
  const list = await rpc(url, "tools/list", {});
  const toolsList = {
    bytes: JSON.stringify(list).length,
    tools: list.tools.map((t: { name: string }) => ({ name: t.name, bytes: JSON.stringify(t).length })),
  };
  const largest = new Map<string, (typeof rows)[number]>();
  for (const row of rows) if ((largest.get(row.name)?.tokens ?? -1) < row.tokens) largest.set(row.name, row);
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
    corpus: "seeded sample: 1,128 real arXiv papers (3 many-author), 30,083 NBER papers; recorded papers for reads",
    estimate: "estimateTokens (src/sources/text/tokens.ts) over the JSON of the whole result",
    cases: rows,
    largest: [...largest.values()],
    tools_list: toolsList,
  };
  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench/results/answer-sizes.json"), `${JSON.stringify(report, null, 2)}\n`);
  const md = [
    "# Answer sizes (npm run bench:answers)",
    "",
    `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node}`,
    "",
    `Corpus: ${report.corpus}. Tokens: ${report.estimate}. Budget: ${ANSWER_BUDGET.toLocaleString("en-US")} tokens per answer, ${DEFAULT_PAGE_BUDGET.toLocaleString("en-US")} for a search page of the default size.`,
    "",
    "## Largest answer per tool and resource",
    "",
    "| tool or resource | worst case | bytes | tokens | budget | within |",
    "|---|---|--:|--:|--:|---|",
    ...report.largest.map(
      (row) =>
        `| ${row.name} | ${row.case}${"error" in row ? ` (${row.error})` : ""} | ${row.bytes.toLocaleString("en-US")} | ${row.tokens.toLocaleString("en-US")} | ${row.budget.toLocaleString("en-US")} | ${row.within ? "yes" : "**no**"} |`,
    ),
    "",
    "## Every case",
    "",
    "| tool or resource | case | bytes | tokens | within |",
    "|---|---|--:|--:|---|",
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.case}${"error" in row ? ` (${row.error})` : ""} | ${row.bytes.toLocaleString("en-US")} | ${row.tokens.toLocaleString("en-US")} | ${row.within ? "yes" : "**no**"} |`,
    ),
    "",
    `## tools/list: ${toolsList.bytes.toLocaleString("en-US")} bytes for ${toolsList.tools.length} tools`,
    "",
    "| tool | bytes |",
    "|---|--:|",
    ...toolsList.tools.map(
      (t: { name: string; bytes: number }) => `| ${t.name} | ${t.bytes.toLocaleString("en-US")} |`,
    ),
    "",
  ].join("\n");
  writeFileSync(path.join(ROOT, "bench/results/answer-sizes.md"), md);
  const over = rows.filter((row) => !row.within);
  if (over.length > 0) {
    console.error(`${over.length} answers over budget`);
    process.exitCode = 1;
  }
} finally {
  await stack.stop();
}
