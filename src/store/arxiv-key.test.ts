// The mirror's key is submission order: old-style IDs of a month before new-style ones, months in
// order, and the month bounds enclose every key of their month.
import { describe, expect, it } from "vitest";
import { monthEndKey, monthStartKey, paperKey } from "./arxiv-key";

describe("paperKey", () => {
  it("orders IDs by submission: months in order, old-style before new-style, numbers in order", () => {
    const ids = [
      "hep-th/9108001",
      "hep-th/9901001",
      "math/0601001",
      "cs/0703001",
      "0704.0001",
      "0704.0002",
      "1412.9999",
      "1501.00001",
      "2401.12345",
      "2401.99999",
    ];
    const keys = ids.map(paperKey);
    expect([...keys].sort((a, b) => a - b)).toEqual(keys);
    expect(new Set(keys).size).toBe(ids.length);
  });

  it("keeps every key of a month between the month's bounds", () => {
    const month = new Date(Date.UTC(2024, 0, 15));
    for (const id of ["2401.00001", "2401.12345", "2401.99999"]) {
      expect(paperKey(id)).toBeGreaterThanOrEqual(monthStartKey(month));
      expect(paperKey(id)).toBeLessThanOrEqual(monthEndKey(month));
    }
    expect(paperKey("2402.00001")).toBeGreaterThan(monthEndKey(month));
  });

  it("refuses an archive it does not know (keys are stored, so the list only grows)", () => {
    expect(() => paperKey("not-an-archive/9901001")).toThrow(/unknown old-style archive/);
  });
});
