// The tool pattern: one file per tool exports defineTool({...}); registerTool() wires it into a
// McpServer. Results go out as structuredContent plus a compact text rendering, except a tool
// whose answer is a large text (a page of a paper, an export): that text goes out once, as content
// (see TextPayload). Thrown errors go through toErrorResult(). A tool declares the reasons it can
// fail with, and when; its handler fails through a typed fail() that accepts only those. Every
// call writes one log line.
import type { McpServer, ServerContext, ToolAnnotations } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { type AppContext, callScope, finishCall, heldLog } from "../context";
import { CallBudget, invocationBudget } from "../call-budget";
import { type ErrorReason, PapersError, type PapersErrorOptions } from "../errors";
import { type ErrorPayload, toErrorResult } from "./errors";
import { memoizedSchema } from "./schema";
import { noProgress, type ReportProgress } from "../progress";
import { type D1Meter, emptyMeter, meteredEnv } from "../store/d1-meter";

/** What a handler is given: the app's context (bindings, config, waitUntil, log) and the call's own facts. */
export interface ToolContext extends AppContext {
  /** This server's origin as the client reached it (for links it hands out). */
  origin: string;
  /** Who is calling, for per-client state (the bearer token, the OAuth user, or a named workspace); null when unknown. */
  identity: string | null;
  /** Who is calling, for limits and fair shares (the OAuth user, a token digest, or the IP address). */
  client: string;
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

/** One reason a tool can fail with, when it happens, and what to do (default: the catalogue's recovery). */
export interface ErrorDeclaration<R extends ErrorReason = ErrorReason> {
  reason: R;
  when: string;
  recovery?: string;
}

/** Reasons every tool may fail with without declaring them: bad arguments, and our own bugs. */
export const UNDECLARED_REASONS: readonly ErrorReason[] = [
  "invalid_argument",
  "call_budget_spent",
  "internal_error",
  "server_misconfigured",
];

/** Ends the call with a declared reason (or invalid_argument). */
export type Fail<R extends ErrorReason> = (
  reason: R | "invalid_argument",
  message: string,
  options?: PapersErrorOptions,
) => never;

/** Where a text-payload answer's other fields go (`_meta` of the result), for programs; agents read the content. */
export const ANSWER_META = "papers-mcp/answer";
/** Marks the content item that holds the payload, with the name of the field it came from. */
export const PAYLOAD_META = "papers-mcp/field";

/**
 * An answer that is mostly one large text. Clients pick content or structuredContent differently
 * (Claude Code passes only structuredContent to the model when there is one; Kimi and Hermes only
 * content; Copilot both), so a text sent in both reaches some models twice and a text sent in
 * structuredContent alone reaches others not at all. Such a tool declares no output schema and
 * sends no structuredContent: its content is the rendering (`render`), the payload as its own item,
 * then `after` (the cursor). Its other fields, validated against the output schema, go in `_meta`.
 */
export interface TextPayload<T> {
  field: keyof T & string;
  /** Text after the payload: what to call for the rest. */
  after?(result: T): string;
}

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject, R extends ErrorReason = ErrorReason> {
  name: string;
  title: string;
  /** Two or three sentences: what it does, what it takes, what comes back. */
  description: string;
  /** One line for the server instructions: when an agent should reach for this tool. */
  useWhen: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** Every reason the tool can fail with (besides invalid_argument and internal_error), and when. */
  errors: readonly ErrorDeclaration<R>[];
  handler(args: z.output<I>, context: ToolContext & { fail: Fail<R> }): Promise<z.output<O>> | z.output<O>;
  /** Compact text for clients that show only `content`. */
  render(result: z.output<O>): string;
  /** resource_link items to add to the content (a downloaded file). */
  links?(result: z.output<O>): ResourceLinkContent[];
  /** The answer is one large text: sent once, in content (see TextPayload). */
  payload?: TextPayload<z.output<O>>;
  /**
   * OpenAI's search/fetch contract: the answer is one text item holding its JSON (render is not
   * used). structured: false sends no structuredContent (fetch's text would go twice).
   */
  jsonAnswer?: { structured: boolean };
}

export interface DefinedTool<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
  R extends ErrorReason = ErrorReason,
> extends ToolSpec<I, O, R> {
  readonly inputSchema: ReturnType<typeof memoizedSchema<I>>;
  readonly outputSchema: ReturnType<typeof memoizedSchema<O>>;
  /** The declared reasons and the ones every tool may have. */
  readonly reasons: ReadonlySet<ErrorReason>;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject, R extends ErrorReason>(
  spec: ToolSpec<I, O, R>,
): DefinedTool<I, O, R> {
  return {
    ...spec,
    inputSchema: memoizedSchema(spec.input, { lenient: true }),
    outputSchema: memoizedSchema(spec.output),
    reasons: new Set<ErrorReason>([...spec.errors.map((error) => error.reason), ...UNDECLARED_REASONS]),
  };
}

/** The handler's fail(): a PapersError with the declared recovery unless the call site has a better one. */
function failFor<R extends ErrorReason>(errors: readonly ErrorDeclaration<R>[]): Fail<R> {
  return (reason, message, options = {}) => {
    const declared = errors.find((error) => error.reason === reason);
    throw new PapersError(reason, message, { ...options, recovery: options.recovery ?? declared?.recovery });
  };
}

/**
 * One line per call, for the operator: which tool, how it ended (ok or the reason), where the
 * answer came from, how long it took. A reason the tool did not declare is flagged: its contract drifted.
 */
function logCall(
  log: AppContext["log"],
  tool: DefinedTool,
  outcome: string,
  servedFrom: unknown,
  ms: number,
  meter: D1Meter,
  budget: CallBudget,
): void {
  const spent = budget.spent();
  const line: Record<string, unknown> = {
    event: "tool_call",
    tool: tool.name,
    outcome,
    ms: Math.round(ms),
    // Round trips to D1: all of them, and those that waited on each other (what production pays).
    d1_calls: meter.calls,
    d1_sequential: meter.sequential,
    // What the call spent of the platform's per-invocation limits (CALL_MAX_*).
    d1_queries: spent.d1_queries,
    subrequests: spent.subrequests,
  };
  if (typeof servedFrom === "string") line.served_from = servedFrom;
  if (outcome !== "ok" && !tool.reasons.has(outcome as ErrorReason)) line.undeclared = true;
  log(line);
}

export function invalidArgument(toolName: string, error: z.ZodError): PapersError {
  const problems = error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`)
    .join("; ");
  return new PapersError("invalid_argument", `Invalid arguments for ${toolName}: ${problems}.`, {
    recovery: `Fix the named fields to match ${toolName}'s inputSchema (see tools/list) and call again.`,
  });
}

// Names agents reach for that a tool calls otherwise (the closest by spelling would miss them).
const ARGUMENT_ALIASES: Record<string, readonly string[]> = {
  text: ["reference", "bibliography", "query", "question"],
  citation: ["reference"],
  entry: ["reference"],
  bib: ["bibliography"],
  bibtex: ["bibliography", "reference"],
  q: ["query"],
  search: ["query"],
  keyword: ["query", "keywords"],
  keywords: ["query"],
  id: ["paper_id", "paper_ids", "ids"],
  ids: ["paper_ids", "ids"],
  arxiv_ids: ["paper_ids", "ids"],
  limit: ["max_results", "max_tokens"],
  max: ["max_results"],
  offset: ["start"],
  page_size: ["max_results", "per_page"],
};

/** Edit distance of two short names (the closest field name to a misspelt one). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/**
 * An argument name the tool does not have is refused (a silently dropped `text` made
 * papers_resolve_reference answer that the reference gave nothing to look up), naming the
 * closest argument the tool has.
 */
export function unknownArguments(toolName: string, input: z.ZodObject, args: unknown): PapersError | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  const known = Object.keys(input.shape);
  const unknown = Object.keys(args).filter((name) => !known.includes(name));
  if (unknown.length === 0) return undefined;
  const hints = unknown.slice(0, 3).map((name) => {
    const lower = name.toLowerCase();
    const alias = ARGUMENT_ALIASES[lower]?.find((candidate) => known.includes(candidate));
    const close = known.map((candidate) => ({ candidate, d: distance(lower, candidate) })).sort((x, y) => x.d - y.d)[0];
    const guess = alias ?? (close && close.d <= Math.max(2, Math.floor(name.length / 3)) ? close.candidate : undefined);
    return `\`${name.slice(0, 40)}\` is not an argument of ${toolName}${guess ? `; did you mean \`${guess}\`?` : "."}`;
  });
  return new PapersError("invalid_argument", `${hints.join(" ")} Its arguments: ${known.join(", ") || "none"}.`, {
    recovery: `Call ${toolName} again with only its own arguments (see its inputSchema in tools/list).`,
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

export function registerTool<I extends z.ZodObject, O extends z.ZodObject, R extends ErrorReason>(
  server: McpServer,
  tool: DefinedTool<I, O, R>,
  context: Omit<ToolContext, "progress">,
): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.payload || tool.jsonAnswer?.structured === false ? {} : { outputSchema: tool.outputSchema }),
      annotations: advertisedAnnotations(tool.annotations),
    },
    async (rawArgs: unknown, ctx?: ServerContext) => {
      const outcome = await runTool(tool, rawArgs, { ...context, progress: progressFor(ctx) });
      if (!outcome.ok) return outcome.error;
      const result = outcome.result;
      if (tool.payload) return payloadAnswer(tool, result);
      if (tool.jsonAnswer) return jsonAnswer(tool, result, tool.jsonAnswer.structured);
      return {
        content: [{ type: "text" as const, text: tool.render(result) }, ...(tool.links?.(result) ?? [])],
        structuredContent: result as Record<string, unknown>,
      };
    },
  );
}

/** A tool call's outcome before it is shaped for MCP: the result, or the typed error as a tool error result. */
export type ToolOutcome<O> =
  | { ok: true; result: O }
  | { ok: false; error: ReturnType<typeof toErrorResult>["result"]; payload: ErrorPayload };

/** A budget with the configured limits (CALL_MAX_*). */
export function callBudgetOf(config: AppContext["config"]): CallBudget {
  return new CallBudget({
    d1Queries: config.CALL_MAX_D1_QUERIES,
    subrequests: config.CALL_MAX_SUBREQUESTS,
    ms: config.CALL_MAX_MS,
  });
}

/**
 * One call of a tool, the same for /mcp and for the web pages: unknown and invalid arguments
 * refused, the handler run with a metered env and its typed fail(), and one log line.
 */
export async function runTool<I extends z.ZodObject, O extends z.ZodObject, R extends ErrorReason>(
  tool: DefinedTool<I, O, R>,
  rawArgs: unknown,
  context: ToolContext,
): Promise<ToolOutcome<z.output<O>>> {
  const started = performance.now();
  const meter = emptyMeter();
  const { config } = context;
  // The request's budget when the route made one (a batch's calls share it), else the call's own.
  const budget = invocationBudget() ?? callBudgetOf(config);
  // The lines the handler logs (a mirror search's cost) are held and written with the call's own line.
  const held = heldLog(context.log);
  try {
    const unknown = unknownArguments(tool.name, tool.input, rawArgs);
    if (unknown) throw unknown;
    const parsed = tool.input.safeParse(rawArgs ?? {});
    if (!parsed.success) throw invalidArgument(tool.name, parsed.error);
    const call = callScope(context.client, budget, context.call?.since);
    let result: z.output<O>;
    try {
      result = await tool.handler(parsed.data, {
        ...context,
        env: meteredEnv(context.env, meter, { budget }),
        call,
        log: held.log,
        fail: failFor(tool.errors),
      });
    } finally {
      await finishCall(call);
    }
    const servedFrom = (result as { served_from?: unknown }).served_from;
    logCall(held.flush, tool as unknown as DefinedTool, "ok", servedFrom, performance.now() - started, meter, budget);
    return { ok: true, result };
  } catch (error) {
    const answer = toErrorResult(error);
    const ms = performance.now() - started;
    logCall(held.flush, tool as unknown as DefinedTool, answer.reason, undefined, ms, meter, budget);
    return { ok: false, error: answer.result, payload: answer.payload };
  }
}

/**
 * The annotations without what the spec already implies (tools/list's budget): openWorldHint is
 * true unless said, and idempotentHint and destructiveHint mean something only for a tool that
 * is not read-only.
 */
export function advertisedAnnotations(annotations: ToolAnnotations): ToolAnnotations {
  const { openWorldHint, idempotentHint, destructiveHint, ...rest } = annotations;
  return {
    ...rest,
    ...(openWorldHint === false ? { openWorldHint } : {}),
    ...(annotations.readOnlyHint === true ? {} : { idempotentHint, destructiveHint }),
  };
}

/** With no output schema advertised, the SDK does not check an answer: it is checked here. */
function checkOutput<O extends z.ZodObject>(tool: DefinedTool<z.ZodObject, O>, result: z.output<O>): void {
  const checked = tool.output.safeParse(result);
  if (!checked.success) throw new Error(`${tool.name} answered outside its output schema: ${checked.error.message}`);
}

/** OpenAI's search/fetch shape: the answer's JSON as the one text item (see ToolSpec.jsonAnswer). */
function jsonAnswer<O extends z.ZodObject>(
  tool: DefinedTool<z.ZodObject, O>,
  result: z.output<O>,
  structured: boolean,
) {
  if (!structured) checkOutput(tool, result);
  return {
    content: [{ type: "text" as const, text: JSON.stringify(result) }],
    ...(structured ? { structuredContent: result as Record<string, unknown> } : {}),
  };
}

/** A text-payload answer (see TextPayload): the text once, in content; the other fields in `_meta`. */
function payloadAnswer<O extends z.ZodObject>(tool: DefinedTool<z.ZodObject, O>, result: z.output<O>) {
  const payload = tool.payload!;
  checkOutput(tool, result);
  const { [payload.field]: text, ...fields } = result as Record<string, unknown>;
  const after = payload.after?.(result);
  return {
    content: [
      { type: "text" as const, text: tool.render(result) },
      { type: "text" as const, text: String(text), _meta: { [PAYLOAD_META]: payload.field } },
      ...(after ? [{ type: "text" as const, text: after }] : []),
      ...(tool.links?.(result) ?? []),
    ],
    _meta: { [ANSWER_META]: fields },
  };
}
