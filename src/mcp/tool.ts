// The tool pattern: one file per tool exports defineTool({...}); registerTool() wires it into a
// McpServer. Results go out as structuredContent plus a compact text rendering; thrown errors go
// through toErrorResult().
import type { McpServer, ServerContext, ToolAnnotations } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Config } from "../config";
import { type ErrorReason, ToolError } from "../errors";
import { toErrorResult } from "./errors";
import { memoizedSchema } from "./schema";
import { noProgress, type ReportProgress } from "../progress";

export interface ToolContext {
  env: Env;
  config: Config;
  /** Lets a handler finish work (cache writes, logs) after the answer is sent. */
  waitUntil(promise: Promise<unknown>): void;
  /** This server's origin as the client reached it (for links it hands out). */
  origin: string;
  /** Who is calling, for per-client state (the bearer token, the OAuth user, or a named workspace); null when unknown. */
  identity: string | null;
  /** Progress of this call (notifications/progress when the client sent a progressToken; else a no-op). */
  progress: ReportProgress;
}

export interface ResourceLinkContent {
  type: "resource_link";
  uri: string;
  name: string;
  mimeType?: string;
  size?: number;
}

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  /** Two or three sentences: what it does, what it takes, what comes back. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** Every error reason the handler can produce (besides invalid_argument and internal_error). */
  errors: readonly ErrorReason[];
  handler(args: z.output<I>, context: ToolContext): Promise<z.output<O>> | z.output<O>;
  /** Compact text for clients that show only `content`. */
  render(result: z.output<O>): string;
  /** resource_link items to add to the content (a downloaded file). */
  links?(result: z.output<O>): ResourceLinkContent[];
}

export interface DefinedTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject>
  extends ToolSpec<I, O> {
  readonly inputSchema: ReturnType<typeof memoizedSchema<I>>;
  readonly outputSchema: ReturnType<typeof memoizedSchema<O>>;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): DefinedTool<I, O> {
  return {
    ...spec,
    inputSchema: memoizedSchema(spec.input, { lenient: true }),
    outputSchema: memoizedSchema(spec.output),
  };
}

export function invalidArgument(toolName: string, error: z.ZodError): ToolError {
  const problems = error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`)
    .join("; ");
  return new ToolError("invalid_argument", `Invalid arguments for ${toolName}: ${problems}.`, {
    recovery: `Fix the named fields to match ${toolName}'s inputSchema (see tools/list) and call again.`,
  });
}

/** The call's progress reporter: notifications/progress on the call's own stream, when asked for. */
function progressFor(ctx: ServerContext | undefined): ReportProgress {
  const token = ctx?.mcpReq._meta?.progressToken;
  if (token === undefined || !ctx) return noProgress;
  // Progress must increase (the spec): a later phase that counts from 1 again (references
  // resolved after the PDF's pages) continues from where the last one ended.
  let last = 0;
  let base = 0;
  return (message, progress, total) => {
    if (progress + base <= last) base = last;
    const value = progress + base;
    last = value;
    ctx.mcpReq
      .notify({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: value,
          ...(total === undefined ? {} : { total: total + base }),
          message,
        },
      })
      .catch((error: unknown) => console.error("progress notification failed", error));
  };
}

export function registerTool<I extends z.ZodObject, O extends z.ZodObject>(
  server: McpServer,
  tool: DefinedTool<I, O>,
  context: Omit<ToolContext, "progress">,
): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
    },
    async (rawArgs: unknown, ctx?: ServerContext) => {
      try {
        const parsed = tool.input.safeParse(rawArgs ?? {});
        if (!parsed.success) throw invalidArgument(tool.name, parsed.error);
        const result = await tool.handler(parsed.data, { ...context, progress: progressFor(ctx) });
        return {
          content: [{ type: "text" as const, text: tool.render(result) }, ...(tool.links?.(result) ?? [])],
          structuredContent: result as Record<string, unknown>,
        };
      } catch (error) {
        return toErrorResult(error);
      }
    },
  );
}
