// Imports Worker source (TypeScript that imports JSON and extensionless paths) into a Node
// script: esbuild bundles the entry into a temporary module first.
import { build } from "esbuild";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export async function importWorkerCode(entry: string) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    write: false,
    logLevel: "error",
  });
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "papers-mcp-code-")), "bundle.mjs");
  writeFileSync(file, result.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}
