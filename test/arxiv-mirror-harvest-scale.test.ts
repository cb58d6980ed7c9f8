// The harvest at a size where datestamp disorder matters: 20,000 synthetic records from the
// synthetic OAI-PMH endpoint (scripts/fake-upstream/oai-synthetic.ts, HAND-MADE: identifier
// order, datestamps in no order, tokens forgotten mid-listing, 503s, truncated pages, records
// changed and deleted while the harvest runs, a few records unreadable in listings), crashes
// around batches, then a refresh. The mirror must equal the source exactly, record by record.
// npm run bench:harvest runs the same at 3,000,000 records through wrangler dev.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { MIRROR_COLUMNS, mirrorRowFingerprint, type MirrorRow } from "../src/store/arxiv-row";
import { FAKE, resetUpstream } from "./helpers";
import { driveHarvest, type Fault } from "./mirror/driver";

beforeEach(resetUpstream);

const SYNTHETIC = `${FAKE}/arxiv-oai/synthetic`;
const control = (path: string, body?: unknown) =>
  fetch(`${SYNTHETIC}/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }).then(
    (response) => response.json() as Promise<any>,
  );

async function mirrorFingerprints(): Promise<Map<string, string>> {
  const columns = MIRROR_COLUMNS.filter((column) => column !== "paper_key");
  const found = new Map<string, string>();
  let after = -1;
  for (;;) {
    const { results } = await env.DB.prepare(
      `SELECT paper_key, ${columns.join(", ")} FROM arxiv_papers WHERE paper_key > ? ORDER BY paper_key LIMIT 2000`,
    )
      .bind(after)
      .all<MirrorRow>();
    if (results.length === 0) return found;
    for (const { paper_key, ...row } of results) {
      if (found.has(row.id)) throw new Error(`${row.id} stored twice`);
      found.set(row.id, mirrorRowFingerprint(row));
      after = paper_key;
    }
  }
}

async function expectMirrorEqualsSource(): Promise<number> {
  const { fingerprints } = (await control("_expected")) as { fingerprints: Record<string, string> };
  const stored = await mirrorFingerprints();
  const missing = Object.keys(fingerprints).filter((id) => !stored.has(id));
  const extra = [...stored.keys()].filter((id) => !(id in fingerprints));
  const different = Object.keys(fingerprints).filter((id) => stored.has(id) && stored.get(id) !== fingerprints[id]);
  expect({
    missing: missing.slice(0, 5),
    extra: extra.slice(0, 5),
    different: different.slice(0, 5),
    counts: [missing.length, extra.length, different.length],
  }).toEqual({
    missing: [],
    extra: [],
    different: [],
    counts: [0, 0, 0],
  });
  return stored.size;
}

describe("a harvest of 20,000 records in identifier order with datestamps in no order", () => {
  it("survives forgotten tokens, 503s, truncated pages, crashes and changes during the run; the mirror equals the source, then after a refresh too", async () => {
    await control("_configure", {
      n: 20_000,
      pageSize: 500,
      seed: 5,
      forgetTokensEveryPages: 25,
      failRate: 0.02,
      truncateRate: 0.03,
      unreadableEvery: 2_500,
    });
    const faults = new Map<number, Fault>([
      [12, { kind: "crash-before-batch" }],
      [27, { kind: "crash-after-batch" }],
      [41, { kind: "replay" }],
      [55, { kind: "crash-after-batch" }],
    ]);
    const cold = await driveHarvest({
      baseUrl: SYNTHETIC,
      vars: { ARXIV_MIRROR_WINDOW_PAGES: "6" },
      faults,
      maxDeliveries: 2_000,
      onDelivery: async (delivery) => {
        if (delivery === 20) await control("_mutate", { changed: 300, removed: 60, seed: 11 });
        if (delivery === 33) await control("_forget-tokens", {});
      },
    });
    const stats = await control("_stats");
    const state = (await env.DB.prepare("SELECT * FROM harvest_state WHERE source = 'arxiv'").first<
      Record<string, any>
    >())!;
    expect(state).toMatchObject({ status: "done", next_cursor: null });
    expect(state.complete_at).not.toBeNull();
    expect(JSON.parse(state.verified).ok).toBe(true);
    // The faults really happened: lost tokens re-listed their window, failures were retried.
    // (A lost token answered twice, around a crash, restarts its window once.)
    expect(stats.expired).toBeGreaterThanOrEqual(2);
    expect(state.run_restarts).toBeGreaterThanOrEqual(2);
    expect(state.run_restarts).toBeLessThanOrEqual(stats.expired);
    expect(state.run_retries).toBeGreaterThanOrEqual(stats.truncated + stats.failures503);
    expect(cold.deadLettered).toEqual([]);
    const windows = (await env.DB.prepare(
      "SELECT count(*) AS n, sum(restarts) AS restarts, max(pages) AS most FROM arxiv_harvest_windows WHERE run_id = ?",
    )
      .bind(state.run_id)
      .first<{ n: number; restarts: number; most: number }>())!;
    expect(windows.n).toBeGreaterThan(10);
    expect(windows.restarts).toBe(state.run_restarts);
    // Unreadable in the listing, kept aside, then read by GetRecord at the run's end.
    const skipped = (
      await env.DB.prepare("SELECT status, count(*) AS n FROM arxiv_harvest_skipped GROUP BY status").all<{
        status: string;
        n: number;
      }>()
    ).results;
    expect(skipped).toEqual([{ status: "recovered", n: 8 }]);
    expect(stats.getRecord).toBe(8);
    expect(await expectMirrorEqualsSource()).toBe((await control("_mutate", { changed: 0 })).size);

    // The next day: more changes, and the refresh from the watermark picks them all up.
    await control("_mutate", { changed: 150, removed: 40, seed: 12 });
    const refresh = await driveHarvest({ baseUrl: SYNTHETIC, mode: "refresh", maxDeliveries: 500 });
    expect(refresh.deadLettered).toEqual([]);
    await expectMirrorEqualsSource();
  }, 180_000);
});
