// Run by `npm test` (lint): every tool and every resource has its contract's integration test, named after
// its module (src/mcp/tools/x.ts -> test/tools/x.test.ts, src/mcp/resources/x.ts -> test/resources/x.test.ts),
// and no test there is left over from a tool that is gone.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const KINDS = [
  { modules: "src/mcp/tools", tests: "test/tools", defines: "defineTool(" },
  { modules: "src/mcp/resources", tests: "test/resources", defines: "defineResource(" },
];

const problems: string[] = [];
for (const kind of KINDS) {
  const contracts = readdirSync(path.join(ROOT, kind.modules))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .filter((file) => readFileSync(path.join(ROOT, kind.modules, file), "utf8").includes(kind.defines))
    .map((file) => file.slice(0, -".ts".length));
  for (const name of contracts) {
    if (!existsSync(path.join(ROOT, kind.tests, `${name}.test.ts`))) {
      problems.push(`${kind.modules}/${name}.ts has no ${kind.tests}/${name}.test.ts`);
    }
  }
  for (const file of readdirSync(path.join(ROOT, kind.tests))) {
    const name = file.replace(/\.test\.ts$/, "");
    if (!contracts.includes(name)) problems.push(`${kind.tests}/${file} tests no module of ${kind.modules}`);
  }
}
if (problems.length) {
  console.error(`test layout: one integration test file per tool and resource\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
