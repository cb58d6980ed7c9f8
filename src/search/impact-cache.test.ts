// The isolate's impact-list cache: least recently used out first, bounded by the bytes it holds.
import { describe, expect, it } from "vitest";
import { ImpactListCache } from "./impact-cache";
import { decodeImpactList, decodeImpacts, encodeImpacts, scaledImpacts } from "./impacts";

/** A held list of `papers` papers: 5 bytes each and 200 for the objects (1,000 bytes at 160). */
const list = (papers: number, docs = 1) => ({
  docs,
  chars: papers * 4,
  stamp: 0,
  list: { base: 0, offsets: new Uint32Array(papers), weights: new Uint8Array(papers) },
});

describe("the impact-list cache", () => {
  it("holds lists up to its size in bytes, dropping the least recently used first", () => {
    const cache = new ImpactListCache(2_500);
    cache.put("a", list(160));
    cache.put("b", list(160));
    expect(cache.get("a")).toBeDefined(); // a is now the most recently used
    cache.put("c", list(160)); // 3,000 > 2,500: b goes
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
    expect(cache.heldBytes).toBe(2_000);
  });

  it("replaces a list in place and never holds one larger than itself", () => {
    const cache = new ImpactListCache(2_500);
    cache.put("a", list(160, 1));
    cache.put("a", list(200, 2));
    expect(cache.size).toBe(1);
    expect(cache.heldBytes).toBe(1_200);
    expect(cache.get("a")?.docs).toBe(2);
    cache.put("huge", list(461));
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    // A list replaced by one too large to hold is gone, not left stale.
    cache.put("a", list(1_000, 3));
    expect(cache.get("a")).toBeUndefined();
    expect(cache.heldBytes).toBe(0);
  });

  it("holds a list decoded: scaled per query, it gives what decoding the stored text gives", () => {
    // Keys as the mirror's are (month index x 1,000,000 + position: over 2^32): 1991 and 2026, and neighbours.
    const postings: [number, number][] = [
      [24_300_000_123, 2.2],
      [23_892_000_001, 0.01],
      [24_300_000_124, 1.1],
      [24_311_104_999, 0.5],
    ];
    const stored = encodeImpacts(postings);
    const held = decodeImpactList(stored);
    expect(held.offsets.length).toBe(4);
    expect(scaledImpacts(held, 3.5)).toEqual(decodeImpacts(stored, 3.5));
    expect([...scaledImpacts(held).keys]).toEqual(postings.map(([key]) => key).sort((a, b) => a - b));
    const empty = decodeImpactList(encodeImpacts([]));
    expect(scaledImpacts(empty, 2).keys.length).toBe(0);
  });
});
