// Starts the whole stack on loopback for end-to-end tests, the benchmark and conformance:
// the fake upstream (recorded fixtures) and `wrangler dev` pointed at it. Every process it
// starts, it stops (stop() kills wrangler's whole process group).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startFakeUpstream } from "../fake-upstream/server.ts";
import { fakeUpstreamVars } from "../fake-upstream/router.ts";
import { ROOT, quietWranglerEnv } from "./wrangler-env.ts";

// ROOT and quietWranglerEnv live in wrangler-env.ts (the seed needs them without this module).
export { ROOT, quietWranglerEnv };
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function runWrangler(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    // process.execPath: the Node that runs this script (Node 24 under npm), never the system Node 20.
    const child = spawn(process.execPath, [WRANGLER, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`wrangler ${args.join(" ")} exited ${code}:\n${output}`)),
    );
  });
}

/** Resolves when wrangler dev prints "Ready on": the Worker bundle is built and loaded. */
async function waitForReadyLine(child: ChildProcess, logs: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early (${child.exitCode}):\n${logs()}`);
    if (logs().includes("Ready on")) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`wrangler dev did not print "Ready on" within ${timeoutMs} ms:\n${logs()}`);
}

/** Polls /health; resolves to the latency of the first request that got an answer (bundle load). */
async function waitForHealth(url: string, child: ChildProcess, logs: () => string, timeoutMs: number) {
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
/** Spawns `wrangler dev` in its own process group; stop() ends the whole group. */
export function spawnWranglerDev(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [WRANGLER, "dev", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    kill("SIGTERM");
    const timer = setTimeout(() => kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  return { child, logs: () => output, stop };
}

export async function loopbackArgs(logLevel: "info" | "log" = "info") {
  return [
    "--ip",
    "127.0.0.1",
    "--port",
    String(await freePort()),
    "--inspector-port",
    String(await freePort()),
    "--show-interactive-dev-session=false",
    // info: wrangler's "Ready on" line is how waitFor "ready" knows the Worker is loaded; log adds
    // the Worker's own console.log lines (its tool_call and mirror_search lines) to logs().
    "--log-level",
    logLevel,
  ];
}

/**
 * vars: extra Worker vars, or a function of { url, fakeOrigin } giving them (for vars that name the stack itself).
 * prepareState(d1File): called after the migrations with the local D1's SQLite file, before
 * wrangler dev opens it (the mirror benchmark fills it with a synthetic mirror).
 */
export interface StackOptions {
  vars?: Record<string, string> | ((stack: { url: string; fakeOrigin: string }) => Record<string, string>);
  readyTimeoutMs?: number;
  waitFor?: "health" | "ready";
  seed?: boolean;
  prepareState?: (d1File: string, shardFiles: Record<string, string>) => void | Promise<void>;
  /** More D1 bindings (the sharded mirror's ARXIV_SHARD_2, ...): served from a copy of wrangler.toml that adds them. */
  moreDatabases?: string[];
  fixturesDir?: string;
  /** Keep the Worker's own log lines in logs() (wrangler's --log-level log). */
  workerLogs?: boolean;
  /** Another entry point than wrangler.toml's main (bench:edge's wraps the Worker's bindings). */
  entry?: string;
}

export async function startStack({
  vars = {},
  readyTimeoutMs = 90_000,
  waitFor = "health",
  seed = false,
  prepareState,
  fixturesDir,
  workerLogs = false,
  moreDatabases = [],
  entry,
}: StackOptions = {}) {
  const fake = await startFakeUpstream(fixturesDir ? { fixturesDir } : {});
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-e2e-"));
  const env = quietWranglerEnv({ XDG_CONFIG_HOME: path.join(stateDir, "config") });
  const config = moreDatabases.length > 0 ? withDatabases(stateDir, moreDatabases) : [];
  const shardFiles: Record<string, string> = {};
  try {
    await runWrangler(
      ["d1", "migrations", "apply", "DB", "--local", "--persist-to", path.join(stateDir, "state"), ...config],
      env,
    );
    // Each database's file is the one its migrations created.
    for (const binding of moreDatabases) {
      const before = new Set(d1Files(path.join(stateDir, "state")));
      await runWrangler(
        ["d1", "migrations", "apply", binding, "--local", "--persist-to", path.join(stateDir, "state"), ...config],
        env,
      );
      const created = d1Files(path.join(stateDir, "state")).filter((file) => !before.has(file));
      if (created.length !== 1) throw new Error(`expected one new D1 file for ${binding}, found ${created.length}`);
      shardFiles[binding] = created[0]!;
    }
    if (seed) {
      const { seedLocal } = await import("../seed-local.ts");
      seedLocal({ persistTo: path.join(stateDir, "state") });
    }
    if (prepareState)
      await prepareState(localD1File(path.join(stateDir, "state"), Object.values(shardFiles)), shardFiles);
  } catch (error) {
    await fake.close();
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
  const loopback = await loopbackArgs(workerLogs ? "log" : "info");
  const url = `http://127.0.0.1:${loopback[loopback.indexOf("--port") + 1]}`;
  // vars may depend on where the stack runs (AUTH_MODE=oauth needs PUBLIC_BASE_URL and the fake provider's origin).
  const extraVars = typeof vars === "function" ? vars({ url, fakeOrigin: fake.origin }) : vars;
  const allVars = { ...fakeUpstreamVars(fake.origin), ...extraVars };
  const args = [
    ...(entry ? [entry] : []),
    ...loopback,
    "--persist-to",
    path.join(stateDir, "state"),
    ...config,
    ...Object.entries(allVars).flatMap(([key, value]) => ["--var", `${key}:${value}`]),
  ];
  const startedAt = Date.now();
  let dev = spawnWranglerDev(args, env);
  const stop = async () => {
    await dev.stop();
    await fake.close();
    rmSync(stateDir, { recursive: true, force: true });
  };
  /** SIGKILLs wrangler dev (every Durable Object evicted, no clean shutdown) and starts it again on the same state and port. */
  const restart = async () => {
    try {
      process.kill(-dev.child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
    await new Promise<unknown>((resolve) =>
      dev.child.exitCode !== null ? resolve(undefined) : dev.child.once("exit", resolve),
    );
    dev = spawnWranglerDev(args, env);
    return waitForHealth(url, dev.child, dev.logs, readyTimeoutMs);
  };
  let firstRequestMs: number | undefined;
  try {
    // waitFor "ready": return as soon as wrangler reports the Worker loaded, so a caller can time
    // its own first request (the benchmark does).
    if (waitFor === "ready") await waitForReadyLine(dev.child, dev.logs, readyTimeoutMs);
    else firstRequestMs = await waitForHealth(url, dev.child, dev.logs, readyTimeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    mcpUrl: `${url}/mcp`,
    /** wrangler dev's inspector (Chrome DevTools protocol): the overhead benchmark profiles the Worker through it. */
    inspectorPort: Number(loopback[loopback.indexOf("--inspector-port") + 1]),
    fake,
    stateDir,
    startedAt,
    readyAt: Date.now(),
    firstRequestMs,
    pid: dev.child.pid,
    logs: () => dev.logs(),
    stop,
    restart,
  };
}

/** The SQLite files of the local D1 databases under a --persist-to directory. */
function d1Files(persistTo: string): string[] {
  const dir = path.join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  return readdirSync(dir)
    .filter((name) => /^[0-9a-f]{64}\.sqlite$/.test(name))
    .map((name) => path.join(dir, name));
}

/** The SQLite file behind the local DB binding under a --persist-to directory (`others`: the other bindings' files). */
export function localD1File(persistTo: string, others: string[] = []): string {
  const files = d1Files(persistTo).filter((file) => !others.includes(file));
  if (files.length !== 1)
    throw new Error(`expected one D1 database file for DB under ${persistTo}, found ${files.length}`);
  return files[0]!;
}

/** A copy of wrangler.toml with more D1 bindings (same migrations), as --config arguments. */
function withDatabases(stateDir: string, bindings: string[]): string[] {
  const base = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8")
    .replace('main = "src/index.ts"', `main = ${JSON.stringify(path.join(ROOT, "src/index.ts"))}`)
    .replaceAll('migrations_dir = "migrations"', `migrations_dir = ${JSON.stringify(path.join(ROOT, "migrations"))}`);
  const more = bindings
    .map(
      (binding, i) =>
        `\n[[d1_databases]]\nbinding = "${binding}"\ndatabase_name = "papers-mcp-${binding.toLowerCase().replaceAll("_", "-")}"\n` +
        `database_id = "00000000-0000-0000-0000-00000000000${i + 1}"\nmigrations_dir = ${JSON.stringify(path.join(ROOT, "migrations"))}\n`,
    )
    .join("");
  const file = path.join(stateDir, "wrangler.toml");
  writeFileSync(file, base + more);
  return ["--config", file];
}

/** Starts another Worker config (the bench-only extraction Worker) under wrangler dev. */
export async function startWorker(configPath: string, { readyTimeoutMs = 90_000 }: { readyTimeoutMs?: number } = {}) {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-worker-"));
  const env = quietWranglerEnv({ XDG_CONFIG_HOME: path.join(stateDir, "config") });
  const args = [...(await loopbackArgs()), "--config", configPath, "--persist-to", path.join(stateDir, "state")];
  const url = `http://127.0.0.1:${args[args.indexOf("--port") + 1]}`;
  const dev = spawnWranglerDev(args, env);
  const stop = async () => {
    await dev.stop();
    rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    await waitForReadyLine(dev.child, dev.logs, readyTimeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: dev.child.pid, logs: dev.logs, stop };
}

/** Peak resident memory (VmHWM, bytes) of the workerd processes under a process group leader. */
export function workerdPeakRss(leaderPid: number): number {
  const table = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return {
          pid: Number(pid),
          ppid: Number(fields[1]),
          pgid: Number(fields[2]),
          comm: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
        };
      } catch {
        return undefined;
      }
    })
    .filter((proc) => proc !== undefined);
  let peak = 0;
  for (const proc of table) {
    if (proc.pgid !== leaderPid || proc.comm !== "workerd") continue;
    try {
      const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))?.[1] ?? 0);
      peak = Math.max(peak, kb * 1024);
    } catch {
      // exited
    }
  }
  return peak;
}
