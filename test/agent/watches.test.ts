// src/agent/watches.ts over a client's agent storage: creating, listing, checking and deleting.
import { beforeEach, describe, expect, it } from "vitest";
import { checkWatches, createWatch, deleteWatch, listWatches } from "../../src/agent/watches";
import { seedMirror } from "../mirror/driver";
import { harvest, newPaper, withStore } from "../support/agent";

beforeEach(async () => {
  await seedMirror();
});

describe("watches module", () => {
  it("follows one thing per watch, and names the watches it has when one is unknown", async () => {
    const identity = "workspace:watch-module-1";
    const two = await withStore(identity, (store) =>
      createWatch(store, { name: "both", arxiv_query: "ti:lattice", nber_query: "labor" }),
    );
    expect(two).toMatchObject({ ok: false, error: { reason: "invalid_watch" } });
    const made = await withStore(identity, (store) =>
      createWatch(store, { name: "lattice", arxiv_query: "ti:lattice" }),
    );
    expect(made).toMatchObject({ ok: true, watch: { name: "lattice", source: "arxiv", query: "ti:lattice" } });
    const again = await withStore(identity, (store) => createWatch(store, { name: "lattice", arxiv_query: "ti:spin" }));
    expect(again).toMatchObject({ ok: false, error: { reason: "watch_exists" } });
    expect((await withStore(identity, (store) => listWatches(store))).watches.map((watch) => watch.name)).toEqual([
      "lattice",
    ]);
    const unknown = await withStore(identity, (store) => deleteWatch(store, "nope"));
    expect(unknown).toMatchObject({ ok: false, error: { reason: "no_such_watch" } });
    if (!unknown.ok) expect(unknown.error.recovery).toContain("(lattice)");
  });

  it("reports a paper that entered the mirror after the mark, once", async () => {
    const identity = "workspace:watch-module-2";
    await withStore(identity, (store) => createWatch(store, { name: "zeno", arxiv_query: "ti:zeno" }));
    await harvest([newPaper("2611.00001", "A Zeno effect in a new module test", ["quant-ph"])]);
    const first = await withStore(identity, (store) => checkWatches(store));
    expect(first.ok && first.news[0]!.new_papers.map((paper) => paper.id)).toEqual(["2611.00001"]);
    const second = await withStore(identity, (store) => checkWatches(store, "zeno"));
    expect(second.ok && second.news[0]!.new_papers).toEqual([]);
    expect(await withStore(identity, (store) => deleteWatch(store, "zeno"))).toMatchObject({ ok: true });
  });
});
