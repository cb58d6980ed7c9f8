// Starts the whole stack on loopback for end-to-end tests, the benchmark and conformance:
// the fake upstream (recorded fixtures) and `wrangler dev` pointed at it. Every process it
// starts, it stops (stop() kills wrangler's whole process group).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeUpstream } from "../fake-upstream/server.mjs";
import { fakeUpstreamVars } from "../fake-upstream/router.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");

/** Environment for every wrangler process: no telemetry, no update check, no cf.json fetch. */
export function quietWranglerEnv(extra = {}) {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    NO_UPDATE_NOTIFIER: "1",
    ...extra,
  };
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function run(args, env) {
  return new Promise((resolve, reject) => {
    // process.execPath: the Node that runs this script (Node 24 under npm), never the system Node 20.
    const child = spawn(process.execPath, [WRANGLER, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(output) : reject(new Error(`wrangler ${args.join(" ")} exited ${code}:\n${output}`))));
  });
}

/** Resolves when wrangler dev prints "Ready on": the Worker bundle is built and loaded. */
async function waitForReadyLine(child, logs, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early (${child.exitCode}):\n${logs()}`);
    if (logs().includes("Ready on")) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`wrangler dev did not print "Ready on" within ${timeoutMs} ms:\n${logs()}`);
}

/** Polls /health; resolves to the latency of the first request that got an answer (bundle load). */
async function waitForHealth(url, child, logs, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early (${child.exitCode}):\n${logs()}`);
    const started = performance.now();
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
      if (response.ok) return Math.round(performance.now() - started);
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`wrangler dev did not become healthy within ${timeoutMs} ms:\n${logs()}`);
}

/**
 * Starts fake upstream + migrated local D1 + wrangler dev. Resolves once /health answers
 * (or, with waitFor: "ready", once wrangler reports the Worker loaded).
 * Returns { url, mcpUrl, fake, startedAt, readyAt, logs(), stop() }.
 */
export async function startStack({ vars = {}, readyTimeoutMs = 90_000, waitFor = "health" } = {}) {
  const fake = await startFakeUpstream();
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-e2e-"));
  const env = quietWranglerEnv({ XDG_CONFIG_HOME: path.join(stateDir, "config") });
  try {
    await run(["d1", "migrations", "apply", "DB", "--local", "--persist-to", path.join(stateDir, "state")], env);
  } catch (error) {
    await fake.close();
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const inspectorPort = await freePort();
  const allVars = { ...fakeUpstreamVars(fake.origin), ...vars };
  const args = [
    "dev",
    "--ip", "127.0.0.1",
    "--port", String(port),
    "--inspector-port", String(inspectorPort),
    "--persist-to", path.join(stateDir, "state"),
    "--show-interactive-dev-session=false",
    // info: wrangler's "Ready on" line is how waitFor "ready" knows the Worker is loaded.
    "--log-level", "info",
    ...Object.entries(allVars).flatMap(([key, value]) => ["--var", `${key}:${value}`]),
  ];
  const startedAt = Date.now();
  const child = spawn(process.execPath, [WRANGLER, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, 5000);
      await exited;
      clearTimeout(timer);
    }
    await fake.close();
    rmSync(stateDir, { recursive: true, force: true });
  };
  let firstRequestMs;
  try {
    // waitFor "ready": return as soon as wrangler reports the Worker loaded, so a caller can time
    // its own first request (the benchmark does).
    if (waitFor === "ready") await waitForReadyLine(child, () => output, readyTimeoutMs);
    else firstRequestMs = await waitForHealth(url, child, () => output, readyTimeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, mcpUrl: `${url}/mcp`, fake, stateDir, startedAt, readyAt: Date.now(), firstRequestMs, logs: () => output, stop };
}
