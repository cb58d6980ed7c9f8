// The Worker's own papers_check_bibliography code offline (bundled by esbuild), on node:sqlite with
// the migrations applied, every gate letting each request go at once, and every upstream answered
// by the fetch given: what bench:hallmark and bench:refchecker run their worlds through.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { d1Over } from "./d1-node.ts";
import { ROOT } from "./dev-server.ts";
import { importWorkerCode } from "./worker-code.ts";

export const WORLD_ORIGIN = "http://world.test";

export async function offlineChecker(upstream: typeof fetch) {
  const { checkBibliography, loadConfig } = await importWorkerCode(
    path.join(ROOT, "scripts/citations/checker-code.ts"),
  );
  const sqlite = new DatabaseSync(":memory:");
  for (const file of readdirSync(path.join(ROOT, "migrations")).sort())
    sqlite.exec(readFileSync(path.join(ROOT, "migrations", file), "utf8"));
  const d1 = d1Over(sqlite) as D1Database & { withSession: () => D1Database };
  d1.withSession = () => d1;
  // The world answers in no time: politeness is not what is measured here.
  const gate = {
    reserve: async () => ({ granted: true, lease: "offline", cooling: false }),
    depart: async () => ({ go: true, lease: "offline" }),
    release: async () => ({ cooldownMs: null }),
    reportOk: async () => {},
    reportRateLimited: async () => ({ cooldownMs: 0 }),
  };
  const env = { DB: d1, CRAWL_GATE: { idFromName: (name: string) => name, get: () => gate } };
  const config = loadConfig({
    ARXIV_MIRROR_ENABLED: "false",
    ARXIV_API_BASE_URL: `${WORLD_ORIGIN}/arxiv`,
    CROSSREF_BASE_URL: `${WORLD_ORIGIN}/crossref`,
    OPENALEX_BASE_URL: `${WORLD_ORIGIN}/openalex`,
    DOI_RA_BASE_URL: `${WORLD_ORIGIN}/doi-ra`,
    OPENALEX_API_KEY: "world",
    CROSSREF_MAILTO: "bench@papers-mcp.test",
  });
  const before = globalThis.fetch;
  globalThis.fetch = upstream;
  const ctx = { env, config, waitUntil: (p: Promise<unknown>) => p.catch(() => {}), log: () => {} };
  return {
    check: (bibliography: string) => checkBibliography(ctx, bibliography, { maxTokens: 100_000 }),
    /** Gives the process its own fetch back. */
    restore: () => {
      globalThis.fetch = before;
      sqlite.close();
    },
  };
}

/** A BibTeX entry from fields (braces inside values dropped, "et al" as BibTeX's "others"). */
export function bibtexEntry(type: string, key: string, fields: Record<string, string>): string {
  return `@${type}{${key},\n${Object.entries(fields)
    .map(([name, value]) => `  ${name} = {${String(value).replace(/[{}]/g, "")}}`)
    .join(",\n")}\n}`;
}
