// What tools/list shows of a schema: no $schema, output schemas reduced to their top-level field
// names, computed once; and lenient input validation defers to the tool wrapper (so a
// wrong argument gets our typed error).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { memoizedSchema } from "./schema";

const OPTIONS = { target: "draft-2020-12" } as const;

describe("memoizedSchema", () => {
  const output = z.object({
    id: z.string().describe("the id"),
    items: z.object({ a: z.string(), b: z.number() }).array().describe("records as elsewhere"),
    one: z.object({ x: z.string() }),
    next: z.number().nullable(),
    kind: z.enum(["a", "b"]).optional(),
  });

  it("reduces an output schema to its top-level field names", () => {
    const json = memoizedSchema(output)["~standard"].jsonSchema.output(OPTIONS as never);
    expect(json).not.toHaveProperty("$schema");
    expect(json).not.toHaveProperty("required");
    expect(json).not.toHaveProperty("additionalProperties");
    const properties = json.properties as Record<string, Record<string, unknown>>;
    expect(properties).toEqual({ id: {}, items: {}, one: {}, next: {}, kind: {} });
  });

  it("keeps an input schema's descriptions and required list, and computes it once", () => {
    const input = z.object({ query: z.string().min(1).max(9).describe("words"), n: z.number().optional() });
    const schema = memoizedSchema(input, { lenient: true })["~standard"];
    const first = schema.jsonSchema.input(OPTIONS as never);
    expect(first.required).toEqual(["query"]);
    // minLength 1 goes (every argument is non-empty, and zod still checks it); other bounds stay.
    expect((first.properties as Record<string, unknown>).query).toEqual({
      type: "string",
      maxLength: 9,
      description: "words",
    });
    expect(schema.jsonSchema.input(OPTIONS as never)).toBe(first);
  });

  it("lenient validation lets anything through to the tool wrapper; strict validation does not", async () => {
    const input = z.object({ n: z.number() });
    expect(await memoizedSchema(input, { lenient: true })["~standard"].validate({ n: "x" })).toEqual({
      value: { n: "x" },
    });
    const strict = await memoizedSchema(input)["~standard"].validate({ n: "x" });
    expect(strict).toHaveProperty("issues");
  });
});
