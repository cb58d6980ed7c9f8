// Config defaults live in src/config.ts only: docs/configuration.md's table and README's list must
// name the same variables (the table with the same defaults), and wrangler.toml repeats none of them.
import { describe, expect, it } from "vitest";
import table from "../docs/configuration.md?raw";
import readme from "../README.md?raw";
import wrangler from "../wrangler.toml?raw";
import { CONFIG_VARIABLES, loadConfig } from "../src/config";

const defaultConfig = loadConfig({}) as Record<string, unknown>;
const parsedValue = (name: string, raw: string) => (loadConfig({ [name]: raw }) as Record<string, unknown>)[name];

describe("configuration", () => {
  it("docs/configuration.md lists every variable once, with the schema's default", () => {
    const rows = [...table.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()] as const);
    expect(rows.map(([name]) => name).sort()).toEqual([...CONFIG_VARIABLES].sort());
    for (const [name, shown] of rows) {
      const literal = /^`(.*)`$/.exec(shown);
      if (literal) expect(parsedValue(name, literal[1]!), name).toEqual(defaultConfig[name]);
      else if (shown === "*(empty)*") expect(parsedValue(name, ""), name).toEqual(defaultConfig[name]);
      else if (shown === "*(unset)*") expect(defaultConfig[name], name).toBeUndefined();
      else expect(shown, name).toMatch(/^\*\(secret, unset\)\*$|^a current Chrome UA$/);
    }
  });

  it("README's list of variables names each variable of the schema once", () => {
    const section = readme.slice(
      readme.indexOf("| area | variables |"),
      readme.indexOf("\n\n", readme.indexOf("| area | variables |")),
    );
    const named = [...section.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!);
    expect([...named].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it("wrangler.toml sets no variable: every default lives in config.ts alone", () => {
    expect(wrangler).not.toMatch(/^\[vars\]/m);
    const assigned = [...wrangler.matchAll(/^([A-Z][A-Z0-9_]+)\s*=/gm)].map((m) => m[1]!);
    expect(assigned.filter((name) => CONFIG_VARIABLES.includes(name))).toEqual([]);
  });
});
