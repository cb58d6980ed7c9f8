// arxiv_list_categories: the taxonomy, filtered by group and archive, with aliases marked.

import { describe, expect, it } from "vitest";
import { callTool, toolError } from "../helpers";

describe("arxiv_list_categories", () => {
  it("returns the ~155 active categories across the 8 groups", async () => {
    const result = await callTool("arxiv_list_categories", {});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.count).toBe(155);
    const groups = new Set(result.structuredContent.categories.map((c: { group: string }) => c.group));
    expect([...groups].sort()).toEqual(["cs", "econ", "eess", "math", "physics", "q-bio", "q-fin", "stat"]);
    expect(result.structuredContent.categories).toContainEqual({
      code: "cs.CL",
      name: "Computation and Language",
      group: "cs",
      group_name: "Computer Science",
      archive: "cs",
      archive_name: "Computer Science",
    });
    expect(result.content[0]!.text).toContain("cs.CL\tComputation and Language");
  });

  it("filters by group, case-insensitively", async () => {
    const result = await callTool("arxiv_list_categories", { group: "ECON" });
    expect(result.structuredContent.categories.map((c: { code: string }) => c.code)).toEqual([
      "econ.EM",
      "econ.GN",
      "econ.TH",
    ]);
  });

  it("filters by archive inside a group (astro-ph is one archive of physics)", async () => {
    const result = await callTool("arxiv_list_categories", { group: "astro-ph" });
    const codes = result.structuredContent.categories.map((c: { code: string }) => c.code);
    expect(codes).toContain("astro-ph.GA");
    expect(codes.every((code: string) => code.startsWith("astro-ph"))).toBe(true);
  });

  it("marks aliases", async () => {
    const result = await callTool("arxiv_list_categories", { group: "math" });
    expect(result.structuredContent.categories).toContainEqual(
      expect.objectContaining({ code: "math.IT", alias_of: "cs.IT" }),
    );
  });

  it("fails an unknown group with invalid_group and the valid choices", async () => {
    const result = await callTool("arxiv_list_categories", { group: "biology" });
    expect(result.structuredContent).toBeUndefined();
    const error = toolError(result);
    expect(error).toMatchObject({ reason: "invalid_group", retryable: false });
    expect(error.recovery).toContain("q-bio");
  });
});
