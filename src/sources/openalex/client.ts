// The OpenAlex client: every request through politeFetch (the "openalex" crawl gate), with the
// API key from a Worker secret, identical requests coalesced, and list calls counted against the
// day's allowance in D1 as they leave (once the gate lets them go, just before the fetch).
// OpenAlex's answers are classified here: an unknown DOI is an HTML 404 (null: no such work), a
// refused filter a 400 (403 in 2025), a spent allowance a 429, a refused key a 401; a body that is
// not whole JSON is upstream_malformed.
import { PapersError } from "../../errors";
import {
  markBudgetExhausted,
  nextUtcMidnight,
  readBudgetDay,
  takeBudgetedCall,
  utcDay,
} from "../../store/upstream-budget";
import { coalesce } from "../../upstream/coalesce";
import { GateRefusal, politeFetch, readTextCapped } from "../../upstream/fetch";
import type { AppContext } from "../../context";

export const OPENALEX = "openalex";
/** A page of 200 trimmed works is well under 2 MB; a body past this is not an answer we asked for. */
const MAX_BODY_BYTES = 8_000_000;

export type CallKind = "lookup" | "list";

/** The day's list calls are spent (counted here, or OpenAlex said 429): callers fall back to the cache. */
export class AllowanceSpent extends PapersError {
  override name = "AllowanceSpent";
}

export function requireApiKey(ctx: AppContext): string {
  const key = ctx.config.OPENALEX_API_KEY;
  if (!key) {
    throw new PapersError("server_misconfigured", "This server has no OpenAlex API key, so it has no citation graph.", {
      recovery:
        "The operator must set the OPENALEX_API_KEY secret (free at openalex.org; npx wrangler secret put OPENALEX_API_KEY).",
    });
  }
  return key;
}

/** The day's allowance is spent: retry after midnight UTC (or after `atLeastMs`, if later). */
export function allowanceSpent(
  message = "This server's OpenAlex allowance for today is spent, and the cache holds no answer to this request.",
  atLeastMs = 0,
  now = Date.now(),
): AllowanceSpent {
  const retryAfterMs = Math.max(1000, atLeastMs, nextUtcMidnight(now) - now);
  return new AllowanceSpent("rate_limited", message, {
    retryable: true,
    retryAfterMs,
    recovery: `Retry after ${Math.ceil(retryAfterMs / 60_000)} min (midnight UTC), or ask for a page already cached.`,
  });
}

/**
 * GETs `path` (with its query) from OpenAlex and parses the JSON; null when OpenAlex has no such
 * thing (404). A list call takes one of the day's allowance just before it is sent.
 */
export async function openAlexGet(
  ctx: AppContext,
  path: string,
  kind: CallKind,
  deadline?: number,
): Promise<unknown | null> {
  const key = requireApiKey(ctx);
  return coalesce(`openalex ${path}`, async () => {
    const separator = path.includes("?") ? "&" : "?";
    let response: Response;
    try {
      response = await politeFetch(ctx, OPENALEX, `${path}${separator}api_key=${encodeURIComponent(key)}`, {
        passStatuses: [400, 401, 403, 404],
        headers: { accept: "application/json" },
        ...(deadline === undefined ? {} : { deadline }),
        // Taken once the gate lets the request go: a request refused or out of time on the way takes none.
        ...(kind === "list" ? { beforeSend: () => takeListCall(ctx) } : {}),
      });
    } catch (error) {
      const ours = error instanceof GateRefusal || error instanceof AllowanceSpent;
      if (error instanceof PapersError && error.reason === "rate_limited" && !ours) {
        // OpenAlex's 429 means the key's daily allowance is spent: count the day as spent.
        await markBudgetExhausted(ctx.env.DB, OPENALEX, ctx.config.OPENALEX_DAILY_LIST_CALLS);
        throw allowanceSpent("OpenAlex answered 429: this server's allowance for today is spent.", error.retryAfterMs);
      }
      throw error;
    }
    return readAnswer(response);
  });
}

/** One list call of the day's allowance, or AllowanceSpent. */
async function takeListCall(ctx: AppContext): Promise<void> {
  if (!(await takeBudgetedCall(ctx.env.DB, OPENALEX, ctx.config.OPENALEX_DAILY_LIST_CALLS))) throw allowanceSpent();
}

async function readAnswer(response: Response): Promise<unknown | null> {
  const status = response.status;
  if (status === 404) {
    await response.body?.cancel();
    return null;
  }
  const text = await readTextCapped(response, MAX_BODY_BYTES, "OpenAlex");
  if (status === 401)
    throw new PapersError("server_misconfigured", "OpenAlex did not accept this server's API key (HTTP 401).", {
      recovery: "The operator must set a valid OPENALEX_API_KEY secret; the citation graph is off until then.",
    });
  if (status === 400 || status === 403) {
    const message = errorMessage(text);
    throw new PapersError("invalid_request", `OpenAlex refused the request (HTTP ${status}${message}).`, {
      recovery: "This request will not succeed if repeated; report the call to the server's operator.",
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new PapersError("upstream_malformed", "OpenAlex answered something that is not whole JSON.", {
      retryable: true,
      recovery: "Retry later; if it persists, OpenAlex is misbehaving.",
      cause: error,
    });
  }
}

/** OpenAlex's JSON error ({error, message}) in a few words; nothing for an HTML page. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const said = typeof body.message === "string" ? body.message : typeof body.error === "string" ? body.error : "";
    return said ? `: ${said.slice(0, 160)}` : "";
  } catch {
    return "";
  }
}

/** Today's OpenAlex allowance as /status shows it. */
export async function openAlexAllowance(ctx: AppContext, now = Date.now()) {
  const today = await readBudgetDay(ctx.env.DB, OPENALEX, now);
  return {
    key_configured: Boolean(ctx.config.OPENALEX_API_KEY),
    day: utcDay(now),
    list_calls_used: today?.used ?? 0,
    list_calls_per_day: ctx.config.OPENALEX_DAILY_LIST_CALLS,
    exhausted_at: today?.exhausted_at ?? null,
    resets_at: new Date(nextUtcMidnight(now)).toISOString(),
  };
}
