// Fails the run if any test tried to reach a host other than the fake upstream.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { BLOCKED_LOG } from "./harness-paths.ts";

export function setup(): () => void {
  mkdirSync(path.dirname(BLOCKED_LOG), { recursive: true });
  writeFileSync(BLOCKED_LOG, "");
  return () => {
    const blocked = readFileSync(BLOCKED_LOG, "utf8").trim();
    rmSync(BLOCKED_LOG, { force: true });
    if (blocked) {
      throw new Error(`Tests tried to reach non-fake hosts (no network in tests):\n${blocked}`);
    }
  };
}
