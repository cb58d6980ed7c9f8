// Limits in front of the OAuth endpoints (AUTH_MODE=oauth), before the provider library sees the
// request: every endpoint per IP address, registration per IP more tightly, and all
// registrations per day (each one is a KV write). Refusals are OAuth-style JSON errors with a
// reason and Retry-After, like the rest of the server's refusals.
import type { ErrorReason } from "../errors";
import { AUTHORIZE_PATH, REGISTER_PATH, SIGN_IN_CALLBACK_PATH, TOKEN_PATH } from "./oauth-paths";

const GUARDED_PATHS = new Set([AUTHORIZE_PATH, TOKEN_PATH, REGISTER_PATH, SIGN_IN_CALLBACK_PATH]);

export interface OAuthLimits {
  perIp: RateLimit;
  registrationsPerIp: RateLimit;
  maxRegistrationsPerDay: number;
  /** Counts one more registration today and returns today's count. */
  countRegistration: () => Promise<number>;
}

/** A refusal for a request to an OAuth endpoint over its limits, or null to let it through. */
export async function oauthEndpointRefusal(request: Request, limits: OAuthLimits): Promise<Response | null> {
  const path = new URL(request.url).pathname;
  if (!GUARDED_PATHS.has(path)) return null;
  const ip = `ip:${request.headers.get("cf-connecting-ip") ?? "local"}`;
  if (!(await allowed(limits.perIp, ip)))
    return refuse("Too many sign-in requests from this address.", "Wait a minute, then start again.", 60);
  if (path !== REGISTER_PATH || request.method !== "POST") return null;
  if (!(await allowed(limits.registrationsPerIp, ip)))
    return refuse("Too many client registrations from this address.", "Register once and reuse the client.", 60);
  if ((await limits.countRegistration()) > limits.maxRegistrationsPerDay) {
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    const untilMidnight = Math.ceil((midnight.getTime() - Date.now()) / 1000);
    return refuse(
      "This server has taken all the client registrations it accepts today.",
      "Retry after midnight UTC, or reuse a client you registered before.",
      Math.max(1, untilMidnight),
    );
  }
  return null;
}

/** A broken limiter lets traffic through, logged (as in front of /mcp). */
async function allowed(binding: RateLimit, key: string): Promise<boolean> {
  try {
    return (await binding.limit({ key })).success;
  } catch (error) {
    console.error("rate limiter unavailable; allowing the request", error);
    return true;
  }
}

function refuse(description: string, recovery: string, retryAfterSeconds: number): Response {
  const reason: ErrorReason = "rate_limited";
  return Response.json(
    {
      error: "temporarily_unavailable",
      error_description: description,
      reason,
      recovery,
      retry_after_ms: retryAfterSeconds * 1000,
    },
    { status: 429, headers: { "retry-after": String(retryAfterSeconds), "cache-control": "no-store" } },
  );
}
