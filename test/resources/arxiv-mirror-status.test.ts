// arxiv://mirror/status: whether the mirror serves, why not, and the harvest's progress.

import { beforeEach, describe, expect, it } from "vitest";
import { mcpCall, resetUpstream } from "../helpers";
import { sampleRecords, seedMirror, seedPartialMirror } from "../mirror/driver";

beforeEach(resetUpstream);

const records = sampleRecords();

describe("a complete mirror", () => {
  beforeEach(() => seedMirror());

  it("arxiv://mirror/status shows that the mirror serves, and the harvest's progress", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://mirror/status" });
    const body = JSON.parse(message.result.contents[0].text);
    expect(body.serving).toBe(true);
    expect(body.harvest).toMatchObject({
      source: "arxiv",
      status: "done",
      records: records.length,
      last_datestamp: "2026-11-29",
    });
  });
});

describe("a partial mirror (its first harvest under way) is never served as a whole one", () => {
  beforeEach(() => seedPartialMirror());

  it("arxiv://mirror/status says it is not serving, why, and how much it holds", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://mirror/status" });
    const body = JSON.parse(message.result.contents[0].text);
    expect(body).toMatchObject({
      serving: false,
      partial: { papers: records.length },
      harvest: { complete: null, status: "running" },
    });
    expect(body.not_serving_because).toContain("first full harvest has not completed");
  });
});
