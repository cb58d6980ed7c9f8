// arxiv://categories and arxiv://categories/{code}: the taxonomy, one category, completion of codes.

import { describe, expect, it } from "vitest";
import { mcpCall } from "../helpers";

describe("arxiv://categories and arxiv://categories/{code}", () => {
  it("lists arxiv://categories and the category template", async () => {
    const resources = (await mcpCall("resources/list")).message.result.resources;
    expect(resources.map((r: { uri: string }) => r.uri)).toContain("arxiv://categories");
    const templates = (await mcpCall("resources/templates/list")).message.result.resourceTemplates;
    expect(templates.map((t: { uriTemplate: string }) => t.uriTemplate)).toContain("arxiv://categories/{code}");
  });

  it("reads the whole taxonomy", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://categories" });
    const body = JSON.parse(message.result.contents[0].text);
    expect(body.categories).toHaveLength(155);
  });

  it("reads one category with its description", async () => {
    const { message } = await mcpCall("resources/read", { uri: "arxiv://categories/cs.CL" });
    const body = JSON.parse(message.result.contents[0].text);
    expect(body).toMatchObject({ code: "cs.CL", group: "cs" });
    expect(body.description).toContain("natural language");
  });

  it("an unknown category is a resource-not-found error naming the fix", async () => {
    const { status, message } = await mcpCall("resources/read", { uri: "arxiv://categories/zz.ZZ" });
    expect(status).toBe(200);
    // The SDK picks the revision's not-found code (-32002 in 2025-11-25, -32602 from 2026-07-28).
    expect([-32002, -32602]).toContain(message.error.code);
    expect(message.error.message).toContain("arxiv://categories");
  });

  it("completes category codes", async () => {
    const { message } = await mcpCall("completion/complete", {
      ref: { type: "ref/resource", uri: "arxiv://categories/{code}" },
      argument: { name: "code", value: "cs.C" },
    });
    expect(message.result.completion.values).toEqual(expect.arrayContaining(["cs.CL", "cs.CV", "cs.CR"]));
  });
});
