// The isolate's PDF memory budget: reads and downloads take their PDF's bytes (plus pdf.js's
// working set) before the body is read, so concurrent big PDFs wait instead of overrunning 128 MB.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PapersError } from "../src/errors";
import { ByteBudget, PDF_ISOLATE_BUDGET_BYTES, PDF_WORKING_SET_BYTES, pdfMemory } from "../src/sources/text/pdf-memory";
import { answerOf, callToolWith, toolError, upstreamHits } from "./helpers";

const MB = 1_000_000;
const soon = (ms = 2000) => Date.now() + ms;
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("ByteBudget", () => {
  it("runs PDFs side by side while they fit and makes a big one wait for the memory to come free", async () => {
    const budget = new ByteBudget(90 * MB);
    const small = await Promise.all([budget.acquire(10 * MB, soon()), budget.acquire(10 * MB, soon())]);
    expect(budget.inUse).toBe(20 * MB);
    let bigGranted = false;
    const big = budget.acquire(85 * MB, soon()).then((release) => {
      bigGranted = true;
      return release;
    });
    await tick();
    expect(bigGranted).toBe(false);
    // First come, first served: a later small read does not overtake the waiting big one.
    let lateGranted = false;
    const late = budget.acquire(5 * MB, soon()).then((release) => {
      lateGranted = true;
      return release;
    });
    small[0]!();
    await tick();
    expect(bigGranted).toBe(false);
    expect(lateGranted).toBe(false);
    small[1]!();
    const releaseBig = await big;
    await tick();
    expect(lateGranted).toBe(true);
    expect(budget.inUse).toBe(90 * MB);
    releaseBig();
    (await late)();
    expect(budget.inUse).toBe(0);
  });

  it("a wait past the deadline is a retryable server_busy, and the next waiter still gets its turn", async () => {
    const budget = new ByteBudget(90 * MB);
    const held = await budget.acquire(80 * MB, soon());
    const refused = await budget.acquire(74 * MB, Date.now() + 30).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PapersError);
    expect(refused).toMatchObject({ reason: "server_busy", retryable: true, retryAfterMs: 5000 });
    const fits = await budget.acquire(10 * MB, soon());
    expect(budget.inUse).toBe(90 * MB);
    fits();
    held();
    // A cost above the whole budget runs alone rather than never.
    (await budget.acquire(500 * MB, soon()))();
    expect(budget.inUse).toBe(0);
  });

  it("a release given twice frees once", async () => {
    const budget = new ByteBudget(10 * MB);
    const release = await budget.acquire(6 * MB, soon());
    const other = await budget.acquire(4 * MB, soon());
    release();
    release();
    expect(budget.inUse).toBe(4 * MB);
    other();
  });
});

describe("PDF reads take their memory from the isolate's budget", () => {
  it("a read that cannot get the memory in its time answers server_busy, without fetching the body into R2", async () => {
    // Another request holds the budget (a 40 MB PDF being extracted, and more).
    const held = await pdfMemory.acquire(PDF_ISOLATE_BUDGET_BYTES, soon(10_000));
    try {
      const { result } = await callToolWith(
        "arxiv_read_paper",
        { paper_id: "1512.03905v1" },
        { ARXIV_READ_TIMEOUT_MS: "1500" },
      );
      const error = toolError(result);
      expect(error).toMatchObject({ reason: "server_busy", retryable: true, retry_after_ms: 5000 });
      expect(await env.BLOBS.head("arxiv/pdf/1512.03905v1.pdf")).toBeNull();
      expect((await upstreamHits()).map((hit) => hit.path)).toContain("/arxiv/pdf/1512.03905v1");
    } finally {
      held();
    }
    // With the memory free again, the same read succeeds, and the budget is whole afterwards.
    const { result } = await callToolWith("arxiv_read_paper", { paper_id: "1512.03905v1" }, {});
    expect(result.isError).toBeFalsy();
    expect(answerOf(result).source).toBe("pdf_text");
    expect(pdfMemory.inUse).toBe(0);
    expect(PDF_WORKING_SET_BYTES).toBeLessThan(PDF_ISOLATE_BUDGET_BYTES);
  });
});
