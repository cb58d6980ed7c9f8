// The one error type of papers-mcp. Every layer throws it (sources, store, upstream);
// src/mcp/errors.ts turns it into an MCP error result. It imports nothing, so any layer may use it.

export type ErrorReason =
  | "invalid_argument"
  | "invalid_group"
  | "not_found"
  | "rate_limited"
  | "upstream_unavailable"
  | "upstream_malformed"
  | "invalid_request"
  | "timeout"
  | "internal_error"
  // Later capabilities add their reasons here, so the set stays one typed enum.
  | (string & {});

export interface ToolErrorOptions {
  retryable?: boolean;
  retryAfterMs?: number;
  /** What the caller can do next: one or two sentences an agent can act on. */
  recovery: string;
  cause?: unknown;
}

export class ToolError extends Error {
  override name = "ToolError";
  readonly reason: ErrorReason;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly recovery: string;

  constructor(reason: ErrorReason, message: string, options: ToolErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.recovery = options.recovery;
  }
}
