// Impact lists: stored text that gives back every paper key exactly and each weight within its
// quantization step, and partial sums that equal a plain Map's, whatever the number of papers.
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../test/support/random";
import { PartialScores, encodeImpacts, forEachImpact, impactDepth } from "./impacts";

const decode = (stored: string) => {
  const out: [number, number][] = [];
  forEachImpact(stored, (key, weight) => out.push([key, weight]));
  return out;
};

describe("impact lists", () => {
  it("give back every paper key exactly, in key order, and each weight within one step (1/255 of the ceiling)", () => {
    const random = mulberry32(11);
    // Keys as arxiv-key.ts makes them (month index x 10^6 + position): past 2^31, with gaps of a month.
    const postings = Array.from(
      { length: 5_000 },
      (_, i) => [24_000_000_000 + Math.floor(random() * 300) * 1_000_000 + i, random() * 2.2] as const,
    );
    const decoded = decode(encodeImpacts(postings));
    const sorted = [...postings].sort((a, b) => a[0] - b[0]);
    expect(decoded.map(([key]) => key)).toEqual(sorted.map(([key]) => key));
    for (const [i, [, weight]] of decoded.entries())
      expect(Math.abs(weight - sorted[i]![1])).toBeLessThanOrEqual(2.2 / 255 + 1e-12);
  });

  it("keep a weight near zero above zero (the paper holds the word) and encode an empty list", () => {
    expect(decode(encodeImpacts([[7, 1e-6]]))[0]![1]).toBeGreaterThan(0);
    expect(decode(encodeImpacts([]))).toEqual([]);
  });

  it("are about 1% of the mirror deep, within bounds", () => {
    expect(impactDepth(20_000)).toBe(2_000);
    expect(impactDepth(1_000_000)).toBe(10_000);
    expect(impactDepth(3_200_000)).toBe(32_000);
    expect(impactDepth(10_000_000)).toBe(40_000);
  });
});

describe("partial sums", () => {
  it("equal a Map's sums and give the same best keys (ties: the higher key first), growing past their first size", () => {
    const random = mulberry32(12);
    const table = new PartialScores(100);
    const reference = new Map<number, number>();
    for (let i = 0; i < 120_000; i++) {
      const key = 24_100_000_000 + Math.floor(random() * 200) * 1_000_000 + Math.floor(random() * 500);
      // Quarter steps make ties among equal sums.
      const score = Math.floor(random() * 8) / 4;
      table.add(key, score);
      reference.set(key, (reference.get(key) ?? 0) + score);
    }
    expect(table.size).toBe(reference.size);
    const expected = [...reference]
      .sort((a, b) => b[1] - a[1] || b[0] - a[0])
      .slice(0, 300)
      .map(([key]) => key);
    expect(table.top(300)).toEqual(expected);
    expect(table.top(reference.size + 10)).toHaveLength(reference.size);
  });
});
