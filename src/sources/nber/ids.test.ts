// NBER paper numbers in every spelling a user writes.

import { describe, expect, it } from "vitest";
import { parseNberId } from "./ids";
describe("NBER IDs", () => {
  it.each([
    ["w25000", "w25000"],
    ["W25000", "w25000"],
    ["25000", "w25000"],
    ["w1", "w0001"],
    [" w0001 ", "w0001"],
    ["h0137", "h0137"],
    ["https://www.nber.org/papers/w25000", "w25000"],
    ["http://nber.org/papers/w25000/", "w25000"],
    ["https://www.nber.org/papers/w25000.pdf", "w25000"],
    ["https://www.nber.org/system/files/working_papers/w25000/w25000.pdf", "w25000"],
    ["https://www.nber.org/papers/w25000?utm=x", "w25000"],
  ])("accepts %j as %s", (input, expected) => {
    const parsed = parseNberId(input);
    expect(parsed.ok && parsed.id.id).toBe(expected);
  });

  it.each([
    "",
    "w",
    "w0",
    "0",
    "100000",
    "w-1",
    "x25000",
    "../w1",
    "w1/../../etc",
    "w25000.pdf/../x",
    "https://evil.example/papers/w1",
    "w1\u0000",
    "w 1",
    "２５０００",
    "1e5",
  ])("rejects %j", (input) => {
    expect(parseNberId(input).ok).toBe(false);
  });
});
