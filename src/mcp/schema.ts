// Standard Schema adapters for the SDK. Two jobs:
// 1. JSON Schema is computed once per isolate, not once per McpServer (we build a fresh server per
//    request; without this every tools/list and tools/call would convert every schema again).
// 2. Input validation is deferred to our tool wrapper (`lenient`), so that a wrong argument comes
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
      json = standard.jsonSchema[io](options);
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
