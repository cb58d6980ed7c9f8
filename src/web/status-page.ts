// /status for people: each mirror's state, a running harvest's progress (pages, records, rate,
// expected end) and the databases' sizes against D1's limit. Programs get the same as JSON.
import { html } from "hono/html";
import type { MirrorStatus, StoreHealth } from "../store/status";
import { type Html, count, page } from "./layout";

export function renderStatusPage(health: StoreHealth, version: string, now = Date.now()): Html {
  if (!health.reachable)
    return page({
      title: "Status",
      body: html`<h1>Status</h1><div class="error" role="alert"><p><strong>The database cannot be reached.</strong></p>
<p>${health.error}</p><p>Searches fall back to arXiv's own API until it is back.</p></div>`,
    });
  return page({
    title: "Status",
    body: html`<h1>Status</h1><p class="meta">papers-mcp ${version} · database answered in ${health.latency_ms} ms ·
machine-readable: <a href="/status?format=json">/status as JSON</a></p>
${health.mirrors.map((mirror) => mirrorSection(mirror, now))}
<h2>Databases</h2><div class="scroll"><table><thead><tr><th scope="col">Binding</th><th scope="col">arXiv papers</th><th scope="col">Size</th><th scope="col">Of D1's limit</th></tr></thead>
<tbody>${health.databases.map(
      (db) => html`<tr><td>${db.binding}</td><td>${db.arxiv_papers === undefined ? "—" : count(db.arxiv_papers)}</td>
<td>${db.size_bytes === null ? "unknown" : gigabytes(db.size_bytes)}</td>
<td><meter min="0" max="100" low="70" high="90" optimum="10" value="${db.used_percent ?? 0}" aria-label="${db.binding} used"></meter>
${db.used_percent === null ? "unknown" : `${db.used_percent}% of ${gigabytes(db.limit_bytes)}`}</td></tr>`,
    )}</tbody></table></div>`,
  });
}

const gigabytes = (bytes: number) => `${(bytes / 1e9).toFixed(bytes < 1e8 ? 3 : 2)} GB`;

function mirrorSection(mirror: MirrorStatus, now: number): Html {
  const running = mirror.status === "running" || (mirror.started_at !== null && mirror.finished_at === null);
  return html`<section aria-labelledby="mirror-${mirror.source}"><h2 id="mirror-${mirror.source}">${mirror.source === "arxiv" ? "arXiv" : "NBER"} mirror</h2>
<dl class="facts"><dt>State</dt><dd>${mirror.status}${mirror.complete ? ` · complete since ${mirror.complete.at.slice(0, 10)}` : " · not yet complete"}</dd>
<dt>Papers</dt><dd>${count(mirror.records)}</dd>
<dt>Harvested up to</dt><dd>${mirror.last_datestamp ?? "never"}</dd>
${mirror.last_success_at ? html`<dt>Last success</dt><dd>${mirror.last_success_at.slice(0, 16).replace("T", " ")} UTC</dd>` : ""}
${mirror.last_error ? html`<dt>Last error</dt><dd>${mirror.last_error}</dd>` : ""}</dl>
${running ? harvestProgress(mirror, now) : lastRun(mirror)}</section>`;
}

/** A running harvest: records against the listing's size when arXiv told it, the rate, and when it should end. */
function harvestProgress(mirror: MirrorStatus, now: number): Html {
  const { run } = mirror;
  const size = run.complete_list_size;
  const left = size === null ? null : Math.max(0, size - run.records);
  const rate = run.records_per_second;
  const endsAt = left !== null && rate ? new Date(now + (left / rate) * 1000) : null;
  const percent = size ? Math.min(100, Math.round((run.records / size) * 1000) / 10) : null;
  return html`<h3>Harvest in progress (${run.mode ?? "run"})</h3>
<p><label for="progress-${mirror.source}">Records</label>
<progress id="progress-${mirror.source}" max="${size ?? ""}" value="${size ? run.records : ""}">${percent === null ? "" : `${percent}%`}</progress></p>
<dl class="facts"><dt>Records</dt><dd>${count(run.records)}${size ? ` of ${count(size)} (${percent}%)` : ""}</dd>
<dt>Pages</dt><dd>${count(mirror.pages)}</dd>
<dt>Rate</dt><dd>${rate === null ? "not yet known" : `${rate} records/s`}</dd>
<dt>Expected end</dt><dd>${endsAt ? `${endsAt.toISOString().slice(0, 16).replace("T", " ")} UTC` : "not yet known"}</dd>
<dt>Started</dt><dd>${mirror.started_at ? `${mirror.started_at.slice(0, 16).replace("T", " ")} UTC` : "—"}</dd>
${run.pending_step ? html`<dt>Next step</dt><dd>${run.pending_step}</dd>` : ""}</dl>`;
}

function lastRun(mirror: MirrorStatus): Html | string {
  if (!mirror.started_at) return html`<p class="hint">No harvest has run yet.</p>`;
  return html`<p class="hint">Last run (${mirror.run.mode ?? "run"}): ${count(mirror.run.records)} records, ${count(mirror.pages)} pages,
started ${mirror.started_at.slice(0, 16).replace("T", " ")} UTC${
    mirror.finished_at ? `, finished ${mirror.finished_at.slice(0, 16).replace("T", " ")} UTC` : ""
  }.</p>`;
}
