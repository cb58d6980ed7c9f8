// The page a person sees at /: what this is, how to connect, what it offers, how the mirrors are.
import type { StoreHealth } from "./store/status";

export interface LandingInfo {
  mcpUrl: string;
  version: string;
  tools: readonly { name: string; title: string; description: string }[];
  health: StoreHealth;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

export function renderLanding({ mcpUrl, version, tools, health }: LandingInfo): string {
  const httpConfig = JSON.stringify({ mcpServers: { papers: { type: "streamable-http", url: mcpUrl } } }, null, 2);
  const stdioConfig = JSON.stringify(
    { mcpServers: { papers: { command: "npx", args: ["-y", "mcp-remote", mcpUrl, "--transport", "http-only"] } } },
    null,
    2,
  );
  const mirrorRows = health.reachable
    ? health.mirrors
        .map(
          (m) =>
            `<tr><td>${escapeHtml(m.source)}</td><td>${escapeHtml(m.status)}</td>` +
            `<td>${m.records.toLocaleString("en-US")}</td><td>${escapeHtml(m.last_datestamp ?? "never")}</td>` +
            `<td>${escapeHtml(runSummary(m))}</td><td>${escapeHtml(m.last_error ?? "")}</td></tr>`,
        )
        .join("")
    : `<tr><td colspan="6">database unreachable: ${escapeHtml(health.error)}</td></tr>`;
  const toolRows = tools
    .map((t) => `<li><code>${escapeHtml(t.name)}</code>: ${escapeHtml(t.description)}</li>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>papers-mcp</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
pre{background:#f4f4f4;padding:.75rem;overflow-x:auto}code{background:#f4f4f4;padding:0 .2rem}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}</style></head>
<body>
<h1>papers-mcp <small>v${escapeHtml(version)}</small></h1>
<p>An <a href="https://modelcontextprotocol.io">MCP</a> server that lets AI agents search, look up, read and download
arXiv papers and NBER working papers. It spaces every request to arXiv and NBER as they ask, and answers from its own
metadata mirror when it can.</p>
<h2>Connect</h2>
<p>MCP endpoint (Streamable HTTP): <code>${escapeHtml(mcpUrl)}</code></p>
<p>Clients that speak Streamable HTTP:</p>
<pre>${escapeHtml(httpConfig)}</pre>
<p>Clients that only speak stdio, through <a href="https://www.npmjs.com/package/mcp-remote">mcp-remote</a>:</p>
<pre>${escapeHtml(stdioConfig)}</pre>
<p>Try it from a terminal: <code>npx @modelcontextprotocol/inspector --cli ${escapeHtml(mcpUrl)} --method tools/list</code></p>
<h2>Tools</h2>
<ul>${toolRows}</ul>
<h2>Mirrors</h2>
<table><tr><th>source</th><th>status</th><th>papers</th><th>harvested up to</th><th>last run</th>
<th>last error</th></tr>${mirrorRows}</table>
<p>Machine-readable: <a href="/status">/status</a>, <a href="/health">/health</a>, and the MCP resource
<code>arxiv://mirror/status</code>.</p>
<h2>Data policy</h2>
<p>arXiv metadata is CC0. Paper PDFs and extracted text are kept only as a private processing cache and are not
redistributed; links point to arxiv.org and nber.org.</p>
</body></html>`;
}

function runSummary(m: StoreHealth["mirrors"][number]): string {
  if (!m.started_at) return "none yet";
  const parts = [
    `${m.run.mode ?? "run"} started ${m.started_at.slice(0, 16).replace("T", " ")}`,
    `${m.pages.toLocaleString("en-US")} pages`,
    `${m.run.records.toLocaleString("en-US")} ` +
      `records${m.run.complete_list_size ? ` of ${m.run.complete_list_size.toLocaleString("en-US")}` : ""}`,
    ...(m.run.deleted > 0 ? [`${m.run.deleted} deleted`] : []),
    ...(m.run.records_per_second !== null ? [`${m.run.records_per_second} records/s`] : []),
    m.finished_at ? `finished ${m.finished_at.slice(0, 16).replace("T", " ")}` : "in progress",
  ];
  return parts.join(", ");
}
