// The error catalogue is the one list of reasons: README's table must say exactly what it says,
// and every tool's declared errors must come from it.
import { describe, expect, it } from "vitest";
import readme from "../README.md?raw";
import { ERROR_CATALOGUE } from "../src/errors";
import { TOOLS } from "../src/mcp/registry";

describe("the error catalogue", () => {
  it("is README's table of reasons, row for row", () => {
    const table = readme.slice(readme.indexOf("| reason | meaning |")).split("\n\n")[0]!;
    const rows = [...table.matchAll(/^\| `([a-z_]+)` \| (.+) \|$/gm)].map((match) => [match[1], match[2]]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_CATALOGUE);
  });

  it("holds every reason a tool declares", () => {
    for (const tool of TOOLS)
      for (const reason of tool.errors)
        expect(Object.keys(ERROR_CATALOGUE), `${tool.name}: ${reason}`).toContain(reason);
  });
});
