// papers_watch (the research agent, one Agent Durable Object per identity): watches over both mirrors that
// report each new paper once.

import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { beforeEach, describe, expect, it } from "vitest";
import { upsertMirror } from "../../src/store/nber-mirror";
import { callTool, resetUpstream, upstreamHits, reasonOf, structuredOf } from "../helpers";
import { seedMirror } from "../mirror/driver";
import { estimateTokens } from "../../src/sources/text/tokens";
import { clearMemoryCache } from "../../src/store/cache";
import { TOKENS, as, harvest, inObject, newPaper, workspace } from "../support/agent";

beforeEach(resetUpstream);
describe("papers_watch", () => {
  beforeEach(() => seedMirror());

  it("reports exactly the papers that entered the mirror since the last check, once", async () => {
    const created = structuredOf(
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
    expect(structuredOf(await as(TOKENS[0]!, "papers_watch", { action: "check" })).news[0]).toMatchObject({
      new_count: 0,
      new_papers: [],
    });

    await harvest([
      newPaper("2611.00001", "A quantum walk on graphs", ["quant-ph"]),
      newPaper("2611.00002", "Classical fluids in pipes", ["physics.flu-dyn"]),
      newPaper("2611.00003", "Quantum error correction codes", ["quant-ph", "cs.IT"]),
      newPaper("2611.00004", "Quantum gravity without walks", ["gr-qc"]),
    ]);
    const check = structuredOf(await as(TOKENS[0]!, "papers_watch", { action: "check", watch: "quantum walks" }));
    expect(check.news[0].new_papers.map((paper: { id: string }) => paper.id)).toEqual(["2611.00003", "2611.00001"]);
    expect(check.news[0]).toMatchObject({ new_count: 2, count_is_lower_bound: false, from_precomputed: false });
    const again = structuredOf(await as(TOKENS[0]!, "papers_watch", { action: "check", watch: "quantum walks" }));
    expect(again.news[0].new_count).toBe(0);
    // Checks read the mirror only.
    expect((await upstreamHits()).filter((hit) => hit.path.startsWith("/arxiv"))).toEqual([]);
  });

  it("checks as many watches as fit 20,000 tokens, and leaves the rest unchecked with their news kept", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `quantum ${i}`);
    for (const name of names)
      structuredOf(await as(TOKENS[1]!, "papers_watch", { action: "create", name, arxiv_query: "ti:quantum" }));
    // 50 new papers each watch matches, each with a collaboration's 400 authors (news names three).
    await harvest(
      Array.from({ length: 50 }, (_, i) => ({
        ...newPaper(`2611.${String(100 + i).padStart(5, "0")}`, `Quantum measurement number ${i} of a series`, [
          "quant-ph",
        ]),
        authors: Array.from({ length: 400 }, (_, n) => `A. Author${n}`).join(", "),
      })),
    );
    const first = await as(TOKENS[1]!, "papers_watch", { action: "check" });
    expect(estimateTokens(JSON.stringify(first))).toBeLessThan(20_000);
    const checked = structuredOf(first);
    expect(checked.news.length).toBeGreaterThan(0);
    expect(checked.news.length).toBeLessThan(names.length);
    expect(checked.news[0].new_papers[0]).toMatchObject({
      authors: ["A. Author0", "A. Author1", "A. Author2"],
      authors_total: 400,
    });
    expect(checked.unchecked).toEqual(names.slice(checked.news.length));
    expect(first.content[0].text).toContain(
      `Not checked yet, to keep this answer within 16,000 tokens (their news is kept): ${names[checked.news.length]}`,
    );
    // The unchecked watches still have their news; the checked ones have none left.
    const next = structuredOf(await as(TOKENS[1]!, "papers_watch", { action: "check", watch: checked.unchecked[0] }));
    expect(next.news[0].new_count).toBe(50);
    const again = structuredOf(await as(TOKENS[1]!, "papers_watch", { action: "check", watch: names[0] }));
    expect(again.news[0].new_count).toBe(0);
  });

  it("answers a check from the news its daily schedule computed after the harvest", async () => {
    structuredOf(await workspace("lab-1", { action: "create", name: "codes", arxiv_query: "ti:codes" }));
    await harvest([newPaper("2611.00010", "Short codes for qubits", ["quant-ph"])]);
    const agent = await getAgentByName(env.RESEARCH_AGENT, "workspace:lab-1");
    const run = await agent.precomputeNews();
    expect(run.watches).toBe(1);
    const check = structuredOf(await workspace("lab-1", { action: "check" }));
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
    structuredOf(await workspace("lab-2", { action: "create", name: "wages", nber_query: "minimum wage" }));
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
    const check = structuredOf(await workspace("lab-2", { action: "check" }));
    expect(check.news[0].new_papers.map((paper: { id: string }) => paper.id)).toEqual(["w30001"]);
  });

  it("refuses what it cannot do, each with a typed error", async () => {
    expect(reasonOf(await workspace("lab-3", { action: "create", name: "short prefix", arxiv_query: "e*" }))).toBe(
      "watch_unanswerable",
    );
    expect(
      reasonOf(await workspace("lab-3", { action: "create", name: "both", arxiv_query: "ti:x", nber_query: "y" })),
    ).toBe("invalid_watch");
    expect(reasonOf(await workspace("lab-3", { action: "create", arxiv_query: "ti:lattice" }))).toBe(
      "invalid_argument",
    );
    expect(
      reasonOf(await workspace("lab-3", { action: "create", name: "bad grammar", arxiv_query: "ti:(lattice" })),
    ).toBe("invalid_query");
    expect(reasonOf(await workspace("lab-3", { action: "delete", watch: "nope" }))).toBe("no_such_watch");
    for (let i = 0; i < 50; i++)
      structuredOf(await workspace("lab-3", { action: "create", name: `w${i}`, arxiv_query: "ti:lattice" }));
    expect(
      reasonOf(await workspace("lab-3", { action: "create", name: "one too many", arxiv_query: "ti:lattice" })),
    ).toBe("too_many_watches");
    expect(reasonOf(await workspace("lab-3", { action: "create", name: "w1", arxiv_query: "ti:lattice" }))).toBe(
      "too_many_watches",
    );
    // Without an identity (AUTH_MODE=none and no workspace) there is no state to use.
    expect(reasonOf(await callTool("papers_watch", { action: "list" }))).toBe("no_identity");
  });

  it("a citation watch reports new works citing the paper, once, and its schedule precomputes them", async () => {
    // OpenAlex's listing as it was when the watch was made: the recorded newest-first page minus its
    // newest work (the page is cached, so the watch reads it from there).
    await callTool("papers_citations", { id: "2007.14454", sort: "newest" });
    const key = "openalex:list:W3045921891:cited_by:newest:0";
    const row = await env.DB.prepare("SELECT value FROM api_cache WHERE key = ?").bind(key).first<{ value: string }>();
    const chunk = JSON.parse(row!.value);
    const [newest, ...older] = chunk.works;
    await env.DB.prepare("UPDATE api_cache SET value = ? WHERE key = ?")
      .bind(JSON.stringify({ ...chunk, works: older, count: older.length }), key)
      .run();
    clearMemoryCache();
    const created = structuredOf(
      await workspace("lab-cites", { action: "create", name: "who cites", cites: "arXiv:2007.14454" }),
    );
    expect(created.watches[0]).toMatchObject({ source: "citations", query: "2007.14454" });

    // Now OpenAlex lists one more citing work.
    await env.DB.prepare("DELETE FROM api_cache WHERE key LIKE 'openalex:list:%'").run();
    clearMemoryCache();
    const agent = await getAgentByName(env.RESEARCH_AGENT, "workspace:lab-cites");
    expect((await agent.precomputeNews()).watches).toBe(1);
    const check = structuredOf(await workspace("lab-cites", { action: "check" }));
    expect(check.news[0]).toMatchObject({ new_count: 1, from_precomputed: true, count_is_lower_bound: false });
    expect(check.news[0].new_papers).toEqual([
      expect.objectContaining({ id: newest.arxiv_id ?? `doi:${newest.doi}`, title: newest.title }),
    ]);
    const again = structuredOf(await workspace("lab-cites", { action: "check" }));
    expect(again.news[0].new_count).toBe(0);
  });

  it("a citation watch needs a paper OpenAlex knows, and one thing to follow", async () => {
    expect(reasonOf(await workspace("lab-x", { action: "create", name: "new", cites: "2501.99999" }))).toBe(
      "not_in_openalex",
    );
    expect(reasonOf(await workspace("lab-x", { action: "create", name: "bad", cites: "not a paper" }))).toBe(
      "invalid_id",
    );
    expect(
      reasonOf(await workspace("lab-x", { action: "create", name: "two", cites: "2007.14454", nber_query: "wages" })),
    ).toBe("invalid_watch");
  });
});
