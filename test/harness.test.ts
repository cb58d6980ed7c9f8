// The test harness itself: no test can reach the network; the fixture router serves recordings.
import { describe, expect, it } from "vitest";
import { FAKE } from "./helpers";

describe("network isolation", () => {
  it("refuses a request to any host but the fake upstream", async () => {
    // The sentinel host is not logged; any other refused host fails the run in global-setup.
    const response = await fetch("https://harness-sentinel.invalid/api/query");
    expect(response.status).toBe(403);
    expect(response.headers.get("x-test-harness")).toBe("blocked");
  });

  it("serves recorded fixtures, marked as recorded", async () => {
    const response = await fetch(`${FAKE}/arxiv-api/query?id_list=astro-ph/0601001&max_results=100`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-fake-upstream")).toBe("recorded");
    expect(await response.text()).toContain("astro-ph/0601001");
  });

  it("replays the recorded HTTP status (arXiv's 400 for a malformed id)", async () => {
    const response = await fetch(`${FAKE}/arxiv-api/query?id_list=abc&max_results=100`);
    expect(response.status).toBe(400);
  });

  it("answers 404 'no fixture' instead of inventing a response", async () => {
    const response = await fetch(`${FAKE}/arxiv-api/query?id_list=9999.99999`);
    expect(response.status).toBe(404);
    expect(response.headers.get("x-fake-upstream")).toBe("no-fixture");
  });
});
