// Loads bundled sample data (seed/*.sql) into the local D1 when it is missing. See seed/README.md.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT, wranglerSync } from "./lib/wrangler-env.ts";
import { buildArxivSeed } from "./arxiv/build-seed.ts";
import { buildSeed } from "./nber/build-seed.ts";

const wrangler = wranglerSync;

export function seedLocal({ persistTo }: { persistTo?: string } = {}) {
  const persist = persistTo ? ["--persist-to", persistTo] : [];
  // Generated seeds: the NBER mirror from data/nberwp, the arXiv mirror from data/arxiv-sample.
  buildSeed();
  buildArxivSeed();
  const dir = path.join(ROOT, "seed");
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort();
  if (files.length === 0) {
    console.log("seed: no bundled sample data yet (seed/*.sql); the local mirrors start empty");
    return;
  }
  for (const file of files) {
    const full = path.join(dir, file);
    const guard = /^--\s*guard:\s*(.+)$/m.exec(readFileSync(full, "utf8").split("\n", 1)[0] ?? "")?.[1];
    if (!guard) throw new Error(`seed/${file}: the first line must be "-- guard: SELECT ... AS n"`);
    const [result] = JSON.parse(wrangler("d1", "execute", "DB", "--local", ...persist, "--json", "--command", guard));
    const n = Number(result?.results?.[0]?.n ?? 0);
    if (n > 0) {
      console.log(`seed: ${file} already loaded (${n} rows)`);
      continue;
    }
    wrangler("d1", "execute", "DB", "--local", ...persist, "--file", full);
    console.log(`seed: loaded ${file}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(ROOT, "scripts/seed-local.ts")) seedLocal();
