// Who is calling, for limits and per-client state, in each AUTH_MODE; and how that identity
// travels to the MCP server factory (an internal header, never one the client sent).
import { arxivShards, type MirrorShard } from "../store/arxiv-shards";
import type { Context } from "hono";
import type { Config } from "../config";
import { type AppContext, appContext } from "../context";
import { bearerToken, sha256Hex, tokenMatches, unauthorized } from "../http/auth";
import type { GrantProps } from "../http/consent";

export type RouteContext = Context<{ Bindings: Env }>;

/** The app's context for a request: routes build it here and pass it down (never `env` and loadConfig). */
export function appContextOf(c: RouteContext): AppContext {
  return appContext(c.env, (promise) => c.executionCtx.waitUntil(promise));
}

/** Carries the caller's identity from the route to the MCP server factory; any copy a client sends is dropped. */
export const IDENTITY_HEADER = "x-papers-identity";
/** Carries the caller's limits key (who.client) the same way: its fair share of the upstream gates. */
export const CLIENT_HEADER = "x-papers-client";

/**
 * Who is calling, for limits and per-client state: the signed-in OAuth user (the same across their
 * clients and grants, so registering again resets nothing), the bearer token (by digest), or the IP address.
 * In bearer mode a missing or wrong token is answered here with 401.
 */
export async function identify(
  c: RouteContext,
  config: Config,
): Promise<{ client: string; identity: string | null } | { refusal: Response }> {
  if (config.AUTH_MODE === "oauth") {
    // The provider let the request through only with a valid token; its grant's props name the user.
    const props = (c.executionCtx as unknown as { props?: Partial<GrantProps> }).props;
    if (!props?.userId) return { refusal: unauthorized("papers-mcp", "The token names no user; sign in again.") };
    const user = `oauth-user:${props.userId}`;
    return { client: user, identity: user };
  }
  if (config.AUTH_MODE === "bearer") {
    const token = bearerToken(c.req.header("authorization"));
    if (!(await tokenMatches(token, config.AUTH_TOKEN_HASHES))) {
      return {
        refusal: unauthorized("papers-mcp", token ? "The bearer token is not valid." : "A bearer token is required."),
      };
    }
    const client = `token:${(await sha256Hex(token!)).slice(0, 16)}`;
    return { client, identity: client };
  }
  // AUTH_MODE=none has no users: per-client state lives in a workspace the caller names, which
  // anyone who knows the name can use (README: not private).
  const workspace = c.req.header(WORKSPACE_HEADER);
  return {
    client: `ip:${c.req.header("cf-connecting-ip") ?? "local"}`,
    identity: workspace && WORKSPACE_NAME.test(workspace) ? `workspace:${workspace}` : null,
  };
}

const WORKSPACE_HEADER = "x-papers-workspace";
const WORKSPACE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The request as the MCP handler sees it: with the caller's identity (never one the client sent)
 * for per-client state, and its limits key for fair shares.
 */
export function withIdentity(
  request: Request,
  who: { identity: string | null; client: string },
  body?: string,
): Request {
  const headers = new Headers(request.headers);
  headers.delete(IDENTITY_HEADER);
  headers.set(CLIENT_HEADER, who.client);
  if (who.identity) headers.set(IDENTITY_HEADER, who.identity);
  return new Request(request.url, { method: request.method, headers, ...(body === undefined ? {} : { body }) });
}

/** The arXiv mirror's shards for /status and /health: none listed when the configuration is broken (the page still answers). */
export function mirrorShardsOf(c: RouteContext): MirrorShard[] {
  try {
    return arxivShards(appContextOf(c));
  } catch {
    return [];
  }
}
