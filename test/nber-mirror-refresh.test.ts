// The NBER mirror's refresh (cron + queue) and its FTS index. NBER answers come from hand-made fixtures in the
// documented shapes (no recordings exist); mirror rows are real nberwp records.

import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { nberHarvester } from "../src/harvest/nber";
import { upsertMirror } from "../src/store/nber-mirror";
import { FAKE, callTool, resetUpstream, upstreamHits, dbRows } from "./helpers";
import { appContext } from "../src/context";
import { NBER_SEED, seedNberMirror } from "./support/nber";

beforeEach(resetUpstream);
describe("mirror refresh (cron + queue)", () => {
  it("walks NBER's newest papers until it meets one the mirror has", async () => {
    await seedNberMirror();
    await nberHarvester.onPage(appContext(env), { source: "nber", run_id: "test", cursor: "1" }, 1);
    const ids = (await dbRows("SELECT id FROM nber_papers ORDER BY id")).map((row) => row["id"]);
    expect(ids).toEqual(["w0001", "w10000", "w25000", "w29623", "w29624", "w33451", "w33509"]);
    const [state] = await dbRows("SELECT status, records, pages FROM harvest_state WHERE source = 'nber'");
    expect(state).toEqual({ status: "done", records: 7, pages: 1 });
    const hit = new URL((await upstreamHits())[0]!.path, FAKE);
    expect(hit.searchParams.get("sortBy")).toBe("public_date");
  });

  it("the FTS index follows inserts and updates", async () => {
    await seedNberMirror();
    await upsertMirror(env.DB, [{ ...NBER_SEED[1]!, abstract: "globalization and labor standards" }]);
    const result = await callTool("nber_search_papers", { query: "globalization", end_date: "2020-01-01" });
    expect(result.structuredContent.papers.map((p: { id: string }) => p.id)).toEqual(["w10000"]);
    const check = await env.DB.prepare(
      "INSERT INTO nber_papers_fts(nber_papers_fts, rank) VALUES ('integrity-check', 1)",
    ).run();
    expect(check.success).toBe(true);
  });
});
