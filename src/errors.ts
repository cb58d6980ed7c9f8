// The one error type of papers-mcp. Every layer throws it (sources, store, upstream);
// src/mcp/errors.ts turns it into an MCP error result. It imports nothing, so any layer may use it.

/**
 * Every reason a call can fail with, and what it means: a closed set, so a new reason is added
 * here (and the compiler finds every place that needs to know). README's error list is checked
 * against it (test/errors.test.ts).
 */
export const ERROR_CATALOGUE = {
  invalid_argument: "the arguments do not match the tool's inputSchema",
  invalid_query: "the search query or question is malformed or has no words",
  invalid_category: "an unknown arXiv category",
  invalid_date: "a date that is malformed or out of range",
  invalid_id: "not an arXiv or NBER ID",
  empty_id: "a resource URI that names no paper",
  invalid_group: "an unknown category group or archive",
  invalid_request: "a request the server cannot act on",
  invalid_watch: "a watch without a query, or with two sources",
  no_match: "nothing matched (no such paper, no tagged paper)",
  not_found: "a resource that does not exist",
  version_not_served: "arXiv does not serve that old version through its API",
  version_unavailable: "the version asked for does not exist",
  start_beyond_result_limit: "paging past the 10,000-result window",
  content_unavailable: "no text of the paper could be found",
  pdf_extraction_failed: "the PDF has no text layer or does not parse",
  content_too_large: "a body larger than the configured cap",
  section_not_found: "no such section, figure or table",
  not_downloadable_now: "NBER refuses the PDF (new or subscriber-only)",
  rate_limited: "too many calls or upstream rate limiting; retry_after_ms says when",
  too_many_concurrent: "too many expensive calls at once from this client",
  server_busy: "the server is extracting as many PDFs as its memory allows; retry_after_ms says when",
  upstream_unavailable: "an upstream is down or answered 5xx",
  upstream_malformed: "an upstream answered something unreadable",
  timeout: "the call's time budget ran out",
  no_identity: "per-client state without a client identity",
  watch_unanswerable: "a watch whose query the mirror cannot answer",
  watch_exists: "a watch with that name exists",
  too_many_watches: "the client's watch limit is reached",
  no_such_watch: "no watch with that id or name",
  request_too_large: "an HTTP request body over the server's cap",
  batch_too_large: "a JSON-RPC batch with too many messages",
  unauthorized: "a missing or wrong bearer or admin token (HTTP 401)",
  not_allowed: "a signed-in user who is not on the server's allowlist (OAuth sign-in, HTTP 403)",
  sign_in_failed: "the identity provider refused, failed or forged the sign-in (OAuth, HTTP 400/502)",
  server_misconfigured: "the operator's configuration is invalid",
  internal_error: "a bug in papers-mcp",
} as const;

export type ErrorReason = keyof typeof ERROR_CATALOGUE;

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
