// The arXiv mirror as `npm start` runs it: wrangler dev with the bundled seed, the real local
// Queues between pages, the admin route, /status, and tools answering from the mirror. The
// OAI-PMH endpoint is the fake upstream (hand-made pages of real records, test/fixtures/SOURCES.md).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack } from "../../scripts/lib/dev-server.ts";

const ADMIN_TOKEN = "e2e-admin-token";
let stack: Awaited<ReturnType<typeof startStack>>;
let client: Client;

beforeAll(async () => {
  stack = await startStack({
    seed: true,
    vars: {
      ADMIN_TOKEN_HASH: createHash("sha256").update(ADMIN_TOKEN).digest("hex"),
      ARXIV_MIRROR_OAI_REQUEST_DELAY_MS: "200",
    },
  });
  client = new Client({ name: "e2e-mirror", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(stack.mcpUrl)));
}, 180_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

const structured = async (name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
  return result.structuredContent as Record<string, any>;
};

async function arxivStatus() {
  const body = (await (await fetch(`${stack.url}/status`)).json()) as { mirrors: Record<string, any>[] };
  return body.mirrors.find((mirror) => mirror.source === "arxiv")!;
}

describe("arXiv mirror under wrangler dev", () => {
  it("answers search and lookup from the seeded mirror", async () => {
    const search = await structured("arxiv_search_papers", { query: "ti:quantum AND cat:quant-ph" });
    expect(search.served_from).toBe("mirror");
    expect(search.total).toBeGreaterThan(0);
    const lookup = await structured("arxiv_get_metadata", { paper_ids: ["0704.0010", "acc-phys/9411001"] });
    expect(lookup.papers.map((p: { id: string; served_from: string }) => [p.id, p.served_from])).toEqual([
      ["0704.0010v1", "mirror"],
      ["acc-phys/9411001v1", "mirror"],
    ]);
    expect(await arxivStatus()).toMatchObject({ status: "done", records: 1128 });
  });

  it("harvests through the queue when an admin starts a run, then verifies, and the tools see the changes", async () => {
    const started = await fetch(`${stack.url}/admin/harvest?source=arxiv&mode=cold`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(started.status).toBe(202);
    const deadline = Date.now() + 60_000;
    let status = await arxivStatus();
    // Done means the steps after the run too (verify, then the ranking tables): the next test reads
    // the database from another process, which must not race the ranking tables' writes.
    while (
      !(status.status === "done" && status.verified && status.run.pending_step === null) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = await arxivStatus();
    }
    // 181 records and one deletion over 3 pages; 0704.0005 leaves, 0704.0010 gains v2 and cs.LG.
    expect(status).toMatchObject({
      status: "done",
      pages: 3,
      records: 1127,
      last_datestamp: "2026-11-22",
      run: { mode: "cold", records: 181, deleted: 1 },
    });
    expect(status.verified).toMatchObject({ ok: true, papers: 1127 });
    const revised = await structured("arxiv_get_metadata", { paper_ids: ["0704.0010"] });
    expect(revised.papers[0]).toMatchObject({ id: "0704.0010v2", served_from: "mirror" });
    expect(revised.papers[0].categories).toContain("cs.LG");
    const landing = await (await fetch(`${stack.url}/`)).text();
    expect(landing).toContain("cold started");
    const resource = await client.readResource({ uri: "arxiv://mirror/status" });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({
      serving: true,
      harvest: { records: 1127 },
    });
  }, 90_000);

  it("npm run mirror:verify checks the same database from outside", () => {
    const result = spawnSync(
      process.execPath,
      ["scripts/arxiv/mirror-verify.ts", "--persist-to", path.join(stack.stateDir, "state")],
      {
        encoding: "utf8",
        env: { ...process.env, XDG_CONFIG_HOME: path.join(stack.stateDir, "config"), WRANGLER_SEND_METRICS: "false" },
      },
    );
    const out = result.stdout;
    expect(result.status, `${out}\n${result.stderr}`.slice(-3000)).toBe(0);
    expect(out).toContain("arXiv mirror: 1,127 papers");
    expect(out).not.toContain("FAIL");
    expect(out.match(/^ok /gm)).toHaveLength(6);
  }, 60_000);
});
