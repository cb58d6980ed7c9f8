// papers_find_in_paper: the passages of a read paper that hold the question's words, on HTML, PDF and NBER text.

import { beforeEach, describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/sources/text/tokens";
import { callTool, resetUpstream, toolError, upstreamHits, callToolOk } from "../helpers";

beforeEach(resetUpstream);

const read = (args: Record<string, unknown>) => callToolOk("arxiv_read_paper", args);

describe("papers_find_in_paper", () => {
  it("answers the passages that hold the question's words, with their sections and offsets into the read text", async () => {
    const result = await callToolOk("papers_find_in_paper", {
      paper_id: "2501.11120v1",
      query: "Which backdoor triggers did the models learn?",
      max_passages: 3,
    });
    expect(result.passages).toHaveLength(3);
    const whole = await read({ paper_id: "2501.11120v1", max_characters: null });
    for (const passage of result.passages) {
      expect(whole.text.slice(passage.start, passage.end)).toBe(passage.text);
      expect(passage.text.toLowerCase()).toMatch(/backdoor|trigger/);
      expect(estimateTokens(passage.text)).toBeLessThan(700);
    }
    expect(result.passages[0].score).toBeGreaterThanOrEqual(result.passages[2].score);
    expect(result.passages.some((p: { section_title: string | null }) => /backdoor/i.test(p.section_title ?? ""))).toBe(
      true,
    );
  });

  it("works on PDF text and on NBER papers, from the cache after the first read", async () => {
    const arxiv = await callToolOk("papers_find_in_paper", { paper_id: "hep-th/9108004v1", query: "ground ring" });
    expect(arxiv.passages[0].section_title).toMatch(/Ground Ring/i);
    await callToolOk("papers_find_in_paper", { paper_id: "w10000", query: "circular orbits stability" });
    const before = (await upstreamHits()).length;
    const nber = await callToolOk("papers_find_in_paper", { paper_id: "w10000", query: "circular orbits stability" });
    expect(nber).toMatchObject({ paper_id: "w10000", source: "pdf_text", served_from: "cache" });
    expect(nber.passages.length).toBeGreaterThan(0);
    expect((await upstreamHits()).length).toBe(before);
  });

  it("passes on the read's typed error for a paper without text", async () => {
    const error = toolError(await callTool("papers_find_in_paper", { paper_id: "2401.00002v1", query: "river raft" }));
    expect(error.reason).toBe("pdf_extraction_failed");
    expect(error.message).toMatch(/no text layer/);
  });

  it("says so when nothing matches, and refuses a question without words, an oversized one or a bad ID", async () => {
    const none = await callToolOk("papers_find_in_paper", { paper_id: "1512.03905v1", query: "zebrafish husbandry" });
    expect(none.passages).toEqual([]);
    expect(none.notices[0]).toMatch(
      /No passage contains any of the question's words \(zebrafish, husbandri\)\. The paper's sections: INTRODUCTION/,
    );
    expect(toolError(await callTool("papers_find_in_paper", { paper_id: "1512.03905v1", query: "?!" })).reason).toBe(
      "invalid_query",
    );
    expect(
      toolError(await callTool("papers_find_in_paper", { paper_id: "1512.03905v1", query: "x".repeat(1_001) })).reason,
    ).toBe("invalid_argument");
    expect(
      toolError(await callTool("papers_find_in_paper", { paper_id: "nonsense", query: "ground ring" })).reason,
    ).toBe("invalid_id");
  });
});
