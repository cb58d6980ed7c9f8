// src/agent/versions.ts over a client's agent storage: a saved paper's newer version is reported once.
import { beforeEach, describe, expect, it } from "vitest";
import { addPapers } from "../../src/agent/library";
import { latestVersions, newVersions } from "../../src/agent/versions";
import { sampleRecords, seedMirror } from "../mirror/driver";
import { harvest, withStore } from "../support/agent";

beforeEach(async () => {
  await seedMirror();
});

describe("versions module", () => {
  it("reports a saved paper's newer version once, and only when asked to record it", async () => {
    const identity = "workspace:versions-module";
    const paper = sampleRecords().find((record) => record.versions.length === 1)!;
    await withStore(identity, (store) => addPapers(store, [{ id: paper.id }]));
    expect(await withStore(identity, (store) => newVersions(store, true))).toEqual([]);
    // The mirror gains v2 of the saved paper.
    await harvest([
      { ...paper, versions: [...paper.versions, paper.versions[0]! + 86_400 * 30], datestamp: "2026-11-30" },
    ]);
    const latest = await withStore(identity, (store) => latestVersions(store, [paper.id]));
    expect(latest.get(paper.id)?.version).toBe(2);
    const peek = await withStore(identity, (store) => newVersions(store, false));
    expect(peek.map((saved) => [saved.id, saved.saved_version, saved.latest_version])).toEqual([[paper.id, 1, 2]]);
    expect((await withStore(identity, (store) => newVersions(store, true))).map((saved) => saved.id)).toEqual([
      paper.id,
    ]);
    expect(await withStore(identity, (store) => newVersions(store, true))).toEqual([]);
  });
});
