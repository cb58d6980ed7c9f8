// The arXiv mirror split across three local D1 databases (issue 34): the same 1,128 real records
// of data/arxiv-sample in one database and in three (by ID month: before April 2007, April 2007,
// after it; 124, 1,004 and 60 papers, so each shard's own statistics are far from the whole's).
// Every search must give the same page, total and lower-bound flag; lookups find each paper in
// its shard.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { parseShardSpec, ShardMapError } from "../src/shard-spec";
import { planMirrorSearch } from "../src/sources/arxiv/mirror-query";
import { paperKey } from "../src/store/arxiv-key";
import { mirrorByDoi, mirrorIdsByDoi, mirrorLookup, mirrorNewestKey } from "../src/store/arxiv-mirror-lookup";
import { type MirrorSearchOptions, searchMirror } from "../src/store/arxiv-mirror-search";
import { pageWriteStatements, writePapers } from "../src/store/arxiv-mirror-writes";
import { rankSlice } from "../src/store/ranking/tables";
import { type MirrorShard, mirrorShards, shardOf, oneDatabase } from "../src/store/arxiv-shards";
import { driveHarvest, sampleRecords, seedMirror } from "./mirror/driver";
import { verifyMirror } from "../src/store/arxiv-mirror-verify";
import { readStoreHealth } from "../src/mcp/status-report";
import type { MirrorRecord } from "../src/store/arxiv-row";
import { callToolWith } from "./helpers";
import { startArxivHarvest } from "../src/harvest/arxiv/run";
import { appContext } from "../src/context";
import { getAgentByName } from "agents";
import type { ResearchAgent } from "../src/agent/research-agent";
import { inObject, newPaper } from "./support/agent";
import { cachePut, clearMemoryCache } from "../src/store/cache";
import { workCacheKey } from "../src/sources/openalex/lookup";
import { arxivDoi } from "../src/sources/openalex/target";

const records = sampleRecords();
const SHARDS = [
  { binding: "ARXIV_SHARD_1", fromMonth: null },
  { binding: "ARXIV_SHARD_2", fromMonth: "2007-04" },
  { binding: "ARXIV_SHARD_3", fromMonth: "2007-05" },
];
let shards: MirrorShard[];
let single: MirrorShard[];

/** The ranking tables of one database, with a threshold its papers reach. */
async function buildRankTables(db: D1Database, minDocs = 20): Promise<void> {
  let after = "";
  for (;;) {
    const slice = await rankSlice(db, after, { terms: 500, minDocs });
    if (slice.last === null) return;
    after = slice.last;
  }
}

beforeEach(async () => {
  shards = mirrorShards(env, SHARDS);
  single = mirrorShards(env, [{ binding: "DB", fromMonth: null }]);
  for (const shard of shards) await applyD1Migrations(shard.db, env.TEST_MIGRATIONS);
  await seedMirror();
  await writePapers(shards, records, []);
  for (const db of [env.DB, ...shards.map((shard) => shard.db)]) await buildRankTables(db);
  // Four databases migrated, filled and ranked: longer than a hook's default 10 s on a busy machine.
}, 60_000);

const paperCount = async (db: D1Database) =>
  (await db.prepare("SELECT count(*) AS n FROM arxiv_papers").first<{ n: number }>())!.n;

describe("the shard map", () => {
  it("reads ARXIV_MIRROR_SHARDS and refuses a map that would misplace papers", () => {
    expect(parseShardSpec("DB")).toEqual([{ binding: "DB", fromMonth: null }]);
    expect(parseShardSpec(" DB , ARXIV_SHARD_2@2015-01,ARXIV_SHARD_3@2021-06 ")).toEqual([
      { binding: "DB", fromMonth: null },
      { binding: "ARXIV_SHARD_2", fromMonth: "2015-01" },
      { binding: "ARXIV_SHARD_3", fromMonth: "2021-06" },
    ]);
    for (const bad of [
      "ARXIV_SHARD_2",
      "DB@2015-01",
      "DB, ARXIV_SHARD_2",
      "DB, ARXIV_SHARD_2@2015-13",
      "DB, ARXIV_SHARD_2@2021-01, ARXIV_SHARD_3@2015-01",
      "DB, ARXIV_SHARD_2@2015-01, ARXIV_SHARD_2@2021-01",
      "DB, shard@2015-01",
    ])
      expect(() => parseShardSpec(bad), bad).toThrow(ShardMapError);
    expect(() => mirrorShards(env, parseShardSpec("DB, NO_SUCH_DB@2015-01"))).toThrow(/not a D1 binding/);
  });

  it("writes each paper to the shard of its ID month only, and finds it there by ID, DOI and newest key", async () => {
    const counts = await Promise.all(shards.map((shard) => paperCount(shard.db)));
    // By ID month, as the IDs spell it: before 0704, 0704, after it.
    const month = (id: string) => {
      const yymm = id.includes("/") ? id.split("/")[1]!.slice(0, 4) : id.slice(0, 4);
      return (
        (Number(yymm.slice(0, 2)) >= 91 ? 1900 : 2000) * 100 + Number(yymm.slice(0, 2)) * 100 + Number(yymm.slice(2))
      );
    };
    const byMonth = [
      records.filter((r) => month(r.id) < 200704).length,
      records.filter((r) => month(r.id) === 200704).length,
      records.filter((r) => month(r.id) > 200704).length,
    ];
    expect(counts).toEqual(byMonth);
    expect(Math.min(...counts)).toBeGreaterThan(40);
    for (const shard of shards) {
      const { results } = await shard.db.prepare("SELECT paper_key FROM arxiv_papers").all<{ paper_key: number }>();
      for (const row of results) expect(shardOf(shards, row.paper_key)).toBe(shard);
    }
    const ids = ["acc-phys/9411001", "0704.0010", "2401.00001", records.at(-1)!.id, "0705.9999"];
    const held = await mirrorLookup(shards, ids);
    const heldSingle = await mirrorLookup(single, ids);
    expect([...held.keys()].sort()).toEqual([...heldSingle.keys()].sort());
    expect(held.size).toBeGreaterThanOrEqual(3);
    expect(await mirrorNewestKey(shards)).toBe(await mirrorNewestKey(single));
    expect(await mirrorNewestKey(shards)).toBe(Math.max(...records.map((r) => paperKey(r.id))));
    const withDoi = records.filter((r) => r.doi).slice(0, 3);
    for (const record of withDoi)
      expect((await mirrorByDoi(shards, record.doi!)).map((r) => r.id)).toEqual(
        (await mirrorByDoi(single, record.doi!)).map((r) => r.id),
      );
    expect(
      await mirrorIdsByDoi(
        shards,
        withDoi.map((r) => r.doi!.toUpperCase()),
      ),
    ).toEqual(
      await mirrorIdsByDoi(
        single,
        withDoi.map((r) => r.doi!.toUpperCase()),
      ),
    );
  });
});

/** Every search of the list, in one database and in three: the same answer, row for row. */
async function expectSameAnswers(queries: [string, Record<string, unknown>?][], options: Partial<MirrorSearchOptions>) {
  let answered = 0;
  for (const [query, filters] of queries) {
    const planned = planMirrorSearch(query, filters ?? {});
    if (!("plan" in planned)) throw new Error(`expected a mirror plan for ${query}`);
    const full: MirrorSearchOptions = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10, ...options };
    const one = await searchMirror(oneDatabase(env.DB), planned.plan, full);
    const three = await searchMirror(
      shards.map((shard) => ({ ...shard })),
      planned.plan,
      full,
    );
    const label = `${query} ${JSON.stringify(options)}`;
    expect(three.kind, label).toBe(one.kind);
    if (one.kind !== "answer" || three.kind !== "answer") continue;
    answered++;
    expect({ total: three.total, lowerBound: three.totalIsLowerBound, ordering: three.ordering }, label).toEqual({
      total: one.total,
      lowerBound: one.totalIsLowerBound,
      ordering: one.ordering,
    });
    expect(
      three.rows.map((row) => row.id),
      label,
    ).toEqual(one.rows.map((row) => row.id));
  }
  return answered;
}

const RANKED: [string, Record<string, unknown>?][] = [
  ["quantum"],
  ["ti:quantum"],
  ["quantum field theory"],
  ["entanglement of spin chains in a magnetic field at finite temperature"],
  ["non-abelian gauge theory on the lattice with gauge fixing"],
  ["ti:quantum ti:field ti:theory ti:lattice ti:gauge"],
  ['"dark matter"'],
  ['"quantum field theory"'],
  ["ti:quantum AND abs:field"],
  ["quantum ANDNOT gauge"],
  ["au:smith OR au:wang"],
  ["galax*"],
  ["black hole", { categories: ["astro-ph", "gr-qc"] }],
  ["neutrino", { submitted_from: "2007-04-01", submitted_to: "2007-12-31" }],
  ["cat:hep-th AND string"],
];

describe("searches across three shards give one database's pages", () => {
  it("ranks by BM25 with statistics summed over the shards: the same pages, totals and bounds", async () => {
    expect(await expectSameAnswers(RANKED, {})).toBeGreaterThanOrEqual(13);
    expect(await expectSameAnswers(RANKED, { start: 10 })).toBeGreaterThanOrEqual(10);
    expect(await expectSameAnswers(RANKED, { sortOrder: "ascending" })).toBeGreaterThanOrEqual(13);
  });

  it("gives the same pages where the count stops at its cap and the ranker proposes candidates", async () => {
    const capped = { caps: { count: 20, scan: 40, rank: 10 } };
    expect(await expectSameAnswers(RANKED, capped)).toBeGreaterThanOrEqual(13);
    expect(await expectSameAnswers(RANKED, { ...capped, start: 10 })).toBeGreaterThanOrEqual(10);
    expect(await expectSameAnswers(RANKED, { caps: { count: 1000, scan: 60, rank: 1000 } })).toBeGreaterThanOrEqual(13);
  });

  it("lists by date, by update and newest first: the same pages, totals and bounds (capped counts too)", async () => {
    const listed: [string, Record<string, unknown>?][] = [
      ["cat:hep-th"],
      ["cat:hep-th OR cat:astro-ph"],
      ["quantum"],
      ["ti:quantum", { categories: ["quant-ph"] }],
      ["cat:math.CO"],
      ["cat:hep-ph", { submitted_from: "2007-03-01", submitted_to: "2007-06-30" }],
    ];
    for (const sortBy of ["submitted", "updated"] as const)
      for (const sortOrder of ["descending", "ascending"] as const)
        for (const extra of [
          {},
          { start: 7 },
          { caps: { count: 30, scan: 50, rank: 25 } },
          // The walk of a filtered count stops before the count does: the shards share what is left of it.
          { caps: { count: 1000, scan: 60, rank: 1000 } },
        ])
          await expectSameAnswers(listed, { sortBy, sortOrder, ...extra });
    // Relevance without words: newest first.
    expect(await expectSameAnswers([["cat:hep-th"], ["cat:hep-ph"]], {})).toBe(2);
  });
});

/** What the search and lookup tools answer for a few requests (ids, totals, where from). */
async function toolAnswers(shardVars: Record<string, string>) {
  // Every answer from the mirror: no search goes live for being recent.
  const vars = { ...shardVars, ARXIV_MIRROR_RECENT_DAYS_LIVE: "0" };
  const answers = [];
  for (const query of ["quantum field theory", "ti:quantum AND cat:quant-ph", "au:smith", '"dark matter"'])
    for (const sort_by of ["relevance", "submitted"]) {
      const { result } = await callToolWith("arxiv_search_papers", { query, sort_by, max_results: 10 }, vars);
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const { total, papers, served_from } = result.structuredContent;
      expect(served_from, query).toBe("mirror");
      answers.push({ query, sort_by, total, served_from, ids: papers.map((p: { id: string }) => p.id) });
    }
  const { result } = await callToolWith(
    "arxiv_get_metadata",
    { paper_ids: ["0704.0010", "acc-phys/9411001", records.at(-1)!.id] },
    vars,
  );
  answers.push(result.structuredContent.papers.map((p: { id: string; served_from: string }) => [p.id, p.served_from]));
  return answers;
}

describe("a harvest into three shards", { timeout: 120_000 }, () => {
  const SHARDED = { ARXIV_MIRROR_SHARDS: "DB, ARXIV_SHARD_2@2007-04, ARXIV_SHARD_3@2007-05" };
  const allPapers = async (dbs: D1Database[]) =>
    (
      await Promise.all(
        dbs.map(async (db) => (await db.prepare("SELECT * FROM arxiv_papers ORDER BY paper_key").all()).results),
      )
    ).flat();

  it("writes every record to its shard, verifies and ranks each shard, and counts the whole mirror", async () => {
    const dbs = [env.DB, env.ARXIV_SHARD_2, env.ARXIV_SHARD_3];
    const sharded = mirrorShards(env, parseShardSpec(SHARDED.ARXIV_MIRROR_SHARDS));
    for (const db of dbs) await db.exec("DELETE FROM arxiv_papers");
    // A cold run over the sample mirror in DB alone: what the shards together must hold after it.
    await writePapers(single, records, []);
    await driveHarvest({ maxDeliveries: 400 });
    const expected = await allPapers([env.DB]);
    const answersOneDb = await toolAnswers({});
    await env.DB.exec("DELETE FROM arxiv_papers");
    // The same run over the sample mirror in three shards (the run's pages are all April 2007).
    await writePapers(sharded, records, []);
    const run = await driveHarvest({ vars: SHARDED, maxDeliveries: 400 });
    expect(run.errors).toEqual([]);
    const held = await allPapers(dbs);
    expect(held.map((row) => row.id)).toEqual(expected.map((row) => row.id));
    expect(held).toEqual(expected);
    const counts = await Promise.all(dbs.map(paperCount));
    expect(Math.min(...counts)).toBeGreaterThan(40);
    for (const shard of sharded) {
      const { results } = await shard.db.prepare("SELECT paper_key FROM arxiv_papers").all<{ paper_key: number }>();
      for (const row of results) expect(shardOf(sharded, row.paper_key)).toBe(shard);
    }
    // Each shard's ranking tables were planned and built on its own.
    expect(run.rankPhases.filter((phase) => phase === "plan")).toHaveLength(3);
    for (const db of dbs)
      expect(
        (await db.prepare("SELECT count(*) AS n FROM arxiv_rank_build").first<{ n: number }>())!.n,
        "a full build recorded",
      ).toBe(1);
    const state = await env.DB.prepare(
      "SELECT records, shard_records, verified FROM harvest_state WHERE source = 'arxiv'",
    ).first<{ records: number; shard_records: number; verified: string }>();
    expect(state!.records + state!.shard_records).toBe(expected.length);
    expect(state!.shard_records).toBe(counts[1]! + counts[2]!);
    expect(JSON.parse(state!.verified)).toMatchObject({
      ok: true,
      papers: expected.length,
      papers_outside_their_shard: 0,
    });
    // The tools, configured with the shards, answer as they did from one database.
    expect(await toolAnswers(SHARDED)).toEqual(answersOneDb);
    // /status: each shard's size and papers.
    const health = await readStoreHealth(env.DB, sharded);
    expect(health.reachable && health.databases.map((d) => [d.binding, d.arxiv_papers ?? null])).toEqual([
      ["DB", null],
      ["ARXIV_SHARD_2", counts[1]],
      ["ARXIV_SHARD_3", counts[2]],
    ]);
    // ... and each shard's own ranking tables: built in full by the run, nothing waiting.
    if (!health.reachable) return;
    for (const database of health.databases.slice(1)) {
      expect(database.size_bytes, database.binding).toBeGreaterThan(0);
      expect(database.ranking, database.binding).toMatchObject({
        full_build_at: expect.any(String),
        full_rebuild_requested: false,
        changes_waiting: 0,
      });
    }
  });

  it("verifies every shard, and finds a paper left in the wrong shard", async () => {
    expect(await verifyMirror(shards)).toMatchObject({
      ok: true,
      papers: records.length,
      papers_outside_their_shard: 0,
    });
    // What a half-done shard move leaves: an April 2007 paper still in the first shard too.
    const stray = records.find((r) => r.id.startsWith("0704."))!;
    await shards[0]!.db.batch(pageWriteStatements(shards[0]!.db, [stray], []));
    expect(await verifyMirror(shards)).toMatchObject({ ok: false, papers_outside_their_shard: 1 });
  });
});

describe("a shard added when one fills", { timeout: 120_000 }, () => {
  const BEFORE = "DB, ARXIV_SHARD_2@2007-04";
  const AFTER = "DB, ARXIV_SHARD_2@2007-04, ARXIV_SHARD_3@2007-05";

  it("moves the new shard's months out of the shard that held them, with no harvest: verified, ranked, the same answers", async () => {
    const dbs = [env.DB, env.ARXIV_SHARD_2, env.ARXIV_SHARD_3];
    for (const db of dbs) await db.exec("DELETE FROM arxiv_papers");
    // The mirror before: two shards, the second holding April 2007 and everything after.
    const before = mirrorShards(env, parseShardSpec(BEFORE));
    await writePapers(before, records, []);
    for (const shard of before) await buildRankTables(shard.db);
    await env.DB.prepare(
      "UPDATE harvest_state SET status = 'done', watermark = '2026-11-28', complete_at = '2026-11-29T00:00:00Z', shard_records = ? WHERE source = 'arxiv'",
    )
      .bind(await paperCount(env.ARXIV_SHARD_2))
      .run();
    const answersBefore = await toolAnswers({ ARXIV_MIRROR_SHARDS: BEFORE });
    const later = records.filter((r) => paperKey(r.id) >= mirrorShards(env, parseShardSpec(AFTER))[2]!.firstKey);
    expect(later.length).toBeGreaterThan(40);
    expect(await paperCount(env.ARXIV_SHARD_3)).toBe(0);
    // Deployed with the new map, before the move: a lookup its shard cannot answer asks the others.
    const moving = later.slice(0, 3).map((r) => r.id);
    expect([...(await mirrorLookup(mirrorShards(env, parseShardSpec(AFTER)), moving)).keys()].sort()).toEqual(
      [...moving].sort(),
    );

    const run = await driveHarvest({ mode: "rebalance", vars: { ARXIV_MIRROR_SHARDS: AFTER }, maxDeliveries: 400 });
    expect(run.errors).toEqual([]);
    expect(run.kinds.filter((kind) => kind === "list")).toEqual([]);
    const counts = await Promise.all(dbs.map(paperCount));
    expect(counts[2]).toBe(later.length);
    expect(counts.reduce((a, b) => a + b)).toBe(records.length);
    const state = await env.DB.prepare(
      "SELECT status, mode, watermark, records + shard_records AS papers, verified FROM harvest_state WHERE source = 'arxiv'",
    ).first<{ status: string; mode: string; watermark: string; papers: number; verified: string }>();
    expect(state).toMatchObject({ status: "done", mode: "rebalance", watermark: "2026-11-28", papers: records.length });
    expect(JSON.parse(state!.verified)).toMatchObject({ ok: true, papers_outside_their_shard: 0 });
    // The shards that lost or gained papers rebuilt their ranking tables (more than 5% changed).
    expect(run.rankPhases.filter((phase) => phase === "full").length).toBeGreaterThan(0);
    expect(await toolAnswers({ ARXIV_MIRROR_SHARDS: AFTER })).toEqual(answersBefore);
  });

  it("refuses to move papers while a harvest run writes them", async () => {
    await env.DB.prepare("UPDATE harvest_state SET status = 'running', mode = 'refresh' WHERE source = 'arxiv'").run();
    await expect(
      startArxivHarvest(appContext({ ...env, ARXIV_MIRROR_SHARDS: AFTER } as Env), "rebalance"),
    ).rejects.toThrow(/under way/);
  });
});

describe("the citation tools, the known-item rule and the watches across three shards", { timeout: 120_000 }, () => {
  const SHARDED = "DB, ARXIV_SHARD_2@2007-04, ARXIV_SHARD_3@2007-05";
  const RANK_TABLES = ["arxiv_rank_terms", "arxiv_rank_impacts", "arxiv_rank_champions", "arxiv_rank_build"];
  /** The sample held in three shards by SHARDED, each shard's ranking tables built from its own papers. */
  async function shardTheMirror() {
    const dbs = [env.DB, env.ARXIV_SHARD_2, env.ARXIV_SHARD_3];
    for (const db of dbs) {
      await db.exec("DELETE FROM arxiv_papers");
      for (const table of RANK_TABLES) await db.exec(`DELETE FROM ${table}`);
    }
    await writePapers(mirrorShards(env, parseShardSpec(SHARDED)), records, []);
    for (const db of dbs) await buildRankTables(db);
    expect(Math.min(...(await Promise.all(dbs.map(paperCount))))).toBeGreaterThan(40);
  }
  // A paper of each shard: before April 2007, April 2007, after it.
  const ofEachShard = () => [
    records.find((r) => paperKey(r.id) < paperKey("0704.0001") && r.authors)!,
    records.find((r) => r.id.startsWith("0704.") && r.doi)!,
    records.findLast((r) => paperKey(r.id) >= paperKey("0705.0001") && r.authors)!,
  ];
  const year = (r: MirrorRecord) => new Date(r.versions[0]! * 1000).getUTCFullYear();
  const reference = (r: MirrorRecord) => `${r.authors}. ${r.title.replace(/\s+/g, " ")}. ${year(r)}.`;

  /** What the citation tools, versioned lookups and a pasted title answer (ids, statuses, confidences). */
  async function citationAnswers(vars: Record<string, string>) {
    const call = async (name: string, args: Record<string, unknown>) => {
      const { result } = await callToolWith(name, args, { ...vars, ARXIV_MIRROR_RECENT_DAYS_LIVE: "0" });
      expect(result?.isError, `${name} ${JSON.stringify(result)}`).toBeFalsy();
      // A tool whose text is the answer (an export) carries its fields in _meta.
      const answer = result.structuredContent ?? result._meta?.["papers-mcp/answer"];
      expect(answer, `${name} ${JSON.stringify(result)}`).toBeDefined();
      return answer;
    };
    const papers = ofEachShard();
    const answers: unknown[] = [];
    for (const paper of papers) {
      const resolved = await call("papers_resolve_reference", { reference: reference(paper) });
      answers.push([
        resolved.status,
        resolved.matches.map((m: { id: string; confidence: number }) => [m.id, m.confidence]),
      ]);
      // The known-item rule: a pasted title puts its paper first.
      const searched = await call("arxiv_search_papers", { query: paper.title.replace(/\s+/g, " "), max_results: 5 });
      expect(searched.served_from).toBe("mirror");
      answers.push(searched.papers.map((p: { base_id: string }) => p.base_id));
    }
    const byDoi = await call("papers_resolve_reference", { reference: `doi:${papers[1]!.doi}` });
    answers.push([byDoi.status, byDoi.matches.map((m: { id: string }) => m.id)]);
    const invented = await call("papers_resolve_reference", {
      reference:
        "A. Nobody. Gravitational lensing of invented photons by imaginary strings. Phys. Rev. D 99, 123456 (2007).",
    });
    answers.push([invented.status, invented.matches.length]);
    const checked = await call("papers_check_bibliography", {
      bibliography: [...papers.map(reference), "A. Nobody. Invented photons and imaginary strings. 2007."].join("\n"),
    });
    answers.push(
      checked.summary,
      checked.entries.map((e: { verdict: string; id?: string }) => [e.verdict, e.id ?? null]),
    );
    const exported = await call("papers_export_citations", {
      ids: papers.map((p, i) => (i === 1 ? `${p.id}v${p.versions.length}` : p.id)),
      format: "bibtex",
    });
    expect(exported.not_found).toEqual([]);
    answers.push(exported.entries);
    // Pinned to each paper's latest version: the version the mirror holds.
    const metadata = await call("arxiv_get_metadata", { paper_ids: papers.map((p) => `${p.id}v${p.versions.length}`) });
    answers.push(
      metadata.papers.map((p: { id: string; version: number; served_from: string }) => [p.id, p.served_from]),
    );
    return answers;
  }

  it("resolve references, check a bibliography, export, look up versions and put a pasted title first as one database does", async () => {
    const papers = ofEachShard();
    expect(
      new Set(papers.map((p) => shardOf(mirrorShards(env, parseShardSpec(SHARDED)), paperKey(p.id)).binding)).size,
    ).toBe(3);
    const oneDb = await citationAnswers({});
    // Every one of the three references resolves to its paper, and each pasted title finds it first.
    papers.forEach((paper, i) => {
      const [status, matches] = oneDb[2 * i] as [string, [string, number][]];
      expect([status, matches[0]![0]], paper.id).toEqual(["match", paper.id]);
      expect((oneDb[2 * i + 1] as string[])[0], paper.id).toBe(paper.id);
    });
    await shardTheMirror();
    expect(await citationAnswers({ ARXIV_MIRROR_SHARDS: SHARDED })).toEqual(oneDb);
  });

  it("citation counts cached in DB show for a paper of each shard, in a lookup and on a search page", async () => {
    await shardTheMirror();
    const papers = ofEachShard();
    const work = (n: number) => ({
      work: {
        openalex_id: `W${n}`,
        title: null,
        doi: null,
        cited_by_count: n,
        referenced_works_count: 0,
        counts_by_year: [],
      },
      fresh_until: Date.now() + 3_600_000,
    });
    await cachePut(
      env.DB,
      papers.map((paper, i) => ({ key: workCacheKey(arxivDoi(paper.id)), value: work(100 + i), ttlMs: 86_400_000 })),
    );
    // Another isolate: the counts are in DB only, the last two papers' rows in the other shards.
    clearMemoryCache();
    const vars = { ARXIV_MIRROR_SHARDS: SHARDED, ARXIV_MIRROR_RECENT_DAYS_LIVE: "0" };
    const { result } = await callToolWith("arxiv_get_metadata", { paper_ids: papers.map((p) => p.id) }, vars);
    expect(result.structuredContent.papers.map((p: { cited_by_count?: number }) => p.cited_by_count)).toEqual([
      100, 101, 102,
    ]);
    for (const [i, paper] of papers.entries()) {
      clearMemoryCache();
      const page = await callToolWith("arxiv_search_papers", { query: paper.title.replace(/\s+/g, " ") }, vars);
      const found = page.result.structuredContent.papers.find((p: { base_id: string }) => p.base_id === paper.id);
      expect(found?.cited_by_count, paper.id).toBe(100 + i);
    }
  });

  it("watch: a new paper in the last shard is news, a saved paper's new version in another shard too", async () => {
    await shardTheMirror();
    const sharded = mirrorShards(env, parseShardSpec(SHARDED));
    const saved = ofEachShard()[0]!;
    const agent = await getAgentByName(env.RESEARCH_AGENT, "workspace:sharded-watches");
    const news = await inObject(agent, async (instance) => {
      // The Durable Object reads its own env: configured here as a deployment with three shards.
      const object = instance as ResearchAgent & { env: Record<string, unknown> };
      object.env = { ...object.env, ARXIV_MIRROR_SHARDS: SHARDED };
      const watch = await object.createWatch({ name: "quantum", arxiv_query: "ti:quantum" });
      expect(watch.ok).toBe(true);
      const library = await object.addPapers([{ id: saved.id }]);
      expect(library.ok && library.added.map((p) => [p.id, p.title])).toEqual([
        [saved.id, saved.title.replace(/\s+/g, " ")],
      ]);
      // Announced after the watch: a paper of the newest month (the last shard), and a new version
      // of the saved paper (the first shard).
      await writePapers(
        sharded,
        [
          newPaper("2611.00001", "Quantum walks on sharded graphs", ["quant-ph"]),
          { ...saved, versions: [...saved.versions, Date.UTC(2026, 10, 30) / 1000], datestamp: "2026-11-30" },
        ],
        [],
      );
      return object.checkWatches();
    });
    expect(await paperCount(env.ARXIV_SHARD_3)).toBeGreaterThan(0);
    const checked = news as Awaited<ReturnType<ResearchAgent["checkWatches"]>>;
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.news.map((n) => n.new_papers.map((p) => p.id))).toEqual([["2611.00001"]]);
    expect(checked.new_versions.map((p) => [p.id, p.latest_version])).toEqual([[saved.id, saved.versions.length + 1]]);
  });
});
