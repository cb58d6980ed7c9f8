// The research agent (one Agent Durable Object per client identity): watches over the mirrors,
// the library, version history, limits, and that two identities never share anything.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../src/http/auth";
import { pageWriteStatements } from "../src/store/arxiv-mirror-writes";
import type { MirrorRecord } from "../src/store/arxiv-row";
import { upsertMirror } from "../src/store/nber-mirror";
import { callTool, callToolWith, mcpCall, resetUpstream, upstreamHits } from "./helpers";
import { sampleRecords, seedMirror } from "./mirror/driver";

beforeEach(resetUpstream);

// runInDurableObject with the agent's stub, typed loosely (its generics over an Agent class are too deep for tsc).
const inObject = runInDurableObject as unknown as (
  stub: unknown,
  work: (instance: unknown, state: DurableObjectState) => Promise<unknown>,
) => Promise<unknown>;

const TOKENS = ["token-of-alice", "token-of-bob"];
const bearerVars = async () => ({
  AUTH_MODE: "bearer",
  AUTH_TOKEN_HASHES: (await Promise.all(TOKENS.map(sha256Hex))).join(","),
});

async function as(token: string, name: string, args: Record<string, unknown>) {
  const { result } = await callToolWith(name, args, await bearerVars(), { authorization: `Bearer ${token}` });
  return result;
}
const ok = (result: any) => {
  if (result.isError) throw new Error(result.content[0].text);
  return result.structuredContent;
};
const reason = (result: any) => JSON.parse(result.content[0].text).error.reason as string;
const workspace = (name: string, args: Record<string, unknown>, tool = "papers_watch") =>
  callToolWith(tool, args, {}, { "x-papers-workspace": name }).then((r) => r.result);

/** A new paper announced after the mirror was seeded (hand-made record in the sample's shape). */
function newPaper(id: string, title: string, categories: string[]): MirrorRecord {
  const [template] = sampleRecords();
  return {
    ...template!,
    id,
    style: "new",
    title,
    categories,
    versions: [Date.UTC(2026, 10, 30) / 1000],
    doi: null,
    journal_ref: null,
    datestamp: "2026-11-30",
  };
}
const harvest = (records: MirrorRecord[]) => env.DB.batch(pageWriteStatements(env.DB, records, []));

describe("papers_watch", () => {
  beforeEach(() => seedMirror());

  it("reports exactly the papers that entered the mirror since the last check, once", async () => {
    const created = ok(
      await as(TOKENS[0]!, "papers_watch", {
        action: "create",
        name: "quantum walks",
        arxiv_query: "ti:quantum",
        categories: ["quant-ph"],
      }),
    );
    expect(created.watches[0]).toMatchObject({
      name: "quantum walks",
      source: "arxiv",
      query: "(ti:quantum) AND (cat:quant-ph)",
    });
    // Nothing has entered yet: the mark is the mirror's newest paper.
    expect(ok(await as(TOKENS[0]!, "papers_watch", { action: "check" })).news[0]).toMatchObject({
      new_count: 0,
      new_papers: [],
    });

    await harvest([
      newPaper("2611.00001", "A quantum walk on graphs", ["quant-ph"]),
      newPaper("2611.00002", "Classical fluids in pipes", ["physics.flu-dyn"]),
      newPaper("2611.00003", "Quantum error correction codes", ["quant-ph", "cs.IT"]),
      newPaper("2611.00004", "Quantum gravity without walks", ["gr-qc"]),
    ]);
    const check = ok(await as(TOKENS[0]!, "papers_watch", { action: "check", watch: "quantum walks" }));
    expect(check.news[0].new_papers.map((paper: { id: string }) => paper.id)).toEqual(["2611.00003", "2611.00001"]);
    expect(check.news[0]).toMatchObject({ new_count: 2, count_is_lower_bound: false, from_precomputed: false });
    const again = ok(await as(TOKENS[0]!, "papers_watch", { action: "check", watch: "quantum walks" }));
    expect(again.news[0].new_count).toBe(0);
    // Checks read the mirror only.
    expect((await upstreamHits()).filter((hit) => hit.path.startsWith("/arxiv"))).toEqual([]);
  });

  it("answers a check from the news its daily schedule computed after the harvest", async () => {
    ok(await workspace("lab-1", { action: "create", name: "codes", arxiv_query: "ti:codes" }));
    await harvest([newPaper("2611.00010", "Short codes for qubits", ["quant-ph"])]);
    const agent = await getAgentByName(env.RESEARCH_AGENT, "workspace:lab-1");
    const run = await agent.precomputeNews();
    expect(run.watches).toBe(1);
    const check = ok(await workspace("lab-1", { action: "check" }));
    expect(check.news[0]).toMatchObject({ from_precomputed: true, new_count: 1 });
    expect(check.news[0].new_papers[0].id).toBe("2611.00010");
    // The schedule itself is registered with the agent (a cron after the 02:30 harvest).
    const schedules = (await inObject(agent, async (instance) =>
      (instance as { getSchedules(): unknown[] }).getSchedules(),
    )) as { callback: string; cron?: string }[];
    expect(schedules.map((s: { callback: string; cron?: string }) => [s.callback, s.cron])).toContainEqual([
      "precomputeNews",
      "30 6 * * *",
    ]);
  });

  it("watches NBER's new working papers", async () => {
    await upsertMirror(env.DB, [
      {
        id: "w30000",
        title: "Minimum wages and jobs",
        authors: ["A B"],
        date: "2022-05",
        abstract: null,
        source: "nberwp",
      },
    ]);
    ok(await workspace("lab-2", { action: "create", name: "wages", nber_query: "minimum wage" }));
    await upsertMirror(env.DB, [
      {
        id: "w30001",
        title: "The minimum wage and teen employment",
        authors: ["C D"],
        date: "2022-06",
        abstract: null,
        source: "api",
      },
      { id: "w30002", title: "Trade and tariffs", authors: ["E F"], date: "2022-06", abstract: null, source: "api" },
    ]);
    const check = ok(await workspace("lab-2", { action: "check" }));
    expect(check.news[0].new_papers.map((paper: { id: string }) => paper.id)).toEqual(["w30001"]);
  });

  it("refuses what it cannot do, each with a typed error", async () => {
    expect(reason(await workspace("lab-3", { action: "create", name: "short prefix", arxiv_query: "e*" }))).toBe(
      "watch_unanswerable",
    );
    expect(
      reason(await workspace("lab-3", { action: "create", name: "both", arxiv_query: "ti:x", nber_query: "y" })),
    ).toBe("invalid_watch");
    expect(reason(await workspace("lab-3", { action: "create", arxiv_query: "ti:lattice" }))).toBe("invalid_argument");
    expect(
      reason(await workspace("lab-3", { action: "create", name: "bad grammar", arxiv_query: "ti:(lattice" })),
    ).toBe("invalid_query");
    expect(reason(await workspace("lab-3", { action: "delete", watch: "nope" }))).toBe("no_such_watch");
    for (let i = 0; i < 50; i++)
      ok(await workspace("lab-3", { action: "create", name: `w${i}`, arxiv_query: "ti:lattice" }));
    expect(
      reason(await workspace("lab-3", { action: "create", name: "one too many", arxiv_query: "ti:lattice" })),
    ).toBe("too_many_watches");
    expect(reason(await workspace("lab-3", { action: "create", name: "w1", arxiv_query: "ti:lattice" }))).toBe(
      "too_many_watches",
    );
    // Without an identity (AUTH_MODE=none and no workspace) there is no state to use.
    expect(reason(await callTool("papers_watch", { action: "list" }))).toBe("no_identity");
  });
});

describe("papers_library", () => {
  beforeEach(() => seedMirror());

  it("saves papers with tags and a note, lists them by tag, removes them, and exports a tag", async () => {
    const added = ok(
      await as(TOKENS[0]!, "papers_library", {
        action: "add",
        ids: ["arXiv:0704.0001v1", "w10000", "garbage"],
        tags: ["Diphoton", "to-read"],
        note: "for the intro",
      }),
    );
    expect(added.papers.map((paper: { id: string }) => paper.id)).toEqual(["0704.0001", "w10000"]);
    expect(added.papers[0]).toMatchObject({
      tags: ["diphoton", "to-read"],
      note: "for the intro",
      title: "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
    });
    expect(added.not_added).toEqual([
      { id: "garbage", reason: "invalid_id", detail: "neither an arXiv ID nor an NBER one" },
    ]);
    ok(await as(TOKENS[0]!, "papers_library", { action: "add", ids: ["0704.0007"], tags: ["other"] }));
    expect(
      ok(await as(TOKENS[0]!, "papers_library", { action: "list", tag: "diphoton" }))
        .papers.map((paper: { id: string }) => paper.id)
        .sort(),
    ).toEqual(["0704.0001", "w10000"]);
    const exported = ok(await as(TOKENS[0]!, "papers_export_citations", { tag: "to-read", format: "bibtex" }));
    expect(exported.entries.map((entry: { id: string }) => entry.id).sort()).toEqual(["0704.0001", "w10000"]);
    const removed = ok(await as(TOKENS[0]!, "papers_library", { action: "remove", ids: ["0704.0001", "9999.99999"] }));
    expect(removed).toMatchObject({ removed: ["0704.0001"], not_found: ["9999.99999"] });
    expect(
      ok(await as(TOKENS[0]!, "papers_library", { action: "list" }))
        .papers.map((paper: { id: string }) => paper.id)
        .sort(),
    ).toEqual(["0704.0007", "w10000"]);
    expect(
      reason(await as(TOKENS[0]!, "papers_library", { action: "add", ids: ["0704.0001"], note: "x".repeat(2_001) })),
    ).toBe("invalid_argument");
  });

  it("says when a saved paper has a new version, in the list and once in a check", async () => {
    ok(await workspace("lab-4", { action: "add", ids: ["0704.0007"] }, "papers_library"));
    const [record] = sampleRecords().filter((r) => r.id === "0704.0007");
    await harvest([{ ...record!, versions: [...record!.versions, Date.UTC(2026, 10, 30) / 1000] }]);
    const listed = ok(await workspace("lab-4", { action: "list" }, "papers_library")).papers[0];
    expect(listed.latest_version).toBe(listed.saved_version + 1);
    expect(listed.latest_version_date).toBe("2026-11-30");
    const first = ok(await workspace("lab-4", { action: "check" }));
    expect(first.new_versions.map((paper: { id: string }) => paper.id)).toEqual(["0704.0007"]);
    expect(ok(await workspace("lab-4", { action: "check" })).new_versions).toEqual([]);
  });
});

describe("identities and persistence", () => {
  beforeEach(() => seedMirror());

  it("never shows one identity's watches or library to another", async () => {
    ok(await as(TOKENS[0]!, "papers_watch", { action: "create", name: "alice's", arxiv_query: "ti:lattice" }));
    ok(await as(TOKENS[0]!, "papers_library", { action: "add", ids: ["0704.0001"] }));
    expect(ok(await as(TOKENS[1]!, "papers_watch", { action: "list" })).watches).toEqual([]);
    expect(ok(await as(TOKENS[1]!, "papers_library", { action: "list" })).papers).toEqual([]);
    expect(reason(await as(TOKENS[1]!, "papers_watch", { action: "delete", watch: "alice's" }))).toBe("no_such_watch");
    expect(
      ok(await as(TOKENS[0]!, "papers_watch", { action: "list" })).watches.map((w: { name: string }) => w.name),
    ).toEqual(["alice's"]);
    // A client cannot claim another identity by sending the internal header.
    const spoof = await callToolWith(
      "papers_watch",
      { action: "list" },
      {},
      { "x-papers-identity": `token:${(await sha256Hex(TOKENS[0]!)).slice(0, 16)}` },
    );
    expect(reason(spoof.result)).toBe("no_identity");
  });

  it("reads the watches and the library as resources, per identity", async () => {
    ok(await workspace("lab-6", { action: "create", name: "as a resource", arxiv_query: "ti:lattice" }));
    ok(await workspace("lab-6", { action: "add", ids: ["0704.0001"], tags: ["x"] }, "papers_library"));
    const read = (uri: string, headers: Record<string, string>) => mcpCall("resources/read", { uri }, { headers });
    const watches = JSON.parse(
      (await read("papers://watches", { "x-papers-workspace": "lab-6" })).message.result.contents[0].text,
    );
    expect(watches.watches.map((w: { name: string }) => w.name)).toEqual(["as a resource"]);
    const library = JSON.parse(
      (await read("papers://library", { "x-papers-workspace": "lab-6" })).message.result.contents[0].text,
    );
    expect(library.papers.map((p: { id: string }) => p.id)).toEqual(["0704.0001"]);
    const other = JSON.parse(
      (await read("papers://watches", { "x-papers-workspace": "lab-7" })).message.result.contents[0].text,
    );
    expect(other.watches).toEqual([]);
    const anonymous = await read("papers://watches", {});
    expect(anonymous.message.error.data.reason).toBe("no_identity");
  });

  it("keeps its state in the Durable Object's SQLite storage, not in memory", async () => {
    ok(await workspace("lab-5", { action: "create", name: "kept", arxiv_query: "ti:lattice" }));
    ok(await workspace("lab-5", { action: "add", ids: ["0704.0001"] }, "papers_library"));
    const agent = await getAgentByName(env.RESEARCH_AGENT, "workspace:lab-5");
    const stored = await inObject(agent, async (_instance, state) => ({
      watches: state.storage.sql.exec("SELECT name FROM watches").toArray(),
      library: state.storage.sql.exec("SELECT id FROM library").toArray(),
    }));
    expect(stored).toEqual({ watches: [{ name: "kept" }], library: [{ id: "0704.0001" }] });
  });
});

describe("version history in arxiv_get_metadata", () => {
  it("lists every version with its date from the mirror", async () => {
    await seedMirror();
    const record = sampleRecords().find((r) => r.versions.length > 1)!;
    const paper = ok(await callTool("arxiv_get_metadata", { paper_ids: [record.id] })).papers[0];
    expect(paper.versions).toEqual(
      record.versions.map((seconds, i) => ({
        version: i + 1,
        date: new Date(seconds * 1000).toISOString().replace(".000Z", "Z"),
      })),
    );
  });
});
