// Standard Schema adapters for the SDK. Three jobs:
// 1. JSON Schema is computed once per isolate, not once per McpServer (we build a fresh server per
//    request; without this every tools/list and tools/call would convert every schema again).
// 2. tools/list stays small (issue 32: under 14 KB with every tool). "$schema" is dropped, and
//    so is `minLength: 1` (every string argument is non-empty; zod still checks it). Output
//    schemas keep only the answer's top-level field names: models never see output schemas
//    (hosts send name, description and input schema), and the fields' types and the records'
//    shapes are in docs/tools.md. Every answer is still checked against its full zod schema.
// 3. Input validation is deferred to our tool wrapper (`lenient`), so that a wrong argument comes
//    back as our typed `invalid_argument` error with a recovery hint rather than the SDK's plain text.
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { z } from "zod";

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

function compact(schema: Record<string, unknown>, output: boolean): Record<string, unknown> {
  if (output) return topLevelShape(schema);
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const record = node as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (key === "$schema" || key === "x-compact") continue;
      if (key === "minLength" && value === 1) continue;
      if (key === "pattern" && record["format"] === "date") continue;
      out[key] = walk(value);
    }
    return out;
  };
  return walk(schema) as Record<string, unknown>;
}

/**
 * An output schema as its top-level field names: what a program needs to find a field; each
 * field's type and the records' shapes are in docs/tools.md and in the zod schema that checks
 * every answer.
 */
function topLevelShape(schema: Record<string, unknown>): Record<string, unknown> {
  const names = Object.keys((schema["properties"] ?? {}) as Record<string, unknown>);
  return { type: "object", properties: Object.fromEntries(names.map((name) => [name, {}])) };
}

/** A day, YYYY-MM-DD: advertised as JSON Schema's format "date", checked by the pattern. */
export const utcDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD")
  .meta({ format: "date" });
