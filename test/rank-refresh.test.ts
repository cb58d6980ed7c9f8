// The ranking tables kept up with a run's changes (issue 34, src/store/ranking/refresh.ts and
// ranking/merge.ts) on the 1,128 real records of data/arxiv-sample: the change log, the
// weights of changed papers against FTS5's own bm25, the plan, and a merge that leaves the tables
// (and the search pages) a full rebuild of the same papers gives.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { idf } from "../src/search/bm25";
import { decodeImpacts, impactDepth } from "../src/search/impacts";
import { stem } from "../src/search/tokenize";
import { planMirrorSearch } from "../src/sources/arxiv/mirror-query";
import { searchMirror } from "../src/store/arxiv-mirror-search";
import { oneDatabase } from "../src/store/arxiv-shards";
import { pageWriteStatements } from "../src/store/arxiv-mirror-writes";
import { mergeEntries, mergeRankTerms } from "../src/store/ranking/merge";
import {
  clearRankChanges,
  fullBuildStatement,
  indexStats,
  paperTerms,
  planRankRefresh,
  RANK_REFRESH,
  refreshedStatement,
  scaledToDepth,
  requestFullRebuildStatement,
  setImpactFloors,
  stageRankChanges,
  termWeight,
  TRACKED_SQL,
} from "../src/store/ranking/refresh";
import { CHAMPIONS_SQL, rankSlice } from "../src/store/ranking/tables";
import type { MirrorRecord } from "../src/store/arxiv-row";
import { resetUpstream, statusJson } from "./helpers";
import { driveHarvest, sampleRecords, seedMirror } from "./mirror/driver";

const MIN_DOCS = 40;
const records = sampleRecords();

beforeEach(async () => {
  await resetUpstream();
  await seedMirror();
});

/** A full rebuild, recorded as the harvest records one. */
async function fullRebuild(): Promise<void> {
  let after = "";
  for (;;) {
    const slice = await rankSlice(env.DB, after, { terms: 500, minDocs: MIN_DOCS });
    if (slice.last === null) break;
    after = slice.last;
  }
  await fullBuildStatement(env.DB, await indexStats(env.DB), new Date().toISOString()).run();
}

/** The changes staged and merged, as the harvest's stage and merge steps run them. */
async function mergeChanges(papersPerStep = 40, termsPerStep = 60): Promise<{ papers: number; steps: number }> {
  let papers = 0;
  let steps = 0;
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const staged = await stageRankChanges(env.DB, after, papersPerStep);
    if (staged.last === null) break;
    for (const statement of staged.rows) await statement.run();
    await env.DB.batch(staged.writes);
    papers += staged.papers;
    after = staged.last;
    steps++;
  }
  let term = "";
  for (;;) {
    const merged = await mergeRankTerms(env.DB, term, { terms: termsPerStep, minDocs: MIN_DOCS });
    if (merged.last === null) break;
    for (const group of merged.groups) await env.DB.batch(group);
    await env.DB.batch(merged.writes);
    term = merged.last;
    steps++;
  }
  await refreshedStatement(env.DB, papers, await indexStats(env.DB), new Date().toISOString()).run();
  return { papers, steps };
}

interface Tables {
  terms: Map<string, number>;
  champions: Map<string, { key: number; weight: number }[]>;
  impacts: Map<string, Map<number, number>>;
}

async function readTables(): Promise<Tables> {
  const [terms, champions, impacts] = await env.DB.batch<Record<string, unknown>>([
    env.DB.prepare("SELECT term, col, docs FROM arxiv_rank_terms"),
    env.DB.prepare("SELECT term, col, weight, paper_key FROM arxiv_rank_champions ORDER BY term, col, weight DESC"),
    env.DB.prepare("SELECT term, col, postings FROM arxiv_rank_impacts"),
  ]);
  const tables: Tables = { terms: new Map(), champions: new Map(), impacts: new Map() };
  for (const r of terms!.results as { term: string; col: number; docs: number }[])
    tables.terms.set(`${r.col}|${r.term}`, r.docs);
  for (const r of champions!.results as { term: string; col: number; weight: number; paper_key: number }[]) {
    const key = `${r.col}|${r.term}`;
    tables.champions.set(key, [...(tables.champions.get(key) ?? []), { key: r.paper_key, weight: r.weight }]);
  }
  for (const r of impacts!.results as { term: string; col: number; postings: string }[]) {
    const { keys, scores } = decodeImpacts(r.postings);
    tables.impacts.set(`${r.col}|${r.term}`, new Map(Array.from(keys, (k, i) => [k, scores[i]!])));
  }
  return tables;
}

const count = (sql: string) => env.DB.prepare(sql).first<number>("n");

/** A record with new text: another sample paper's abstract and a changed title. */
function revised(record: MirrorRecord, i: number): MirrorRecord {
  const donor = records[(i * 37 + 11) % records.length]!;
  return {
    ...record,
    title: `${record.title} revisited`,
    abstract: donor.abstract,
    versions: [...record.versions, 1_800_000_000],
  };
}

/** 4.4% of the sample, under the bound past which a full rebuild is due: 30 papers revised, 8 deleted, 12 new (new IDs with other papers' text). */
async function changeTheMirror(): Promise<void> {
  const changed = records
    .filter((_r, i) => i % 14 === 3)
    .slice(0, 30)
    .map(revised);
  const deleted = records
    .filter((_r, i) => i % 14 === 5)
    .slice(0, 8)
    .map((r) => r.id);
  const added = records.slice(200, 212).map((r, i) => ({
    ...r,
    id: `2612.${String(70000 + i).padStart(5, "0")}`,
    style: "new" as const,
    title: `${r.title} and ${records[i]!.title}`,
  }));
  await env.DB.batch(pageWriteStatements(env.DB, [...changed, ...added], deleted));
}

describe("the change log (migration 0013)", () => {
  it("logs nothing before the first full build, then each paper whose text changed, once, with the text the tables knew", async () => {
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(0);
    await fullRebuild();
    const [first, second, third] = records;
    const storedAbstract = (id: string) =>
      env.DB.prepare("SELECT abstract FROM arxiv_papers WHERE id = ?").bind(id).first<string>("abstract");
    const [firstAbstract, thirdAbstract] = [await storedAbstract(first!.id), await storedAbstract(third!.id)];
    // The same record again, and a change of categories only: nothing the ranking reads.
    await env.DB.batch(pageWriteStatements(env.DB, [first!, { ...second!, categories: ["math.CO"] }], []));
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(0);
    await env.DB.batch(
      pageWriteStatements(
        env.DB,
        [{ ...first!, abstract: "A new abstract.", versions: [...first!.versions, 1_800_000_000] }],
        [],
      ),
    );
    await env.DB.batch(
      pageWriteStatements(
        env.DB,
        [{ ...first!, abstract: "A newer one.", versions: [...first!.versions, 1_800_000_000, 1_800_000_001] }],
        [third!.id],
      ),
    );
    await env.DB.batch(pageWriteStatements(env.DB, [{ ...third!, id: "2612.99999", style: "new" }], []));
    const logged = (
      await env.DB.prepare(
        "SELECT c.old_text, p.id FROM arxiv_rank_changes c LEFT JOIN arxiv_papers p USING (paper_key) ORDER BY c.paper_key",
      ).all<{ old_text: string | null; id: string | null }>()
    ).results;
    expect(logged).toHaveLength(3);
    const byOld = logged.map((r) => (r.old_text === null ? null : (JSON.parse(r.old_text) as string[])[2]));
    // The first change's old text is kept through the second; the deleted paper's text; the new paper's none.
    expect(byOld).toContain(firstAbstract);
    expect(byOld).toContain(thirdAbstract);
    expect(logged.filter((r) => r.old_text === null).map((r) => r.id)).toEqual(["2612.99999"]);
  });
});

describe("a changed paper's weights", () => {
  it("are the bm25 FTS5 gives it for each term alone, without the idf, in every column scope", async () => {
    const stats = await indexStats(env.DB);
    const paper = records[17]!;
    const key = await env.DB.prepare("SELECT paper_key FROM arxiv_papers WHERE id = ?")
      .bind(paper.id)
      .first<number>("paper_key");
    const terms = paperTerms([paper.title, paper.authors, paper.abstract, paper.comment, paper.journal_ref]);
    const columns = ["title", "authors", "abstract", "comment", "journal_ref"];
    let checked = 0;
    for (const [term, counts] of [...terms.counts].slice(0, 25)) {
      if (!/^[a-z]+$/.test(term)) continue;
      const docs = await env.DB.prepare("SELECT doc FROM arxiv_papers_fts_vocab WHERE term = ?")
        .bind(term)
        .first<number>("doc");
      for (const col of [-1, 0, 2]) {
        if (col >= 0 && counts[col] === 0) continue;
        const match = col === -1 ? `"${term}"` : `${columns[col]} : "${term}"`;
        // FTS5 stems a query's word again: only terms that are their own stem are asked for as such.
        const hits = (await env.DB.prepare(CHAMPIONS_SQL).bind(match, 2_000).all<{ k: number; s: number }>()).results;
        const hit = hits.find((h) => h.k === key);
        if (hit === undefined) continue;
        const colDocs =
          col === -1
            ? docs!
            : (await env.DB.prepare("SELECT doc FROM arxiv_papers_fts_vocab_col WHERE term = ? AND col = ?")
                .bind(term, columns[col])
                .first<number>("doc"))!;
        expect(termWeight(counts, col, terms.length, stats), `${col}|${term}`).toBeCloseTo(
          hit.s / idf(stats, colDocs),
          9,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it("merge into a list: the changed papers' old entries out, their new ones in, the best kept", () => {
    const list: [number, number][] = [
      [1, 2.0],
      [2, 1.5],
      [3, 1.0],
      [4, 0.5],
    ];
    const merged = mergeEntries(
      list,
      new Map([
        [2, null],
        [3, 1.9],
        [9, 1.2],
        [8, 0.1],
      ]),
      4,
    );
    expect(merged).toEqual([
      [1, 2.0],
      [3, 1.9],
      [9, 1.2],
      [4, 0.5],
    ]);
  });
});

describe("a merge of the changes", () => {
  it("leaves the tables a full rebuild of the same papers builds, and the same search pages", async () => {
    await fullRebuild();
    const built = await readTables();
    await changeTheMirror();
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(50);
    const { papers } = await mergeChanges();
    expect(papers).toBe(50);
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_staged")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_touched")).toBe(0);
    const merged = await readTables();
    const queries = [
      ...records
        .filter((_r, i) => i % 14 === 3)
        .slice(0, 30)
        .map((r) => `${r.title} revisited`),
      ...records.slice(200, 212).map((r, i) => `${r.title} and ${records[i]!.title}`),
      "quantum gauge lattice boson string",
      "ti:entanglement ti:spin quantum",
      "black hole entropy",
    ];
    const pages = async () => {
      const out: number[][] = [];
      for (const query of queries) {
        const planned = planMirrorSearch(query, {});
        if (!("plan" in planned)) throw new Error(query);
        const result = await searchMirror(oneDatabase(env.DB), planned.plan, {
          sortBy: "relevance",
          sortOrder: "descending",
          start: 0,
          limit: 10,
          caps: { count: 20, scan: 40, rank: 10 },
        });
        if (result.kind !== "answer") throw new Error(query);
        out.push(result.rows.map((r) => r.paper_key));
      }
      return out;
    };
    const mergedPages = await pages();

    await fullRebuild();
    const rebuilt = await readTables();
    // Document counts (the ranker's idf) exact, and the same terms common.
    expect(merged.terms).toEqual(rebuilt.terms);
    expect([...merged.impacts.keys()].sort()).toEqual([...rebuilt.impacts.keys()].sort());
    expect([...merged.champions.keys()].sort()).toEqual([...rebuilt.champions.keys()].sort());
    // The sample's lists hold every paper of their term (2,000 deep); the weights of unchanged
    // papers are their build's (the mean length moved), within a step of the stored byte.
    for (const [key, list] of rebuilt.impacts) {
      const mine = merged.impacts.get(key)!;
      expect([...mine.keys()].sort(), key).toEqual([...list.keys()].sort());
      for (const [paper, weight] of list) expect(Math.abs(mine.get(paper)! - weight), key).toBeLessThan(0.02);
    }
    // A list cut at 100 cannot know the 101st paper of its build when a champion goes, and its
    // unchanged papers keep their build's weights: its last places can differ.
    let shared = 0;
    let listed = 0;
    for (const [key, list] of rebuilt.champions) {
      const mine = new Set(merged.champions.get(key)!.map((c) => c.key));
      // A list that held all its papers still does.
      if ((built.champions.get(key)?.length ?? 0) < 100) expect(mine, key).toEqual(new Set(list.map((c) => c.key)));
      shared += list.filter((c) => mine.has(c.key)).length;
      listed += list.length;
    }
    expect(shared / listed).toBeGreaterThan(0.99);
    expect(await pages()).toEqual(mergedPages);
  });

  it("gives a term that became common its lists, and takes them from one that is no longer", async () => {
    await fullRebuild();
    const before = await readTables();
    // "zeolite" is in no sample paper: 45 new papers make it common (40); deleting the papers of a
    // term just over the threshold makes it rare.
    const rareNow = [...before.terms].find(
      // A term FTS5 looks up as itself (a query's word is stemmed again).
      ([key, docs]) =>
        key.startsWith("-1|") &&
        docs <= MIN_DOCS + 2 &&
        /^[a-z]+$/.test(key.slice(3)) &&
        stem(key.slice(3)) === key.slice(3),
    );
    expect(rareNow).toBeDefined();
    const word = rareNow![0].slice(3);
    const holders = (
      await env.DB.prepare(
        "SELECT p.id FROM arxiv_papers_fts f JOIN arxiv_papers p ON p.paper_key = f.rowid WHERE arxiv_papers_fts MATCH ?",
      )
        .bind(`"${word}"`)
        .all<{ id: string }>()
    ).results.map((r) => r.id);
    const added = records
      .filter((r) => !paperTerms([r.title, r.authors, r.abstract, r.comment, r.journal_ref]).counts.has(word))
      .slice(300, 345)
      .map((r, i) => ({
        ...r,
        id: `2612.${String(80000 + i).padStart(5, "0")}`,
        style: "new" as const,
        title: `Zeolite ${r.title}`,
      }));
    await env.DB.batch(pageWriteStatements(env.DB, added, holders.slice(0, 5)));
    await mergeChanges();
    const after = await readTables();
    const docsNow = await env.DB.prepare("SELECT doc FROM arxiv_papers_fts_vocab WHERE term = ?")
      .bind(word)
      .first<number>("doc");
    expect(docsNow, word).toBeLessThan(MIN_DOCS);
    expect(after.terms.get("-1|zeolit")).toBe(45);
    expect(after.impacts.get("-1|zeolit")?.size).toBe(45);
    expect(after.champions.get("-1|zeolit")).toHaveLength(45);
    expect(after.terms.has(`-1|${word}`)).toBe(false);
    expect(after.champions.has(`-1|${word}`)).toBe(false);
    expect(after.impacts.has(`-1|${word}`)).toBe(false);
  });

  it("comes to the same tables when a step dies after part of its writes and is replayed", async () => {
    await fullRebuild();
    await changeTheMirror();
    // A stage step that wrote its staged rows but died before its batch (the change log and the
    // checkpoint): replayed, it stages the same rows again.
    const first = await stageRankChanges(env.DB, Number.MIN_SAFE_INTEGER, 40);
    expect(first.rows.length).toBeGreaterThan(0);
    for (const statement of first.rows) await statement.run();
    const stagedOnce = await count("SELECT count(*) AS n FROM arxiv_rank_staged");
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(50);
    const replayed = await stageRankChanges(env.DB, Number.MIN_SAFE_INTEGER, 40);
    for (const statement of replayed.rows) await statement.run();
    await env.DB.batch(replayed.writes);
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_staged")).toBe(stagedOnce);
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(10);
    // A merge step that wrote half its lists and died: replayed, it merges the same changes again.
    const rest = await stageRankChanges(env.DB, replayed.last!, 40);
    for (const statement of rest.rows) await statement.run();
    await env.DB.batch(rest.writes);
    const half = await mergeRankTerms(env.DB, "", { terms: 60, minDocs: MIN_DOCS });
    for (const group of half.groups.slice(0, Math.ceil(half.groups.length / 2))) await env.DB.batch(group);
    await mergeChanges();
    const merged = await readTables();
    await fullRebuild();
    const rebuilt = await readTables();
    expect(merged.terms).toEqual(rebuilt.terms);
    for (const [key, list] of rebuilt.impacts)
      expect([...merged.impacts.get(key)!.keys()].sort(), key).toEqual([...list.keys()].sort());
  });

  it("reads the impact lists' floors from an index, never through the lists themselves", async () => {
    // The floor sits after a list's postings in the row: read from the table it walks the list's
    // overflow pages (1.4 s for 100 papers' terms at 3,200,000 papers with the pages not cached).
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${TRACKED_SQL}`)
      .bind('["quantum"]', '["quantum"]')
      .all<{ detail: string }>();
    const impactReads = results.map((row) => row.detail).filter((detail) => detail.includes("arxiv_rank_impacts"));
    expect(impactReads).toEqual([expect.stringContaining("USING COVERING INDEX arxiv_rank_impacts_floor")]);
  });

  it("stages a changed paper only for the lists it can enter or was in (their floors)", async () => {
    await fullRebuild();
    const floors = (await env.DB.prepare("SELECT count(*) AS n, sum(floor > 0) AS cut FROM arxiv_rank_terms").first<{
      n: number;
      cut: number;
    }>())!;
    // The sample's champion lists of its commonest terms are cut at 100: they have floors.
    expect(floors.cut).toBeGreaterThan(0);
    await changeTheMirror();
    const staged = await stageRankChanges(env.DB, Number.MIN_SAFE_INTEGER, 50);
    await env.DB.prepare("UPDATE arxiv_rank_terms SET floor = 0").run();
    await env.DB.prepare("UPDATE arxiv_rank_impacts SET floor = 0").run();
    const unfloored = await stageRankChanges(env.DB, Number.MIN_SAFE_INTEGER, 50);
    expect(staged.staged).toBeLessThan(unfloored.staged);
  });

  it("finds the floors of impact lists built before floors were kept", async () => {
    await fullRebuild();
    const kept = (await env.DB.prepare("SELECT term, col, floor FROM arxiv_rank_impacts ORDER BY term, col").all())
      .results;
    await env.DB.prepare("UPDATE arxiv_rank_impacts SET floor = NULL").run();
    for (;;) {
      const step = await setImpactFloors(env.DB, 50);
      if (step.writes.length > 0) await env.DB.batch(step.writes);
      if (step.done) break;
    }
    const found = (await env.DB.prepare("SELECT term, col, floor FROM arxiv_rank_impacts ORDER BY term, col").all())
      .results;
    // The sample's impact lists hold every paper of their terms (2,000 deep): floor 0, as built.
    expect(found).toEqual(kept);
  });
});

describe("step sizes", () => {
  it("stay as measured with lists up to 10,000 deep (1,000,000 papers) and shrink as lists deepen", () => {
    expect(scaledToDepth(RANK_REFRESH.mergeTerms, 2_000)).toBe(50);
    expect(scaledToDepth(RANK_REFRESH.mergeTerms, 10_000)).toBe(50);
    expect(scaledToDepth(RANK_REFRESH.mergeTerms, 32_000)).toBe(16);
    expect(scaledToDepth(RANK_REFRESH.writesPerCall, 32_000)).toBe(3);
    expect(scaledToDepth(RANK_REFRESH.mergeTerms, impactDepth(40_000_000))).toBe(13);
    expect(scaledToDepth(1, 40_000)).toBe(1);
  });
});

describe("the plan", () => {
  it("rebuilds whole with no full build yet, on request, past the changed-paper bound or the drift bound; else merges", async () => {
    expect(await planRankRefresh(env.DB)).toMatchObject({ full: true, why: "no full build yet" });
    await fullRebuild();
    expect((await planRankRefresh(env.DB)).full).toBe(false);
    await requestFullRebuildStatement(env.DB).run();
    expect(await planRankRefresh(env.DB)).toMatchObject({ full: true, why: "a full rebuild was asked for" });
    await fullRebuild();
    // 5% of 1,128 papers is 57: 60 changed papers pass it.
    const changed = records.slice(0, 60).map(revised);
    await env.DB.batch(pageWriteStatements(env.DB, changed, []));
    const plan = await planRankRefresh(env.DB);
    expect(plan.full).toBe(true);
    expect(plan.why).toBe("more than 57 papers changed since the last full build");
    // Cleared before the rebuild, in chunks.
    expect(await clearRankChanges(env.DB, 25)).toBe(false);
    while (!(await clearRankChanges(env.DB, 25)));
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(0);
    // The mean document length moved past its bound (here: the build's record says so).
    await env.DB.prepare("UPDATE arxiv_rank_build SET tokens = CAST(tokens * 1.2 AS INTEGER)").run();
    expect((await planRankRefresh(env.DB)).why).toMatch(/mean document length moved by/);
    expect(RANK_REFRESH.drift).toBe(0.05);
  });
});

describe("through the harvest", () => {
  it("a cold run ends in a full rebuild; a refresh after it merges only its changed papers", async () => {
    await env.DB.prepare("DELETE FROM arxiv_papers").run();
    const cold = await driveHarvest({ maxDeliveries: 200 });
    expect(cold.errors).toEqual([]);
    expect(new Set(cold.rankPhases)).toEqual(new Set(["plan", "clear", "full"]));
    const build = await env.DB.prepare("SELECT rows, tokens, changed_since FROM arxiv_rank_build").first<{
      rows: number;
      changed_since: number;
    }>();
    expect(build).toMatchObject({ changed_since: 0 });
    expect(build!.rows).toBeGreaterThan(0);
    // Three papers changed since the build (their text as the refresh will list it again).
    await env.DB.prepare(
      "UPDATE arxiv_papers SET abstract = 'An abstract since replaced.' WHERE paper_key IN (SELECT paper_key FROM arxiv_papers LIMIT 3)",
    ).run();
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(3);
    const waiting = (await statusJson()).mirrors.find((m: { source: string }) => m.source === "arxiv").ranking;
    expect(waiting).toMatchObject({ changed_since_full_build: 0, merged_at: null, changes_waiting: 3 });
    expect(waiting.full_build_at).toEqual(expect.any(String));
    await resetUpstream();
    const refresh = await driveHarvest({ mode: "refresh", maxDeliveries: 200 });
    expect(refresh.errors).toEqual([]);
    expect(refresh.rankPhases[0]).toBe("plan");
    expect(new Set(refresh.rankPhases)).toEqual(new Set(["plan", "floors", "stage", "merge"]));
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_touched")).toBe(0);
    expect(await env.DB.prepare("SELECT changed_since FROM arxiv_rank_build").first("changed_since")).toBe(3);
    const ranking = (await statusJson()).mirrors.find((m: { source: string }) => m.source === "arxiv").ranking;
    expect(ranking).toMatchObject({ changed_since_full_build: 3, changes_waiting: 0, full_rebuild_requested: false });
    expect(ranking.merged_at).toEqual(expect.any(String));
    // A cold run re-lists everything: nothing is logged while it runs, and it ends in a full rebuild.
    await env.DB.prepare(
      "UPDATE arxiv_papers SET abstract = 'Changed again.' WHERE paper_key IN (SELECT paper_key FROM arxiv_papers LIMIT 3)",
    ).run();
    await resetUpstream();
    const again = await driveHarvest({ maxDeliveries: 200 });
    expect(again.errors).toEqual([]);
    expect(new Set(again.rankPhases)).toEqual(new Set(["plan", "clear", "full"]));
    expect(await count("SELECT count(*) AS n FROM arxiv_rank_changes")).toBe(0);
    expect(await env.DB.prepare("SELECT changed_since FROM arxiv_rank_build").first("changed_since")).toBe(0);
    // The title lists (20 titles) the harvest keeps on the sample have the counts of the index.
    const lists = (
      await env.DB.prepare(
        "SELECT i.term, i.docs, v.doc FROM arxiv_rank_impacts i JOIN arxiv_papers_fts_vocab_col v ON v.term = i.term AND v.col = 'title' WHERE i.col = 0",
      ).all<{ term: string; docs: number; doc: number }>()
    ).results;
    expect(lists.length).toBeGreaterThan(0);
    for (const list of lists) expect(list.docs, list.term).toBe(list.doc);
  });
});
