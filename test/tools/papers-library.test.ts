// papers_library (the research agent): saved papers with tags and notes, export by tag, new versions.

import { beforeEach, describe, expect, it } from "vitest";
import { resetUpstream, reasonOf, structuredOf } from "../helpers";
import { sampleRecords, seedMirror } from "../mirror/driver";
import { estimateTokens } from "../../src/sources/text/tokens";
import { TOKENS, as, harvest, workspace } from "../support/agent";

beforeEach(resetUpstream);
describe("papers_library", () => {
  beforeEach(() => seedMirror());

  it("lists a large library in pages within 20,000 tokens, the resource too, and every paper once", async () => {
    const ids = sampleRecords()
      .map((record) => record.id)
      .slice(0, 200);
    const note = "A long note on why this paper matters. ".repeat(60).slice(0, 2_000);
    for (let i = 0; i < ids.length; i += 50)
      structuredOf(
        await workspace("big-library", { action: "add", ids: ids.slice(i, i + 50), note }, "papers_library"),
      );
    const seen: string[] = [];
    let start: number | null = 0;
    let pages = 0;
    while (start !== null) {
      const result = await workspace("big-library", { action: "list", start }, "papers_library");
      expect(estimateTokens(JSON.stringify(result))).toBeLessThan(20_000);
      const page = structuredOf(result);
      expect(page.total).toBe(200);
      seen.push(...page.papers.map((paper: { id: string }) => paper.id));
      if (page.next_start !== null)
        expect(result.content[0].text).toContain(`call again with start=${page.next_start}`);
      start = page.next_start;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(seen.sort()).toEqual([...ids].map((id) => id.replace(/v\d+$/, "")).sort());
    const { mcpCallWith } = await import("../helpers");
    const read = await mcpCallWith(
      "resources/read",
      { uri: "papers://library" },
      {},
      { "x-papers-workspace": "big-library" },
    );
    const text = read.message.result.contents[0].text as string;
    expect(estimateTokens(text)).toBeLessThan(20_000);
    expect(JSON.parse(text)).toMatchObject({
      total: 200,
      more: expect.stringMatching(/^papers_library action=list start=\d+$/),
    });
  });

  it("saves papers with tags and a note, lists them by tag, removes them, and exports a tag", async () => {
    const added = structuredOf(
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
    structuredOf(await as(TOKENS[0]!, "papers_library", { action: "add", ids: ["0704.0007"], tags: ["other"] }));
    expect(
      structuredOf(await as(TOKENS[0]!, "papers_library", { action: "list", tag: "diphoton" }))
        .papers.map((paper: { id: string }) => paper.id)
        .sort(),
    ).toEqual(["0704.0001", "w10000"]);
    const exported = structuredOf(
      await as(TOKENS[0]!, "papers_export_citations", { tag: "to-read", format: "bibtex" }),
    );
    expect(exported.entries.map((entry: { id: string }) => entry.id).sort()).toEqual(["0704.0001", "w10000"]);
    const removed = structuredOf(
      await as(TOKENS[0]!, "papers_library", { action: "remove", ids: ["0704.0001", "9999.99999"] }),
    );
    expect(removed).toMatchObject({ removed: ["0704.0001"], not_found: ["9999.99999"] });
    expect(
      structuredOf(await as(TOKENS[0]!, "papers_library", { action: "list" }))
        .papers.map((paper: { id: string }) => paper.id)
        .sort(),
    ).toEqual(["0704.0007", "w10000"]);
    expect(
      reasonOf(await as(TOKENS[0]!, "papers_library", { action: "add", ids: ["0704.0001"], note: "x".repeat(2_001) })),
    ).toBe("invalid_argument");
  });

  it("says when a saved paper has a new version, in the list and once in a check", async () => {
    structuredOf(await workspace("lab-4", { action: "add", ids: ["0704.0007"] }, "papers_library"));
    const [record] = sampleRecords().filter((r) => r.id === "0704.0007");
    await harvest([{ ...record!, versions: [...record!.versions, Date.UTC(2026, 10, 30) / 1000] }]);
    const listed = structuredOf(await workspace("lab-4", { action: "list" }, "papers_library")).papers[0];
    expect(listed.latest_version).toBe(listed.saved_version + 1);
    expect(listed.latest_version_date).toBe("2026-11-30");
    const first = structuredOf(await workspace("lab-4", { action: "check" }));
    expect(first.new_versions.map((paper: { id: string }) => paper.id)).toEqual(["0704.0007"]);
    expect(structuredOf(await workspace("lab-4", { action: "check" })).new_versions).toEqual([]);
  });
});
