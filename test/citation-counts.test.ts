// Citation counts beside metadata (issue 35, item 2): arxiv_get_metadata, nber_get_paper_info and
// the paper resources carry OpenAlex's cited_by_count with its date, from the cache or one free
// lookup; search pages take counts from the cache only and never ask OpenAlex per result.
// 2312.07559 (PaperQA) is in the fake OpenAlex as recorded (cited_by_count 27); its mirror record is
// a sample record renamed to it (hand-made here), so the arXiv side needs no upstream.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  callTool,
  callToolWith,
  capturedLogLines,
  mcpCall,
  mcpCallWith,
  resetUpstream,
  structuredOf,
  upstreamHits,
} from "./helpers";
import { sampleRecords, seedMirror } from "./mirror/driver";
import { env } from "cloudflare:workers";
import { cachePut, clearMemoryCache } from "../src/store/cache";
import { workCacheKey } from "../src/sources/openalex/lookup";

beforeEach(resetUpstream);
afterEach(() => vi.restoreAllMocks());

/** The Worker's log lines of one call (LOG_TOOL_CALLS on). */
async function loggedCall(call: () => Promise<unknown>, event: "tool_call" | "resource_read") {
  const { lines, restore } = capturedLogLines();
  await call();
  const parsed = () => lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
  await vi.waitFor(() => expect(parsed().some((line) => line.event === event)).toBe(true));
  restore();
  return {
    call: parsed().find((line) => line.event === event),
    search: parsed().find((l) => l.event === "mirror_search"),
  };
}

const openAlexHits = async () => (await upstreamHits()).filter((hit) => hit.path.startsWith("/openalex/"));

async function seedPaperQa() {
  const [record] = sampleRecords();
  await seedMirror([
    {
      ...record!,
      id: "2312.07559",
      title: "PaperQA: Retrieval-Augmented Generative Agent for Scientific Research",
      doi: null,
    },
    ...sampleRecords().slice(1, 50),
  ]);
}

describe("citation counts", () => {
  it("arxiv_get_metadata carries cited_by_count and its date: one free lookup, then the cache", async () => {
    await seedPaperQa();
    const first = structuredOf(await callTool("arxiv_get_metadata", { paper_ids: ["2312.07559"] }));
    const today = new Date().toISOString().slice(0, 10);
    expect(first.papers[0]).toMatchObject({ base_id: "2312.07559", cited_by_count: 27, cited_by_count_as_of: today });
    const hits = await openAlexHits();
    expect(hits).toHaveLength(1);
    expect(hits[0]!.path).toMatch(/^\/openalex\/works\/https:\/\/doi\.org\/10\.48550%2Farxiv\.2312\.07559\?select=/);

    await resetUpstream();
    const again = structuredOf(await callTool("arxiv_get_metadata", { paper_ids: ["arXiv:2312.07559v1"] }));
    expect(again.papers[0].cited_by_count).toBe(27);
    expect(await openAlexHits()).toEqual([]);
  });

  it("a search page shows counts the cache holds and asks OpenAlex for none", async () => {
    await seedPaperQa();
    const before = structuredOf(await callTool("arxiv_search_papers", { query: "ti:PaperQA" }));
    expect(before.papers[0].base_id).toBe("2312.07559");
    expect(before.papers[0].cited_by_count).toBeUndefined();
    expect(await openAlexHits()).toEqual([]);

    await callTool("arxiv_get_metadata", { paper_ids: ["2312.07559"] });
    await resetUpstream();
    const after = await callTool("arxiv_search_papers", { query: "ti:PaperQA" });
    expect(structuredOf(after).papers[0].cited_by_count).toBe(27);
    expect(after.content[0]!.text).toContain("cited by 27 (OpenAlex,");
    expect(await openAlexHits()).toEqual([]);
  });

  it("the paper resource carries the count too", async () => {
    await seedPaperQa();
    const { message } = await mcpCall("resources/read", { uri: "arxiv://paper/2312.07559" });
    const paper = JSON.parse(message.result.contents[0].text);
    expect(paper.cited_by_count).toBe(27);
  });

  it("nber_get_paper_info carries the NBER DOI's count (a hand-made work with 1 citation)", async () => {
    const result = await callTool("nber_get_paper_info", { paper_id: "w10000" });
    expect(structuredOf(result)).toMatchObject({ id: "w10000", cited_by_count: 1 });
    expect(result.content[0]!.text).toContain("Cited by 1 (OpenAlex,");
  });

  it("a paper OpenAlex lacks, OpenAlex down, or no key: the metadata comes without a count and without an error", async () => {
    await seedPaperQa();
    const sample = sampleRecords()[1]!.id;
    const lacking = structuredOf(await callTool("arxiv_get_metadata", { paper_ids: [sample] }));
    expect(lacking.papers[0].cited_by_count).toBeUndefined();
    const down = await callToolWith(
      "arxiv_get_metadata",
      { paper_ids: ["2312.07559"] },
      { OPENALEX_BASE_URL: "http://fake.upstream/openalex/_scenario/status-503" },
    );
    expect(down.result.isError).toBeFalsy();
    expect(structuredOf(down.result).papers[0].cited_by_count).toBeUndefined();
    await resetUpstream();
    const keyless = await callToolWith(
      "arxiv_get_metadata",
      { paper_ids: ["2312.07559"] },
      { OPENALEX_API_KEY: undefined },
    );
    expect(structuredOf(keyless.result).papers[0].base_id).toBe("2312.07559");
    expect(await openAlexHits()).toEqual([]);
  });

  it("a lookup of many papers asks OpenAlex for at most three counts", async () => {
    await seedPaperQa();
    const ids = sampleRecords()
      .slice(1, 11)
      .map((record) => record.id);
    await callTool("arxiv_get_metadata", { paper_ids: ids });
    // Each is asked under its arXiv DOI, and under its journal DOI when OpenAlex lacks the first.
    const asked = (await openAlexHits()).filter((hit) => hit.path.includes("10.48550%2Farxiv."));
    expect(asked).toHaveLength(3);
    expect((await openAlexHits()).length).toBeLessThanOrEqual(6);
  });

  it("a count the cache holds comes with the paper's row: no round trip of its own", async () => {
    await seedPaperQa();
    await callTool("arxiv_get_metadata", { paper_ids: ["2312.07559"] });
    await resetUpstream();
    // Another isolate: the count is in D1 only.
    clearMemoryCache();
    const logged = { LOG_TOOL_CALLS: "true" };
    const lookup = await loggedCall(
      async () =>
        expect(
          structuredOf((await callToolWith("arxiv_get_metadata", { paper_ids: ["2312.07559"] }, logged)).result)
            .papers[0].cited_by_count,
        ).toBe(27),
      "tool_call",
    );
    // The mirror's state and the paper's row (with its cached work) in one round.
    expect(lookup.call).toMatchObject({ outcome: "ok", d1_sequential: 1 });
    clearMemoryCache();
    const search = await loggedCall(async () => {
      const page = structuredOf((await callToolWith("arxiv_search_papers", { query: "ti:PaperQA" }, logged)).result);
      expect(page.papers[0].cited_by_count).toBe(27);
    }, "tool_call");
    expect(search.call.d1_sequential).toBe(search.search.sequential);
    clearMemoryCache();
    const resource = await loggedCall(async () => {
      const { message } = await mcpCallWith("resources/read", { uri: "arxiv://paper/2312.07559" }, logged);
      expect(JSON.parse(message.result.contents[0].text).cited_by_count).toBe(27);
    }, "resource_read");
    expect(resource.call.d1_sequential).toBe(1);
    expect(await openAlexHits()).toEqual([]);
  });

  it("a count cached under the paper's journal DOI comes with its row too", async () => {
    const [record] = sampleRecords();
    await seedMirror([
      { ...record!, id: "2312.07559", doi: "10.1000/Journal.Version" },
      ...sampleRecords().slice(1, 20),
    ]);
    const work = {
      openalex_id: "W1",
      title: "t",
      doi: null,
      cited_by_count: 5,
      referenced_works_count: 1,
      counts_by_year: [],
    };
    await cachePut(env.DB, [
      {
        key: workCacheKey("10.48550/arXiv.2312.07559"),
        value: { work: null, fresh_until: Date.now() + 3_600_000 },
        ttlMs: 86_400_000,
      },
      {
        key: workCacheKey("10.1000/journal.version"),
        value: { work, fresh_until: Date.now() + 3_600_000 },
        ttlMs: 86_400_000,
      },
    ]);
    const page = structuredOf(
      await callTool("arxiv_search_papers", { query: `ti:"${record!.title.split(" ").slice(0, 4).join(" ")}"` }),
    );
    expect(page.papers.find((p: { base_id: string }) => p.base_id === "2312.07559")?.cited_by_count).toBe(5);
    expect(await openAlexHits()).toEqual([]);
  });
});
