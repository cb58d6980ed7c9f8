// What the mirror benches share (bench:mirror, bench:refresh): a loopback OAI-PMH endpoint
// serving synthetic pages, MCP calls, the harvest's admin routes and /status, latency figures, and
// quality against an exhaustive BM25 ranking of the served file.
import type { AddressInfo } from "node:net";
import { createHash } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ROOT } from "../lib/dev-server.ts";
import { d1Over } from "../lib/d1-node.ts";
import { page, recordXml } from "../arxiv/oai-xml.ts";
import { importWorkerCode } from "../lib/worker-code.ts";
import { MCP_HEADERS, mcpMessage } from "../lib/mcp-bench.ts";

export const ADMIN_TOKEN = "bench-admin-token";
const NOTE =
  "SYNTHETIC benchmark page (scripts/bench/arxiv-mirror.ts): arXivRaw format, words drawn from data/arxiv-sample";

export const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const NO_RECORDS = `<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-11-30T02:30:00Z</responseDate><request verb="ListRecords">https://oaipmh.arxiv.org/oai</request><error code="noRecordsMatch">The combination of the values of the from, until, set and metadataPrefix arguments results in an empty list.</error></OAI-PMH>
`;

/**
 * A loopback OAI-PMH endpoint serving the pages it is given (token b|k -> page k). Its records
 * are all dated 2026-11-30: a cold run's closed datestamp windows (which end before that) are
 * answered noRecordsMatch, and its last, open-ended window gets the pages.
 */
export async function startOaiServer() {
  let pages = [];
  let requests = 0;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, "http://localhost");
    const token = url.searchParams.get("resumptionToken");
    requests++;
    if (token === null && url.searchParams.get("until") !== null && url.searchParams.get("until") < "2026-11-30") {
      response.writeHead(200, { "content-type": "text/xml; charset=utf-8" });
      response.end(NO_RECORDS);
      return;
    }
    const index = token === null ? 0 : Number(token.split("|")[1]) - 1;
    const body = pages[index];
    response.writeHead(body ? 200 : 404, { "content-type": "text/xml; charset=utf-8" });
    response.end(body ?? "no such page");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oai`,
    setPages(records) {
      pages = records.map((list, i) =>
        page(
          list.map((r) => recordXml(r, "2026-11-30")),
          i + 1 < records.length ? `b|${i + 2}` : null,
          { note: NOTE },
        ),
      );
    },
    /** Requests answered so far. */
    get requests() {
      return requests;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const HEADERS = MCP_HEADERS;
let client = 0;
/**
 * fetch, sent once more when the connection itself failed: after a long pause (an offline quality
 * pass) the server may have closed the kept-alive socket just as it is reused (EPIPE, "other side
 * closed"); the request never reached the Worker, so sending it again changes nothing.
 */
export async function loopbackFetch(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return fetch(url, init);
  }
}

export async function callTool(mcpUrl, name, args) {
  const response = await loopbackFetch(mcpUrl, {
    method: "POST",
    headers: { ...HEADERS, "cf-connecting-ip": `bench-mirror-${++client}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await response.text();
  const message = mcpMessage(text);
  if (message.error || message.result?.isError)
    throw new Error(`${name} ${JSON.stringify(args)}: ${JSON.stringify(message).slice(0, 400)}`);
  return message.result.structuredContent;
}

export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
export async function status(url) {
  const body = await (await loopbackFetch(`${url}/status`)).json();
  return body.mirrors.find((mirror) => mirror.source === "arxiv");
}

/** Starts a cold run and waits for it to finish; returns the wall time and the final status. */
/** A cold run lists the datestamp windows too; a refresh (the mirror has a watermark) is one window. */
export async function harvest(url, mode = "cold", { untilRebuilt = false } = {}) {
  const before = await status(url);
  const t0 = performance.now();
  const started = await loopbackFetch(`${url}/admin/harvest?source=arxiv&mode=${mode}`, {
    method: "POST",
    headers: admin,
  });
  if (started.status !== 202) throw new Error(`admin/harvest: HTTP ${started.status} ${await started.text()}`);
  for (;;) {
    const now = await status(url);
    // untilRebuilt: also wait for the steps after the run (verify, the ranking tables' rebuild).
    if (
      now.status === "done" &&
      now.started_at !== before.started_at &&
      (!untilRebuilt || now.run.pending_step === null)
    )
      return { ms: performance.now() - t0, status: now };
    if (now.status === "error") throw new Error(`harvest failed: ${now.last_error}`);
    const limitMs = untilRebuilt ? 3_600_000 : 600_000;
    if (performance.now() - t0 > limitMs) throw new Error(`harvest did not finish in ${limitMs / 60_000} minutes`);
    await sleep(20);
  }
}

export const stackVars = (oai, delayMs) => ({
  ARXIV_MIRROR_OAI_BASE_URL: oai.url,
  ARXIV_MIRROR_OAI_REQUEST_DELAY_MS: String(delayMs),
  ADMIN_TOKEN_HASH: createHash("sha256").update(ADMIN_TOKEN).digest("hex"),
  // Newest-first searches are measured on the mirror itself, not sent to arXiv.
  ARXIV_MIRROR_RECENT_DAYS_LIVE: "0",
});

export const latency = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    max_ms: round(sorted[sorted.length - 1]),
  };
};

/**
 * Quality against an exhaustive BM25 ranking of the same file, computed offline (node:sqlite,
 * the Worker's own planner): the overlap of the two first pages (top 10) and whether their first
 * results agree.
 */
export async function qualityAgainstExhaustive(file, searches) {
  const code = await importWorkerCode(path.join(ROOT, "scripts/bench/mirror-search-code.ts"));
  const db = new DatabaseSync(file, { readOnly: true });
  const exhaustive = d1Over(db);
  const keyOf = db.prepare("SELECT id FROM arxiv_papers WHERE paper_key = ?");
  const out = [];
  for (const search of searches) {
    const planned = code.planMirrorSearch(search.args.query, {
      category: search.args.category,
      submittedFrom: search.args.submitted_from,
      submittedTo: search.args.submitted_to,
    });
    if (!("plan" in planned) || planned.plan.match === null) continue;
    const exact = await code.searchMirror(code.oneDatabase(exhaustive), planned.plan, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 10,
      reference: true,
    });
    const exactIds = exact.rows.map((r) => r.id);
    const overlap =
      exactIds.length === 0
        ? search.ids.length === 0
          ? 1
          : 0
        : exactIds.filter((id) => search.ids.includes(id)).length / exactIds.length;
    out.push({ kind: search.kind, overlap, first: exactIds[0] === search.ids[0] });
  }
  db.close();
  void keyOf;
  return out;
}

export const summarizeQuality = (rows) => ({
  queries: rows.length,
  mean_overlap_at_10: round(rows.reduce((a, r) => a + r.overlap, 0) / Math.max(1, rows.length), 3),
  first_same: round(rows.filter((r) => r.first).length / Math.max(1, rows.length), 3),
});
