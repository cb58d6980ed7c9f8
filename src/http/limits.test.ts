// The pieces of the /mcp limits: which tools a body calls, how many messages a batch holds, slots
// per client (released once), the body cap, and the first free requests of a minute.
import { describe, expect, it } from "vitest";
import {
  LOCAL_FREE_REQUESTS,
  acquireSlot,
  acquireSlots,
  calledTools,
  localRequestCount,
  messageCount,
  readBodyCapped,
  toolCallRefusal,
} from "./limits";

const call = (name: unknown, id: unknown = 1) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name } });

describe("limits", () => {
  it("names the tools a single message or a batch calls, ignoring other methods and junk", () => {
    expect(calledTools(call("arxiv_read_paper"))).toEqual(["arxiv_read_paper"]);
    expect(calledTools([call("a"), { method: "ping" }, null, 3, call(7), call("b")])).toEqual(["a", "b"]);
    expect(messageCount([1, 2, 3])).toBe(3);
    expect(messageCount({})).toBe(1);
  });

  it("gives a client at most `max` slots; a release frees one, once", () => {
    const first = acquireSlot("limits-test", 2)!;
    const second = acquireSlot("limits-test", 2)!;
    expect(acquireSlot("limits-test", 2)).toBeUndefined();
    first();
    first();
    const third = acquireSlot("limits-test", 2)!;
    expect(acquireSlot("limits-test", 2)).toBeUndefined();
    second();
    third();
    expect(acquireSlots("limits-test", 2, 3)).toBeUndefined();
    acquireSlots("limits-test", 2, 2)!();
  });

  it("reads a body up to the cap, declared or streamed, and refuses one over it", async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      new Request("http://localhost/mcp", { method: "POST", body, headers });
    expect(await readBodyCapped(post("x".repeat(100)), 1000)).toBe("x".repeat(100));
    expect(await readBodyCapped(post("x".repeat(2000)), 1000)).toBeUndefined();
  });

  it("lets a client's first requests of a minute skip the binding, then counts every one", () => {
    const now = Date.parse("2026-12-01T00:00:00Z");
    for (let i = 1; i <= LOCAL_FREE_REQUESTS + 1; i++) expect(localRequestCount("free-test", now + i)).toBe(i);
    expect(localRequestCount("free-test", now + 61_000 + LOCAL_FREE_REQUESTS)).toBe(1);
  });

  it("answers a refused batch call by call: tool errors for tools/call, JSON-RPC errors for the rest, nothing for notifications", async () => {
    const response = toolCallRefusal(
      [call("x", 1), { jsonrpc: "2.0", id: 2, method: "ping" }, { method: "notifications/initialized" }],
      "rate_limited",
      "Too many.",
      "Wait.",
      60,
    );
    expect(response.headers.get("retry-after")).toBe("60");
    const answers = (await response.json()) as {
      id: number;
      result?: { isError: boolean };
      error?: { data: { reason: string } };
    }[];
    expect(answers.map((answer) => answer.id)).toEqual([1, 2]);
    expect(answers[0]!.result!.isError).toBe(true);
    expect(answers[1]!.error!.data.reason).toBe("rate_limited");
  });
});
