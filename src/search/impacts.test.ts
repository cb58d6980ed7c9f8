// Impact lists: stored text that gives back every paper key exactly and each weight within its
// quantization step, and best sums that equal a plain Map's, however the lists' keys are spread.
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../test/support/random";
import { bestSums, decodeImpacts, encodeImpacts, impactDepth, type KeyedScores } from "./impacts";

const decode = (stored: string) => {
  const { keys, scores } = decodeImpacts(stored);
  return [...keys].map((key, i) => [key, scores[i]!] as const);
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

describe("best sums over key-sorted lists", () => {
  const reference = (lists: KeyedScores[], n: number) => {
    const sums = new Map<number, number>();
    for (const { keys, scores } of lists)
      for (const [i, key] of keys.entries()) sums.set(key, (sums.get(key) ?? 0) + scores[i]!);
    return [...sums]
      .sort((a, b) => b[1] - a[1] || b[0] - a[0])
      .slice(0, n)
      .map(([key]) => key);
  };
  const list = (entries: [number, number][]): KeyedScores => {
    const sorted = [...new Map(entries)].sort((a, b) => a[0] - b[0]);
    return { keys: Float64Array.from(sorted, ([key]) => key), scores: Float64Array.from(sorted, ([, score]) => score) };
  };

  it("equal a Map's sums and give the same best keys (ties: the higher key first)", () => {
    const random = mulberry32(12);
    // Twelve lists over the same months, as a question's words have; quarter steps make ties.
    const lists = Array.from({ length: 12 }, () =>
      list(
        Array.from({ length: 10_000 }, () => [
          24_100_000_000 + Math.floor(random() * 200) * 1_000_000 + Math.floor(random() * 500),
          Math.floor(random() * 8) / 4,
        ]),
      ),
    );
    expect(bestSums(lists, 300)).toEqual(reference(lists, 300));
    const all = reference(lists, Number.POSITIVE_INFINITY);
    expect(bestSums(lists, all.length + 10)).toEqual(all);
  });

  it("stay exact when one list crowds a key range the others leave empty (the range's table grows)", () => {
    const random = mulberry32(13);
    const spread = list(Array.from({ length: 2_000 }, (_, i) => [24_000_000_000 + i * 1_000_000, random()]));
    // 20,000 papers of one month: all between two of the spread list's keys.
    const crowded = list(Array.from({ length: 20_000 }, (_, i) => [24_500_000_000 + 100_000 + i, random()]));
    const lists = [spread, crowded, list([[24_500_000_000 + 100_005, 5]])];
    expect(bestSums(lists, 1_000)).toEqual(reference(lists, 1_000));
    expect(bestSums(lists, 1)).toEqual([24_500_000_000 + 100_005]);
  });

  it("give nothing for no lists, empty lists or n = 0", () => {
    expect(bestSums([], 10)).toEqual([]);
    expect(bestSums([list([])], 10)).toEqual([]);
    expect(bestSums([list([[5, 1]])], 0)).toEqual([]);
  });
});
