// src/agent/library.ts over a client's agent storage, without the tool in front of it.
import { beforeEach, describe, expect, it } from "vitest";
import { addPapers, listLibrary, MAX_TAGS, removePapers, taggedIds } from "../../src/agent/library";
import { seedMirror } from "../mirror/driver";
import { withStore } from "../support/agent";

beforeEach(async () => {
  await seedMirror();
});

describe("library module", () => {
  it("saves what it can and says, item by item, why not the rest", async () => {
    const result = await withStore("workspace:lib-module-1", (store) =>
      addPapers(store, [
        { id: "not an id" },
        { id: "0704.0001", note: "x".repeat(2_001) },
        { id: "0704.0002", tags: Array.from({ length: MAX_TAGS + 1 }, (_, i) => `t${i}`) },
        { id: "arXiv:0704.0001v1", tags: ["Lattice", "lattice", " QCD "], note: "read §3" },
      ]),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.not_added.map((miss) => miss.reason)).toEqual(["invalid_id", "note_too_long", "invalid_tags"]);
    expect(result.added).toHaveLength(1);
    expect(result.added[0]).toMatchObject({
      id: "0704.0001",
      source: "arxiv",
      tags: ["lattice", "qcd"],
      note: "read §3",
    });
    expect(result.added[0]!.title).toBeTruthy();
  });

  it("lists by tag, gives the tagged IDs, and removes by any spelling", async () => {
    const identity = "workspace:lib-module-2";
    await withStore(identity, (store) =>
      addPapers(store, [
        { id: "0704.0001", tags: ["a"] },
        { id: "0704.0002", tags: ["a", "b"] },
        { id: "w10000", tags: ["b"] },
      ]),
    );
    const listed = await withStore(identity, (store) => listLibrary(store, "b"));
    expect(listed.papers.map((paper) => paper.id).sort()).toEqual(["0704.0002", "w10000"]);
    expect(listed.total).toBe(2);
    expect((await withStore(identity, (store) => taggedIds(store, " A "))).ids).toEqual(["0704.0001", "0704.0002"]);
    const removed = await withStore(identity, (store) =>
      removePapers(store, ["https://arxiv.org/abs/0704.0001", "0704.9999"]),
    );
    expect(removed).toEqual({ ok: true, removed: ["0704.0001"], not_found: ["0704.9999"] });
  });
});
