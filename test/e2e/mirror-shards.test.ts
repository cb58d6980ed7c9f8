// A shard added to a running mirror, as an operator does it (docs/operations.md, "Adding a
// shard"): wrangler dev with a second D1 binding and ARXIV_MIRROR_SHARDS naming it, the bundled
// seed still all in DB, then POST /admin/harvest?mode=rebalance through the real local Queues.
// The tools answer the same before and after, /status lists both databases, and
// npm run mirror:verify -- --shards checks both from outside.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack } from "../../scripts/lib/dev-server.ts";

const ADMIN_TOKEN = "e2e-admin-token";
const SHARDS = "DB, ARXIV_SHARD_2@2007-04";
let stack: Awaited<ReturnType<typeof startStack>>;
let client: Client;

beforeAll(async () => {
  stack = await startStack({
    seed: true,
    moreDatabases: ["ARXIV_SHARD_2"],
    vars: {
      ADMIN_TOKEN_HASH: createHash("sha256").update(ADMIN_TOKEN).digest("hex"),
      ARXIV_MIRROR_SHARDS: SHARDS,
      ARXIV_MIRROR_RECENT_DAYS_LIVE: "0",
    },
  });
  client = new Client({ name: "e2e-shards", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(stack.mcpUrl)));
}, 180_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

async function answers() {
  const out = [];
  for (const query of ["quantum field theory", "ti:quantum AND cat:quant-ph", "au:smith"])
    for (const sort_by of ["relevance", "submitted"]) {
      const result = await client.callTool({ name: "arxiv_search_papers", arguments: { query, sort_by } });
      const body = result.structuredContent as { total: number; served_from: string; papers: { id: string }[] };
      out.push({ query, sort_by, total: body.total, served_from: body.served_from, ids: body.papers.map((p) => p.id) });
    }
  const lookup = await client.callTool({
    name: "arxiv_get_metadata",
    arguments: { paper_ids: ["0704.0010", "acc-phys/9411001"] },
  });
  out.push((lookup.structuredContent as { papers: { id: string; served_from: string }[] }).papers);
  return out;
}

async function arxivStatus() {
  return (await (await fetch(`${stack.url}/status`)).json()) as {
    databases: { binding: string; arxiv_papers?: number }[];
    mirrors: Record<string, any>[];
  };
}

describe("adding a shard under wrangler dev", () => {
  it("moves the new shard's papers with a rebalance run; the tools answer the same, from the mirror", async () => {
    const before = await answers();
    for (const answer of before.slice(0, -1)) expect(answer).toMatchObject({ served_from: "mirror" });
    expect((await arxivStatus()).databases.map((d) => [d.binding, d.arxiv_papers ?? null])).toEqual([
      ["DB", null],
      ["ARXIV_SHARD_2", 0],
    ]);
    const started = await fetch(`${stack.url}/admin/harvest?source=arxiv&mode=rebalance`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(started.status).toBe(202);
    const deadline = Date.now() + 90_000;
    let arxiv = (await arxivStatus()).mirrors.find((m) => m.source === "arxiv")!;
    while (
      !(
        arxiv.run.mode === "rebalance" &&
        arxiv.status === "done" &&
        arxiv.verified &&
        arxiv.run.pending_step === null
      ) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      arxiv = (await arxivStatus()).mirrors.find((m) => m.source === "arxiv")!;
    }
    expect(arxiv).toMatchObject({ status: "done", records: 1128, run: { mode: "rebalance" } });
    expect(arxiv.verified).toMatchObject({ ok: true, papers: 1128, papers_outside_their_shard: 0 });
    const moved = (await arxivStatus()).databases.find((d) => d.binding === "ARXIV_SHARD_2")!.arxiv_papers!;
    expect(moved).toBeGreaterThan(1000);
    expect(await answers()).toEqual(before);
  }, 120_000);

  it("npm run mirror:verify -- --shards checks both databases from outside", () => {
    const result = spawnSync(
      process.execPath,
      [
        "scripts/arxiv/mirror-verify.ts",
        "--persist-to",
        path.join(stack.stateDir, "state"),
        "--config",
        path.join(stack.stateDir, "wrangler.toml"),
        "--shards",
        SHARDS,
      ],
      {
        encoding: "utf8",
        env: { ...process.env, XDG_CONFIG_HOME: path.join(stack.stateDir, "config"), WRANGLER_SEND_METRICS: "false" },
      },
    );
    expect(result.status, `${result.stdout}\n${result.stderr}`.slice(-3000)).toBe(0);
    expect(result.stdout).toContain("arXiv mirror: 1,128 papers");
    expect(result.stdout).toContain("in 2 shards");
    expect(result.stdout.match(/^ok /gm)).toHaveLength(14);
  }, 90_000);
});
