import { describe, expect, it } from "vitest";
import { heldLog } from "./context";

describe("heldLog", () => {
  it("holds the lines until flush writes them with the last, in one write; later lines go out as they come", () => {
    const writes: Record<string, unknown>[][] = [];
    const held = heldLog((...lines) => void writes.push(lines));
    held.log({ event: "mirror_search", n: 1 });
    held.log({ event: "mirror_search", n: 2 });
    expect(writes).toEqual([]);
    held.flush({ event: "tool_call" });
    expect(writes).toEqual([
      [{ event: "mirror_search", n: 1 }, { event: "mirror_search", n: 2 }, { event: "tool_call" }],
    ]);
    held.log({ event: "late" });
    expect(writes.at(-1)).toEqual([{ event: "late" }]);
    expect(writes).toHaveLength(2);
  });
});
