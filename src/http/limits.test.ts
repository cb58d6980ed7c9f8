// The pieces of the /mcp limits: which tools a body calls, how many messages a batch holds, slots
// per client (released once), the body cap, and the first free requests of a minute.
import { describe, expect, it } from "vitest";
import {
  LOCAL_FREE_REQUESTS,
  REFUSAL_CODE,
  acquireSlot,
  acquireSlots,
  calledTools,
  jsonRpcRefusal,
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
      { reason: "rate_limited", message: "Too many.", recovery: "Wait.", retryAfterSeconds: 60 },
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

describe("refusals in each era", () => {
  const serverInfo = { name: "papers-mcp", version: "0.1.0" };
  const modern = (id: string | number | undefined) => ({ era: "modern" as const, id, serverInfo });
  const limited = { reason: "rate_limited", message: "Too many.", recovery: "Wait.", retryAfterSeconds: 60 } as const;

  it("answers a 2025-era request exactly as clients have always had it: no resultType, id null and -32000 for a whole-request refusal", async () => {
    const tool = await toolCallRefusal(call("arxiv_read_paper", 7), limited).text();
    expect(JSON.parse(tool)).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: {
        isError: true,
        content: [
          {
            type: "text",
            text: JSON.stringify({
              error: {
                reason: "rate_limited",
                message: "Too many.",
                retryable: true,
                retry_after_ms: 60_000,
                recovery: "Wait.",
              },
            }),
          },
        ],
      },
    });
    const whole = jsonRpcRefusal(429, limited);
    expect(whole.status).toBe(429);
    expect(await whole.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: "Too many.",
        data: { reason: "rate_limited", recovery: "Wait.", retry_after_ms: 60_000 },
      },
    });
  });

  it("answers a 2026-07-28 tool call with a complete result naming the server, under the request's own id", async () => {
    const answer = (await toolCallRefusal(call("arxiv_read_paper", "call-9"), limited, modern("call-9")).json()) as {
      id: unknown;
      result: { content: { text: string }[] };
    };
    expect(answer.id).toBe("call-9");
    expect(answer.result).toMatchObject({
      isError: true,
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": serverInfo },
    });
    expect(JSON.parse(answer.result.content[0]!.text).error.reason).toBe("rate_limited");
  });

  it("refuses a whole 2026-07-28 request with its id and a code outside JSON-RPC's reserved range; no id when none could be read", async () => {
    const withId = (await jsonRpcRefusal(413, limited, modern(42)).json()) as {
      id: unknown;
      error: { code: number; data: { reason: string } };
    };
    expect(withId.id).toBe(42);
    expect(withId.error.code).toBe(REFUSAL_CODE);
    expect(withId.error.code < -32768 || withId.error.code > -32000).toBe(true);
    expect(withId.error.data.reason).toBe("rate_limited");
    const unread = (await jsonRpcRefusal(413, limited, modern(undefined)).json()) as object;
    expect("id" in unread).toBe(false);
  });
});
