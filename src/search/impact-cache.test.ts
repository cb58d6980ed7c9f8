// The isolate's impact-list cache: least recently used out first, bounded by the text it holds.
import { describe, expect, it } from "vitest";
import { ImpactListCache } from "./impact-cache";

const list = (chars: number, docs = 1) => ({ docs, postings: "x".repeat(chars) });

describe("the impact-list cache", () => {
  it("holds lists up to its size in characters, dropping the least recently used first", () => {
    const cache = new ImpactListCache(100);
    cache.put("a", list(40));
    cache.put("b", list(40));
    expect(cache.get("a")).toBeDefined(); // a is now the most recently used
    cache.put("c", list(40)); // 120 > 100: b goes
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
    expect(cache.heldChars).toBe(80);
  });

  it("replaces a list in place and never holds one larger than itself", () => {
    const cache = new ImpactListCache(100);
    cache.put("a", list(40, 1));
    cache.put("a", list(60, 2));
    expect(cache.size).toBe(1);
    expect(cache.heldChars).toBe(60);
    expect(cache.get("a")?.docs).toBe(2);
    cache.put("huge", list(101));
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    // A list replaced by one too large to hold is gone, not left stale.
    cache.put("a", list(500, 3));
    expect(cache.get("a")).toBeUndefined();
    expect(cache.heldChars).toBe(0);
  });
});
