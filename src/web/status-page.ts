// /status for people: each mirror's state, a running harvest's progress (pages, records, rate,
// expected end), the databases' sizes against D1's limit and the crawl gates' queues and requests
// in flight. Programs get the same as JSON.
import { html } from "hono/html";
import type { GateStatus, MirrorStatus, StoreHealth } from "../mcp/status-report";
import { type Html, count, page } from "./layout";

export function renderStatusPage(
  health: StoreHealth,
  version: string,
  gates: readonly GateStatus[] = [],
  now = Date.now(),
): Html {
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
      (db) => html`<tr><td>${db.binding}</td><td>${count(db.arxiv_papers ?? arxivRecords(health))}</td>
<td>${db.size_bytes === null ? "unknown" : gigabytes(db.size_bytes)}</td>
<td><meter min="0" max="100" low="70" high="90" optimum="10" value="${db.used_percent ?? 0}" aria-label="${db.binding} used"></meter>
${db.used_percent === null ? "unknown" : `${db.used_percent}% of ${gigabytes(db.limit_bytes)}`}</td></tr>`,
    )}</tbody></table></div>
${gates.length > 0 ? gatesSection(gates, now) : ""}`,
  });
}

/** Each upstream's crawl gate: the slots waiting (by client), the next free one, and the requests in flight against the limit. */
function gatesSection(gates: readonly GateStatus[], now: number): Html {
  return html`<h2>Upstream gates</h2><p class="hint">Requests to each upstream wait their turn here: spaced,
no more in flight than it allows, and no client holding more than its share of the queue.</p>
<div class="scroll"><table><thead><tr><th scope="col">Gate</th><th scope="col">Waiting</th><th scope="col">Next free slot</th><th scope="col">In flight</th><th scope="col">Limit</th></tr></thead>
<tbody>${gates.map((gate) =>
    "error" in gate
      ? html`<tr><td>${gate.gate}</td><td colspan="4">could not be asked: ${gate.error}</td></tr>`
      : html`<tr><td>${gate.gate}${gate.cooling_down_until ? html` <strong>cooling down</strong>` : ""}</td>
<td>${gate.queue.waiting}${clients(gate.queue.by_client)}</td><td>${inSeconds(gate.queue.next_free_slot_at, now)}</td>
<td>${gate.in_flight.requests}${clients(gate.in_flight.by_client)}</td>
<td>${gate.in_flight.limit} (${gate.in_flight.limit_source === "stated" ? "stated by the upstream" : "configured"})</td></tr>`,
  )}</tbody></table></div>`;
}

const clients = (counts: readonly { client: string; count: number }[]) =>
  counts.length === 0 ? "" : ` (${counts.map(({ client, count }) => `${client}: ${count}`).join(", ")})`;

const inSeconds = (at: string, now: number) => {
  const ms = Date.parse(at) - now;
  return ms <= 0 ? "now" : `in ${(ms / 1000).toFixed(1)} s`;
};

/** DB's own share of the arXiv mirror: all of it, less what the other shards hold. */
function arxivRecords(health: Extract<StoreHealth, { reachable: true }>): number {
  const all = health.mirrors.find((mirror) => mirror.source === "arxiv")?.records ?? 0;
  return all - health.databases.reduce((sum, db) => sum + (db.arxiv_papers ?? 0), 0);
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

/**
 * A running harvest's progress: records against the listing's size when arXiv states it; else the
 * datestamp windows done against those left up to today (a cold run lists a window at a time).
 */
export function harvestEstimate(mirror: MirrorStatus, now: number): { fraction: number | null; endsAt: Date | null } {
  const { run } = mirror;
  const elapsed = mirror.started_at ? now - Date.parse(mirror.started_at) : 0;
  if (run.complete_list_size) {
    const fraction = Math.min(1, run.records / run.complete_list_size);
    const rate = run.records_per_second;
    const left = Math.max(0, run.complete_list_size - run.records);
    return { fraction, endsAt: rate ? new Date(now + (left / rate) * 1000) : null };
  }
  const current = mirror.windows?.current;
  if (!current?.from || !current.until) return { fraction: null, endsAt: null };
  const span = Date.parse(current.until) - Date.parse(current.from);
  if (!(span > 0)) return { fraction: null, endsAt: null };
  const done = mirror.windows!.done;
  const left = 1 + Math.max(0, Math.ceil((now - Date.parse(current.until)) / span));
  const fraction = done / (done + left);
  return { fraction, endsAt: done > 0 && elapsed > 0 ? new Date(now + (elapsed / done) * left) : null };
}

function harvestProgress(mirror: MirrorStatus, now: number): Html {
  const { run } = mirror;
  const size = run.complete_list_size;
  const { fraction, endsAt } = harvestEstimate(mirror, now);
  const percent = fraction === null ? null : Math.round(fraction * 1000) / 10;
  const window = mirror.windows?.current;
  return html`<h3>Harvest in progress (${run.mode ?? "run"})</h3>
<p><label for="progress-${mirror.source}">Progress${percent === null ? "" : `: ${percent}%`}</label>
<progress id="progress-${mirror.source}" max="100" ${percent === null ? "" : html`value="${percent}"`}>${percent === null ? "" : `${percent}%`}</progress></p>
<dl class="facts"><dt>Records</dt><dd>${count(run.records)}${size ? ` of ${count(size)}` : ""}</dd>
<dt>Pages</dt><dd>${count(mirror.pages)}</dd>
${
  window
    ? html`<dt>Datestamps</dt><dd>window ${window.idx + 1} (${window.from ?? "start"} to ${window.until ?? "today"}); ${count(mirror.windows!.done)} done</dd>`
    : ""
}
<dt>Rate</dt><dd>${run.records_per_second === null ? "not yet known" : `${run.records_per_second} records/s`}</dd>
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
