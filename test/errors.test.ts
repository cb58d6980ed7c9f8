// The error catalogue is the one list of reasons: docs/errors.md's table must say exactly what it
// says, every tool declares its reasons from it (with when each happens), a tool's fail() carries
// the declared recovery, and every call writes one log line naming its outcome.
import { afterEach, describe, expect, it, vi } from "vitest";
import reasonsDoc from "../docs/errors.md?raw";
import { ERROR_CATALOGUE, PapersError } from "../src/errors";
import { SERVER_INSTRUCTIONS } from "../src/mcp/instructions";
import { TOOLS } from "../src/mcp/registry";
import { callToolWith, capturedLogLines, toolError } from "./helpers";

afterEach(() => vi.restoreAllMocks());

describe("the error catalogue", () => {
  it("is docs/errors.md's table of reasons, row for row (meaning, retryable, default recovery)", () => {
    const table = reasonsDoc.slice(reasonsDoc.indexOf("| reason | meaning |")).split("\n\n")[0]!;
    const rows = [...table.matchAll(/^\| `([a-z_]+)` \| (.+) \| (yes|no) \| (.+) \|$/gm)].map((match) => [
      match[1],
      { meaning: match[2], retryable: match[3] === "yes", recovery: match[4] },
    ]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_CATALOGUE);
  });

  it("gives a PapersError its reason's default recovery and retryable flag unless the thrower says more", () => {
    const plain = new PapersError("timeout", "Ran out of time.");
    expect(plain).toMatchObject({ retryable: true, recovery: ERROR_CATALOGUE.timeout.recovery });
    const specific = new PapersError("timeout", "Ran out of time.", {
      recovery: "Read a shorter section.",
      retryable: false,
    });
    expect(specific).toMatchObject({ retryable: false, recovery: "Read a shorter section." });
  });
});

describe("tool error contracts", () => {
  it("every tool declares each reason once, from the catalogue, with when it happens", () => {
    for (const tool of TOOLS) {
      const reasons = tool.errors.map((error) => error.reason);
      expect(new Set(reasons).size, tool.name).toBe(reasons.length);
      for (const error of tool.errors) {
        expect(Object.keys(ERROR_CATALOGUE), `${tool.name}: ${error.reason}`).toContain(error.reason);
        expect(error.when.length, `${tool.name}: ${error.reason}`).toBeGreaterThan(10);
      }
    }
  });

  it("the server instructions name every tool with its line on when to use it", () => {
    for (const tool of TOOLS) expect(SERVER_INSTRUCTIONS).toContain(`- ${tool.name}: ${tool.useWhen}`);
  });

  it("a handler's fail() ends the call with the reason it names", async () => {
    const { result } = await callToolWith(
      "papers_library",
      { action: "add" },
      {},
      { "x-papers-workspace": "fail-test" },
    );
    expect(toolError(result)).toMatchObject({ reason: "invalid_argument", recovery: "Pass the papers' IDs in ids." });
  });

  it("every call writes one log line: the tool, its outcome or reason, served_from, ms, D1 round trips, what it spent of the call's budget", async () => {
    const { lines } = capturedLogLines();
    await callToolWith("arxiv_list_categories", { group: "econ" }, { LOG_TOOL_CALLS: "true" });
    await callToolWith("arxiv_get_metadata", { paper_ids: ["not an id"] }, { LOG_TOOL_CALLS: "true" });
    // The line is written after the answer has gone (bench:overhead: a console line costs about 1 ms under wrangler dev).
    const calls = () => lines.filter((line) => line.includes('"tool_call"')).map((line) => JSON.parse(line));
    await vi.waitFor(() => expect(calls()).toHaveLength(2));
    expect(calls()).toEqual([
      {
        event: "tool_call",
        tool: "arxiv_list_categories",
        outcome: "ok",
        ms: expect.any(Number),
        d1_calls: 0,
        d1_sequential: 0,
        d1_queries: 0,
        subrequests: 0,
      },
      {
        event: "tool_call",
        tool: "arxiv_get_metadata",
        outcome: "invalid_id",
        ms: expect.any(Number),
        d1_calls: 0,
        d1_sequential: 0,
        d1_queries: 0,
        subrequests: 0,
      },
    ]);
  });
});
