// nber_get_paper_info: the paper page parsed and cached with its age shown, typed misses, and the links to
// other sources. NBER pages are hand-made fixtures in the documented shape.

import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { countRows } from "../../src/store/nber-logs";
import { callTool, resetUpstream, toolError, upstreamHits, dbRows } from "../helpers";
import { sampleRecords, seedMirror } from "../mirror/driver";

beforeEach(resetUpstream);
describe("nber_get_paper_info", () => {
  it("parses the paper page, caches it, and shows the cache's age on the next call", async () => {
    const live = await callTool("nber_get_paper_info", { paper_id: "https://www.nber.org/papers/w10000" });
    expect(live.structuredContent).toMatchObject({
      id: "w10000",
      title: "Trade Wars: The Exaggerated Impact of Trade in Economic Debate",
      authors: ["Richard B. Freeman"],
      date: "2003-10-26",
      doi: "10.3386/w10000",
      pdf_url: "https://www.nber.org/system/files/working_papers/w10000/w10000.pdf",
      topics: ["Labor Economics", "Labor Relations"],
      programs: ["International Trade and Investment", "Labor Studies"],
      jel_codes: ["F16", "J51"],
      served_from: "live",
    });
    expect(live.structuredContent.abstract).toMatch(/^The rules governing trade and capital flows/);
    expect(live.structuredContent.abstract).toContain("race to the bottom'.");
    expect(live.structuredContent.published_version).toContain("Placeholder Journal of Hand-made Tests");

    const cached = await callTool("nber_get_paper_info", { paper_id: "10000", include_all: false });
    expect(cached.structuredContent).toMatchObject({ served_from: "cache" });
    expect(cached.structuredContent.cache_age_seconds).toBeGreaterThanOrEqual(0);
    expect(cached.structuredContent.topics).toBeUndefined();
    // One NBER page; OpenAlex was asked once for a count (it has no w10000 here) and not again.
    expect((await upstreamHits()).map((hit) => hit.path.split("/")[1])).toEqual(["nber", "openalex"]);

    const refreshed = await callTool("nber_get_paper_info", { paper_id: "W10000", refresh: true });
    expect(refreshed.structuredContent.served_from).toBe("live");
    expect(await dbRows("SELECT served_from FROM info_log ORDER BY id")).toEqual([
      { served_from: "live" },
      { served_from: "cache" },
      { served_from: "live" },
    ]);
    expect(await dbRows("SELECT paper_id, fetch_count FROM info_cache")).toEqual([
      { paper_id: "w10000", fetch_count: 2 },
    ]);
    // The page's abstract enriches the mirror.
    expect((await dbRows("SELECT abstract FROM nber_papers WHERE id = 'w10000'"))[0]!.abstract).toMatch(
      /^The rules governing/,
    );
  });

  it("decodes entities and drops tags in the abstract", async () => {
    const info = await callTool("nber_get_paper_info", { paper_id: "w33509" });
    expect(info.structuredContent.abstract).toBe(
      "Placeholder abstract of a hand-made page: this is not NBER's text & stands in for it.",
    );
    expect(info.structuredContent.authors).toEqual([
      "Menaka Hampole",
      "Dimitris Papanikolaou",
      "Lawrence D.W. Schmidt",
      "Bryan Seegmiller",
    ]);
  });

  it("an unknown paper is no_match; a page without metadata is upstream_malformed; neither is cached", async () => {
    expect(toolError(await callTool("nber_get_paper_info", { paper_id: "w99999" })).reason).toBe("no_match");
    expect(toolError(await callTool("nber_get_paper_info", { paper_id: "w10002" })).reason).toBe("upstream_malformed");
    expect(await countRows(env.DB, "info_cache")).toBe(0);
    expect(await dbRows("SELECT paper_id, served_from, error FROM info_log ORDER BY id")).toEqual([
      { paper_id: "w99999", served_from: null, error: "no_match" },
      { paper_id: "w10002", served_from: null, error: "upstream_malformed" },
    ]);
  });

  it("a bad ID is invalid_id, with nothing logged and no request", async () => {
    expect(toolError(await callTool("nber_get_paper_info", { paper_id: "../../etc/passwd" })).reason).toBe(
      "invalid_id",
    );
    expect(await countRows(env.DB, "info_log")).toBe(0);
    expect(await upstreamHits()).toHaveLength(0);
  });
});

describe("links across sources", () => {
  it("gives an NBER paper its DOI, its published version's DOI and its arXiv version when the mirror holds one", async () => {
    // A hand-made arXiv record with the title and author of NBER's w10000 (no such arXiv paper exists).
    const [template] = sampleRecords();
    await seedMirror([
      ...sampleRecords(),
      {
        ...template!,
        id: "0704.9990",
        title: "Trade Wars: The Exaggerated Impact of Trade in Economic Debate",
        authors: "Richard B. Freeman",
        versions: [Date.UTC(2003, 10, 1) / 1000],
        doi: null,
        journal_ref: null,
      },
    ]);
    const result = await callTool("nber_get_paper_info", { paper_id: "w10000" });
    expect(result.isError).toBeFalsy();
    const links = result.structuredContent.links as { kind: string; id_or_doi: string; how: string }[];
    expect(links.map((link) => [link.kind, link.id_or_doi])).toEqual([
      ["nber_doi", "10.3386/w10000"],
      ["published_doi", "10.0000/placeholder"],
      ["arxiv_version", "0704.9990"],
    ]);
    expect(links[2]!.how).toMatch(
      /title and authors match in the arXiv mirror \(confidence 0\.98, title exact, surnames 1 of 1\)/,
    );
    // A paper without an arXiv version gets none.
    const other = await callTool("nber_get_paper_info", { paper_id: "w33509" });
    expect((other.structuredContent.links as { kind: string }[]).map((link) => link.kind)).toEqual(["nber_doi"]);
  });
});
