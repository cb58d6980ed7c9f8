// Standard Schema adapters for the SDK. Two jobs:
// 1. JSON Schema is computed once per isolate, not once per McpServer (we build a fresh server per
//    request; without this every tools/list and tools/call would convert every schema again).
// 2. tools/list stays small: "$schema" is dropped everywhere, and output schemas keep only the
//    shape (property names and types): no additionalProperties:false, required lists or
//    descriptions. Results are still validated against the full zod schema on our side.
// 3. Input validation is deferred to our tool wrapper (`lenient`), so that a wrong argument comes
//    back as our typed `invalid_argument` error with a recovery hint rather than the SDK's plain text.
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";

type JsonSchemaOptions = Parameters<StandardSchemaWithJSON["~standard"]["jsonSchema"]["input"]>[0];

export function memoizedSchema<T extends z.ZodType>(
  schema: T,
  { lenient = false }: { lenient?: boolean } = {},
): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const standard = schema["~standard"] as unknown as StandardSchemaWithJSON<z.input<T>, z.output<T>>["~standard"];
  const cache = new Map<string, Record<string, unknown>>();
  const converter = (io: "input" | "output") => (options: JsonSchemaOptions) => {
    const key = `${io}:${options.target}`;
    let json = cache.get(key);
    if (!json) {
      json = compact(standard.jsonSchema[io](options), io === "output");
      cache.set(key, json);
    }
    return json;
  };
  return {
    "~standard": {
      version: 1,
      vendor: "papers-mcp",
      validate: lenient ? (value: unknown) => ({ value: value as z.output<T> }) : standard.validate,
      jsonSchema: { input: converter("input"), output: converter("output") },
    },
  } as StandardSchemaWithJSON<z.input<T>, z.output<T>>;
}

function compact(schema: Record<string, unknown>, dropClosed: boolean): Record<string, unknown> {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const record = node as Record<string, unknown>;
    if (record["x-compact"] === true) {
      const description = record["description"] ? { description: record["description"] } : {};
      return record["type"] === "object"
        ? { type: "object", ...description }
        : { type: "array", items: { type: "object" }, ...description };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "$schema") continue;
      if (dropClosed && key === "additionalProperties" && value === false) continue;
      if (dropClosed && (key === "required" || key === "description") && typeof value !== "object") continue;
      if (dropClosed && key === "required" && Array.isArray(value)) continue;
      out[key] = walk(value);
    }
    return out;
  };
  return walk(schema) as Record<string, unknown>;
}

/**
 * An array of records whose shape another tool's schema already spells out: validated in full on
 * our side (the zod schema), advertised as "objects" in tools/list to keep it small.
 */
export function sameShapeAs<T extends z.ZodType>(item: T, note: string) {
  return item.array().meta({ description: note, "x-compact": true });
}

/** One record, validated in full on our side, advertised as an object with a note in tools/list. */
export function compactObject<T extends z.ZodObject>(schema: T, note?: string) {
  return schema.meta({ ...(note ? { description: note } : {}), "x-compact": true });
}
