// D1 read replication (issue 43, item 4): with D1_READ_REPLICATION on, reads that may be a moment
// old go through D1 sessions, and a research agent starts each read at the bookmark its last read
// left, so that its checks never see an older mirror than it has seen; off, every read goes to the
// primary. Local D1 has no replicas: the sessions are recorded, the answers must not change.
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { beforeEach, describe, expect, it } from "vitest";
import type { ResearchAgent } from "../src/agent/research-agent";
import { arxivReaders, bookmarkedReaders } from "../src/store/arxiv-shards";
import { parseShardSpec } from "../src/shard-spec";
import { callToolWith, structuredOf } from "./helpers";
import { seedMirror } from "./mirror/driver";
import { harvest, inObject, newPaper } from "./support/agent";

/** A D1 binding that records the sessions opened on it and what each one's bookmark was asked for. */
function recorded(db: D1Database, opened: string[]) {
  return new Proxy(db, {
    get(target, property) {
      if (property === "withSession")
        return (constraint: string) => {
          opened.push(constraint);
          return target.withSession(constraint);
        };
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const config = (replication: boolean) => ({
  ARXIV_MIRROR_SHARDS: parseShardSpec("DB"),
  D1_READ_REPLICATION: replication,
});

describe("read replication", () => {
  beforeEach(() => seedMirror());

  it("off: the primaries; on: a session each, first-unconstrained or from the bookmark given", async () => {
    const opened: string[] = [];
    const recordedEnv = { DB: recorded(env.DB, opened) };
    expect(arxivReaders({ env: recordedEnv, config: config(false) })[0]!.db).toBe(recordedEnv.DB);
    const off = bookmarkedReaders({ env: recordedEnv, config: config(false) }, { DB: "kept" });
    expect(off.shards[0]!.db).toBe(recordedEnv.DB);
    expect(off.bookmarks()).toEqual({ DB: "kept" });
    expect(opened).toEqual([]);

    arxivReaders({ env: recordedEnv, config: config(true) });
    const fresh = bookmarkedReaders({ env: recordedEnv, config: config(true) }, {});
    await fresh.shards[0]!.db.prepare("SELECT count(*) AS n FROM arxiv_papers").first();
    const bookmark = fresh.bookmarks().DB;
    const again = bookmarkedReaders({ env: recordedEnv, config: config(true) }, { DB: "a-bookmark" });
    expect(opened).toEqual(["first-unconstrained", "first-unconstrained", "a-bookmark"]);
    // Local D1 gives bookmarks too (one database, no replicas).
    expect(bookmark).toMatch(/^[0-9a-f-]+$/);
    expect(again.bookmarks()).toEqual({ DB: "a-bookmark" });
  });

  it("on: a search and a lookup answer as they do off", async () => {
    const answers = async (vars: Record<string, string>) => [
      structuredOf((await callToolWith("arxiv_search_papers", { query: "quantum entanglement" }, vars)).result).papers,
      structuredOf((await callToolWith("arxiv_get_metadata", { paper_ids: ["0704.0001"] }, vars)).result).papers,
    ];
    expect(await answers({ D1_READ_REPLICATION: "true" })).toEqual(await answers({ D1_READ_REPLICATION: "false" }));
  });

  it("on: a research agent's checks start at the bookmark its last mirror read left", async () => {
    const agent = await getAgentByName(env.RESEARCH_AGENT, "workspace:replicated");
    const result = (await inObject(agent, async (instance, state) => {
      const object = instance as ResearchAgent & { env: Record<string, unknown> };
      const opened: string[] = [];
      object.env = { ...object.env, D1_READ_REPLICATION: "true", DB: recorded(env.DB, opened) };
      const watch = await object.createWatch({ name: "lattice", arxiv_query: "ti:lattice" });
      const kept = () =>
        state.storage.sql.exec("SELECT binding, bookmark FROM d1_bookmarks").toArray() as {
          binding: string;
          bookmark: string;
        }[];
      const afterCreate = kept();
      await harvest([newPaper("2611.00002", "Lattice models after the watch", ["hep-lat"])]);
      const checked = await object.checkWatches();
      return { watch, afterCreate, afterCheck: kept(), opened, checked };
    })) as {
      watch: Awaited<ReturnType<ResearchAgent["createWatch"]>>;
      checked: Awaited<ReturnType<ResearchAgent["checkWatches"]>>;
      afterCreate: { binding: string; bookmark: string }[];
      afterCheck: { binding: string; bookmark: string }[];
      opened: string[];
    };
    expect(result.watch.ok).toBe(true);
    expect(result.checked.ok && result.checked.news.map((n) => n.new_papers.map((p) => p.id))).toEqual([
      ["2611.00002"],
    ]);
    // The watch's first read opens an unconstrained session; every later one starts at the bookmark kept.
    expect(result.opened[0]).toBe("first-unconstrained");
    expect(result.afterCreate.map((row) => row.binding)).toEqual(["DB"]);
    expect(result.opened.length).toBeGreaterThan(1);
    expect(result.opened.slice(1).every((constraint) => constraint !== "first-unconstrained")).toBe(true);
    expect(result.opened[1]).toBe(result.afterCreate[0]!.bookmark);
    // The check read a newer state (the paper written after the watch): its bookmark is kept.
    expect(result.afterCheck.map((row) => row.binding)).toEqual(["DB"]);
    expect(result.afterCheck[0]!.bookmark >= result.afterCreate[0]!.bookmark).toBe(true);
  });
});

/** A D1 binding that records each session opened on it and the statements each session ran. */
function recordedSessions(db: D1Database, opened: string[], read: string[]) {
  return new Proxy(db, {
    get(target, property) {
      if (property === "withSession")
        return (constraint: string) => {
          opened.push(constraint);
          const session = target.withSession(constraint);
          return {
            prepare: (sql: string) => {
              read.push(sql.replace(/\s+/g, " "));
              return session.prepare(sql);
            },
            batch: (statements: D1PreparedStatement[]) => session.batch(statements),
            getBookmark: () => session.getBookmark(),
          };
        };
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("one consistent read per call", () => {
  beforeEach(() => seedMirror());

  const replicated = (opened: string[], read: string[] = []) => ({
    D1_READ_REPLICATION: "true",
    DB: recordedSessions(env.DB, opened, read),
  });

  it("a reference's resolution and a bibliography's check each open one session of the database", async () => {
    const opened: string[] = [];
    const resolved = await callToolWith(
      "papers_resolve_reference",
      {
        reference:
          "C. Balázs et al., Calculation of prompt diphoton production cross sections at Tevatron and LHC energies, Phys. Rev. D 76, 013009 (2007)",
      },
      replicated(opened),
    );
    expect(structuredOf(resolved.result).status).toBe("match");
    expect(opened).toEqual(["first-unconstrained"]);
    opened.length = 0;
    const lines = Array.from({ length: 10 }, (_, i) => `[${i + 1}] A. Nobody, Lattice work number ${i + 1}, 2007.`);
    await callToolWith("papers_check_bibliography", { bibliography: lines.join("\n") }, replicated(opened));
    expect(opened).toEqual(["first-unconstrained"]);
  });

  it("reads the mirror's state through the call's session, beside the rows", async () => {
    const opened: string[] = [];
    const read: string[] = [];
    const result = await callToolWith(
      "arxiv_search_papers",
      { query: "quantum entanglement" },
      replicated(opened, read),
    );
    expect(structuredOf(result.result).served_from).toBe("mirror");
    expect(opened).toEqual(["first-unconstrained"]);
    expect(read.some((sql) => sql.includes("FROM harvest_state") || sql.includes("JOIN harvest_state"))).toBe(true);
    expect(read.some((sql) => sql.includes("arxiv_papers"))).toBe(true);
  });

  it("a search's next_start carries the bookmark, and the next page reads from it", async () => {
    const opened: string[] = [];
    const first = structuredOf(
      (await callToolWith("arxiv_search_papers", { query: "quantum", max_results: 2 }, replicated(opened))).result,
    );
    expect(first.next_start).toMatch(/^2~[A-Za-z0-9_-]+$/);
    const carried = JSON.parse(atob(first.next_start.slice(2).replace(/-/g, "+").replace(/_/g, "/")));
    expect(carried.DB).toMatch(/^[0-9a-f-]+$/);
    opened.length = 0;
    const second = structuredOf(
      (
        await callToolWith(
          "arxiv_search_papers",
          { query: "quantum", max_results: 2, start: first.next_start },
          replicated(opened),
        )
      ).result,
    );
    expect(opened).toEqual([carried.DB]);
    expect(second.start).toBe(2);
    expect(second.papers.map((p: { id: string }) => p.id)).not.toEqual(first.papers.map((p: { id: string }) => p.id));
    // Without read replication next_start is the offset alone.
    const plain = structuredOf(
      (await callToolWith("arxiv_search_papers", { query: "quantum", max_results: 2 }, {})).result,
    );
    expect(plain.next_start).toBe(2);
  });

  it("refuses a start that is not an offset or a next_start this server gave", async () => {
    for (const start of ["2~not base64!", "2~e30x", "abc", `2~${btoa('{"DB":"x; DROP"}')}`]) {
      const { result } = await callToolWith("arxiv_search_papers", { query: "quantum", start }, replicated([]));
      expect(result.isError, start).toBe(true);
      expect(JSON.stringify(result.content), start).toContain("invalid_argument");
    }
  });
});
