// What tools/list shows of a schema: no $schema, output schemas reduced to their shape, compact
// arrays and objects as bare "object", computed once; and lenient input validation defers to the
// tool wrapper (so a wrong argument gets our typed error).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compactObject, memoizedSchema, sameShapeAs } from "./schema";

const OPTIONS = { target: "draft-2020-12" } as const;

describe("memoizedSchema", () => {
  const output = z.object({
    id: z.string().describe("the id"),
    items: sameShapeAs(z.object({ a: z.string(), b: z.number() }), "records as elsewhere"),
    one: compactObject(z.object({ x: z.string() }), "one record"),
  });

  it("reduces an output schema to its shape, with compact parts as bare objects", () => {
    const json = memoizedSchema(output)["~standard"].jsonSchema.output(OPTIONS as never);
    expect(json).not.toHaveProperty("$schema");
    expect(json).not.toHaveProperty("required");
    expect(json).not.toHaveProperty("additionalProperties");
    const properties = json.properties as Record<string, Record<string, unknown>>;
    expect(properties.id).toEqual({ type: "string" });
    expect(properties.items).toEqual({ type: "array", items: { type: "object" }, description: "records as elsewhere" });
    expect(properties.one).toEqual({ type: "object", description: "one record" });
  });

  it("keeps an input schema's descriptions and required list, and computes it once", () => {
    const input = z.object({ query: z.string().describe("words"), n: z.number().optional() });
    const schema = memoizedSchema(input, { lenient: true })["~standard"];
    const first = schema.jsonSchema.input(OPTIONS as never);
    expect(first.required).toEqual(["query"]);
    expect((first.properties as Record<string, { description?: string }>).query?.description).toBe("words");
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
