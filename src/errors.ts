// The one error type of papers-mcp, and the closed list of reasons it can carry. Every layer
// throws it (sources, store, upstream, harvest, the HTTP routes); src/mcp/errors.ts turns it into
// an MCP error result. It imports nothing, so any layer may use it.

export interface ReasonEntry {
  /** What the reason means (README's table of reasons is checked against it). */
  meaning: string;
  /** What the caller can do next, when the thrower has nothing more specific to say. */
  recovery: string;
  /** Whether the same call may succeed later. */
  retryable: boolean;
}

/**
 * Every reason a call can fail with: a closed set, so a new reason is added here (and the
 * compiler finds every place that needs to know), with its meaning, default recovery and whether
 * a retry can help. docs/errors.md's table is checked against it (test/errors.test.ts).
 */
export const ERROR_CATALOGUE = {
  invalid_argument: {
    meaning: "the arguments do not match the tool's inputSchema",
    recovery: "Fix the named fields to match the tool's inputSchema (tools/list) and call again.",
    retryable: false,
  },
  invalid_query: {
    meaning: "the search query or question is malformed or has no words",
    recovery: "Rewrite the query: words, or fields like ti: au: abs: cat: joined by AND, OR, ANDNOT.",
    retryable: false,
  },
  invalid_category: {
    meaning: "an unknown arXiv category",
    recovery: "Pick a code from arxiv_list_categories (cs.CL, astro-ph.CO, ...).",
    retryable: false,
  },
  invalid_date: {
    meaning: "a date that is malformed or out of range",
    recovery: "Give dates as YYYY-MM-DD, the earlier one first.",
    retryable: false,
  },
  invalid_id: {
    meaning: "not an arXiv or NBER ID",
    recovery: "Give an arXiv ID (2401.12345, hep-th/9901001, an arxiv.org link) or an NBER number (w12345).",
    retryable: false,
  },
  empty_id: {
    meaning: "a resource URI that names no paper",
    recovery: "Put the paper's ID in the URI, e.g. arxiv://paper/2401.12345.",
    retryable: false,
  },
  invalid_group: {
    meaning: "an unknown category group or archive",
    recovery: "Call arxiv_list_categories without a group to see the groups.",
    retryable: false,
  },
  invalid_request: {
    meaning: "a request the server cannot act on",
    recovery: "Check the request against the server's documentation and send it again.",
    retryable: false,
  },
  invalid_watch: {
    meaning: "a watch without a query, or with two sources",
    recovery: "Give a watch exactly one of arxiv_query or nber_query.",
    retryable: false,
  },
  no_match: {
    meaning: "nothing matched (no such paper, no tagged paper)",
    recovery: "Check the ID or search for the paper by title.",
    retryable: false,
  },
  not_found: {
    meaning: "a resource that does not exist",
    recovery: "List the resources (resources/list) for what exists.",
    retryable: false,
  },
  version_not_served: {
    meaning: "arXiv does not serve that old version through its API",
    recovery: "Ask for the paper without a version (the latest), or open it on arxiv.org.",
    retryable: false,
  },
  version_unavailable: {
    meaning: "the version asked for does not exist",
    recovery: "Ask for an existing version, or none for the latest.",
    retryable: false,
  },
  start_beyond_result_limit: {
    meaning: "paging past the 10,000-result window",
    recovery: "Narrow the query (a category, a date range) instead of paging further.",
    retryable: false,
  },
  not_in_openalex: {
    meaning: "OpenAlex holds no work for the paper yet (new papers take days)",
    recovery: "Try again in a few days; the paper's metadata and text are unaffected.",
    retryable: true,
  },
  content_unavailable: {
    meaning: "no text of the paper could be found",
    recovery: "Read the abstract with the metadata tools, or open the paper's page.",
    retryable: false,
  },
  pdf_extraction_failed: {
    meaning: "the PDF has no text layer or does not parse",
    recovery: "Open the PDF in a viewer; its text cannot be extracted here.",
    retryable: false,
  },
  content_too_large: {
    meaning: "a body larger than the configured cap",
    recovery: "Open the paper on its own site; it is larger than this server reads.",
    retryable: false,
  },
  section_not_found: {
    meaning: "no such section, figure or table",
    recovery: "Read without a section first: its outline lists the section, figure and table ids.",
    retryable: false,
  },
  not_downloadable_now: {
    meaning: "NBER refuses the PDF (new or subscriber-only)",
    recovery: "Try again in a few days; the paper's info still gives its abstract.",
    retryable: true,
  },
  rate_limited: {
    meaning: "too many calls or upstream rate limiting; retry_after_ms says when",
    recovery: "Wait retry_after_ms, then retry more slowly.",
    retryable: true,
  },
  too_many_concurrent: {
    meaning: "too many expensive calls at once from this client",
    recovery: "Wait for a running read or download to finish, then retry.",
    retryable: true,
  },
  server_busy: {
    meaning: "the server is extracting as many PDFs as its memory allows; retry_after_ms says when",
    recovery: "Retry after retry_after_ms; text already read is cached.",
    retryable: true,
  },
  upstream_unavailable: {
    meaning: "an upstream is down or answered 5xx",
    recovery: "Retry later; the mirror and caches still answer what they hold.",
    retryable: true,
  },
  upstream_malformed: {
    meaning: "an upstream answered something unreadable",
    recovery: "Retry later.",
    retryable: true,
  },
  timeout: {
    meaning: "the call's time budget ran out",
    recovery: "Retry; work already done is cached, so the next try goes further.",
    retryable: true,
  },
  call_budget_spent: {
    meaning: "the call used what one call may of D1 queries or subrequests (the platform's per-invocation limits)",
    recovery: "Call again for the rest; work already done is cached.",
    retryable: true,
  },
  no_identity: {
    meaning: "per-client state without a client identity",
    recovery: "Connect with a token (bearer or OAuth), or send x-papers-workspace: <name> on a server without auth.",
    retryable: false,
  },
  watch_unanswerable: {
    meaning: "a watch whose query the mirror cannot answer",
    recovery: "Use words and fields the mirror can search (no broad prefixes).",
    retryable: false,
  },
  watch_exists: {
    meaning: "a watch with that name exists",
    recovery: "Pick another name, or delete the old watch first.",
    retryable: false,
  },
  too_many_watches: {
    meaning: "the client's watch limit is reached",
    recovery: "Delete a watch you no longer need.",
    retryable: false,
  },
  no_such_watch: {
    meaning: "no watch with that id or name",
    recovery: "List your watches (papers_watch action=list) for their ids and names.",
    retryable: false,
  },
  request_too_large: {
    meaning: "an HTTP request body over the server's cap",
    recovery: "Send smaller arguments; no tool needs a body this large.",
    retryable: false,
  },
  batch_too_large: {
    meaning: "a JSON-RPC batch with too many messages",
    recovery: "Send fewer messages per request.",
    retryable: false,
  },
  unauthorized: {
    meaning: "a missing or wrong bearer or admin token (HTTP 401)",
    recovery: "Send Authorization: Bearer <token> with a token the operator issued.",
    retryable: false,
  },
  not_allowed: {
    meaning: "a signed-in user who is not on the server's allowlist (OAuth sign-in, HTTP 403)",
    recovery: "Ask the server's operator to add you to its allowlist.",
    retryable: false,
  },
  sign_in_failed: {
    meaning: "the identity provider refused, failed or forged the sign-in (OAuth, HTTP 400/502)",
    recovery: "Start signing in again from the app.",
    retryable: true,
  },
  server_misconfigured: {
    meaning: "the operator's configuration is invalid",
    recovery: "The server's operator must fix its configuration.",
    retryable: false,
  },
  internal_error: {
    meaning: "a bug in papers-mcp",
    recovery: "Retry once; if it fails again, report the call to the server's operator.",
    retryable: true,
  },
} as const satisfies Record<string, ReasonEntry>;

export type ErrorReason = keyof typeof ERROR_CATALOGUE;

export interface PapersErrorOptions {
  /** Defaults to the catalogue's flag for the reason. */
  retryable?: boolean;
  retryAfterMs?: number;
  /** What the caller can do next: one or two sentences an agent can act on (default: the catalogue's). */
  recovery?: string;
  cause?: unknown;
}

/** A failure with a reason from the catalogue: what every layer throws and every caller can branch on. */
export class PapersError extends Error {
  override name = "PapersError";
  readonly reason: ErrorReason;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly recovery: string;

  constructor(reason: ErrorReason, message: string, options: PapersErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    this.retryable = options.retryable ?? ERROR_CATALOGUE[reason].retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.recovery = options.recovery ?? ERROR_CATALOGUE[reason].recovery;
  }
}
