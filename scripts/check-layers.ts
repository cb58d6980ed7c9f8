// The import-layer rule, run by `npm test`: imports in src/ point one way, and this fails the
// build when one points back. Layers are src/'s folders; the files at src/'s top are the entry
// (app.ts, index.ts: anything) or leaves (errors, config, progress, ...: leaves only).
// routes/ holds the entry's route modules: they may import anything, and only the entry imports them.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src");
const ENTRY = new Set(["app", "index"]);
/** Who may import whom (besides itself and the leaves, which everyone may import). */
const ALLOWED = {
  entry: "*",
  routes: "*",
  mcp: ["agent", "sources", "store"],
  agent: ["sources", "store", "search"],
  harvest: ["sources", "store", "upstream"],
  sources: ["search", "store", "upstream"],
  store: ["search"],
  search: [],
  upstream: [],
  http: [],
  // The pages' templates: they render what the tools and the store answer (their types).
  web: ["mcp", "sources", "store"],
  leaf: [],
};

function layerOf(file) {
  const [top] = path.relative(SRC, file).split(path.sep);
  if (!top.endsWith(".ts")) return top;
  return ENTRY.has(top.slice(0, -3)) ? "entry" : "leaf";
}

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(full);
    // A module's unit test sits beside it and may import test support: it is not part of the layers.
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) yield full;
  }
}

const problems = [];
for (const file of sources(SRC)) {
  const from = layerOf(file);
  if (!(from in ALLOWED))
    problems.push(`${path.relative(SRC, file)}: src/${from}/ is not a known layer (add it to scripts/check-layers.ts)`);
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)"(\.\.?\/[^"]+)"/g)) {
    const target = path.resolve(path.dirname(file), match[1]);
    const to = layerOf(target.endsWith(".ts") ? target : `${target}.ts`);
    const allowed = ALLOWED[from];
    if (to === from || to === "leaf" || allowed === "*" || allowed?.includes(to)) continue;
    problems.push(`${path.relative(SRC, file)} imports ${match[1]}: ${from} may not import ${to}`);
  }
}
if (problems.length > 0) {
  console.error(
    `Import layers (mcp -> agent -> sources -> store | upstream; see scripts/check-layers.ts):\n  ${problems.join("\n  ")}`,
  );
  process.exit(1);
}
console.log("import layers: ok");
