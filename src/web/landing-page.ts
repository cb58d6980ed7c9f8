// The page a person sees at /: what this is, a search box, how to connect, what it offers, how the mirrors are.
import { html } from "hono/html";
import type { StoreHealth } from "../mcp/status-report";
import { type Html, count, page } from "./layout";

export interface LandingInfo {
  mcpUrl: string;
  version: string;
  tools: readonly { name: string; title: string; description: string }[];
  health: StoreHealth;
}

export function renderLanding({ mcpUrl, version, tools, health }: LandingInfo): Html {
  const httpConfig = JSON.stringify({ mcpServers: { papers: { type: "streamable-http", url: mcpUrl } } }, null, 2);
  const stdioConfig = JSON.stringify(
    { mcpServers: { papers: { command: "npx", args: ["-y", "mcp-remote", mcpUrl, "--transport", "http-only"] } } },
    null,
    2,
  );
  const mirrorRows = health.reachable
    ? health.mirrors.map(
        (m) =>
          html`<tr><td>${m.source}</td><td>${m.status}</td><td>${count(m.records)}</td><td>${m.last_datestamp ?? "never"}</td>
<td>${runSummary(m)}</td><td>${m.last_error ?? ""}</td></tr>`,
      )
    : html`<tr><td colspan="6">database unreachable: ${health.error}</td></tr>`;
  return page({
    title: "arXiv and NBER papers for people and AI agents",
    body: html`<h1>papers-mcp <small>v${version}</small></h1>
<p>An <a href="https://modelcontextprotocol.io">MCP</a> server that lets AI agents search, look up, read, cite and download
arXiv papers and NBER working papers. It spaces every request to arXiv and NBER as they ask, and answers from its own
metadata mirror when it can. People can use the same engine here:</p>
<form class="search" action="/search" method="get" role="search"><div class="q"><label for="q">Search arXiv</label>
<input id="q" name="q" type="search" maxlength="1000" placeholder="e.g. ti:transformer AND cat:cs.CL"></div>
<div><button type="submit">Search</button></div></form>
<p><a href="/check">Check a bibliography</a> · <a href="/status">The mirrors' state</a></p>
<h2>Connect</h2>
<p>MCP endpoint (Streamable HTTP): <code>${mcpUrl}</code></p>
<p>Clients that speak Streamable HTTP:</p>
<pre>${httpConfig}</pre>
<p>Clients that only speak stdio, through <a href="https://www.npmjs.com/package/mcp-remote">mcp-remote</a>:</p>
<pre>${stdioConfig}</pre>
<p>One step, for this server's own address:</p>
<ul><li>Claude Code: <code>claude mcp add --transport http papers ${mcpUrl}</code></li>
<li><a href="${cursorInstallLink(mcpUrl)}">Add to Cursor</a> (Cursor's install link)</li>
<li><a href="${vscodeInstallLink(mcpUrl)}">Add to VS Code</a> (VS Code's install link), or
<code>code --add-mcp '${JSON.stringify({ name: "papers", type: "http", url: mcpUrl })}'</code></li>
<li>Claude Desktop and claude.ai: Settings → Connectors → Add custom connector, with the URL above (HTTPS)</li></ul>
<p>Try it from a terminal: <code>npx @modelcontextprotocol/inspector --cli ${mcpUrl} --method tools/list</code></p>
<h2>Tools</h2>
<ul>${tools.map((t) => html`<li><code>${t.name}</code>: ${t.description}</li>`)}</ul>
<h2>Mirrors</h2>
<div class="scroll"><table><thead><tr><th scope="col">source</th><th scope="col">status</th><th scope="col">papers</th>
<th scope="col">harvested up to</th><th scope="col">last run</th><th scope="col">last error</th></tr></thead><tbody>${mirrorRows}</tbody></table></div>
<p>Machine-readable: <a href="/status?format=json">/status</a>, <a href="/health">/health</a>, and the MCP resource
<code>arxiv://mirror/status</code>.</p>
<h2>Data policy</h2>
<p>arXiv metadata is CC0. Paper PDFs and extracted text are kept only as a private processing cache and are not
redistributed; links point to arxiv.org and nber.org.</p>`,
  });
}

/** Cursor's install link: the server's mcp.json entry, base64 (cursor.com/docs/mcp/install-links). */
export const cursorInstallLink = (mcpUrl: string) =>
  `cursor://anysphere.cursor-deeplink/mcp/install?name=papers&config=${btoa(JSON.stringify({ url: mcpUrl }))}`;

/** VS Code's install link: the server's definition, URL-encoded after `vscode:mcp/install?`. */
export const vscodeInstallLink = (mcpUrl: string) =>
  `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name: "papers", type: "http", url: mcpUrl }))}`;

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
