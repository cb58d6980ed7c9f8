// Shared between vitest.config.ts (Node) and test/global-setup.ts.
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Every request a test made to a non-fake host, one per line. Must stay empty. */
export const BLOCKED_LOG = path.join(root, ".mcp-test-state", "blocked-requests.log");
/** The harness's own self-test uses this host to prove blocking works; it is not logged. */
export const SENTINEL_HOST = "harness-sentinel.invalid";
