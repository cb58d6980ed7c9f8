// Sign-in at the upstream identity provider (AUTH_MODE=oauth): a GitHub OAuth app, or any OpenID
// Connect provider found from its issuer's discovery document. oauth4webapi speaks the protocol
// (PKCE, the authorization code grant, discovery, the ID token's claims and nonce); jose checks the
// ID token's signature against the provider's published keys, which oauth4webapi leaves to TLS.
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import type { Config } from "../config";
import { SIGN_IN_CALLBACK_PATH } from "./oauth-paths";

export interface SignedInUser {
  /** Stable and unique at this server (github-<numeric id>, oidc-<sub>); never contains ':'. */
  userId: string;
  provider: "github" | "oidc";
  /** What the consent page shows: the GitHub login, or the OIDC name or address. */
  displayName: string;
  /** GitHub only, lower case. */
  githubLogin?: string;
  /** Addresses the provider says are verified, lower case. */
  verifiedEmails: string[];
  /** GitHub organizations the user belongs to (lower case); asked only when the allowlist names some. */
  githubOrgs: string[];
}

/** What the callback needs from the start of the sign-in; kept sealed by the OAuth library. */
export interface PendingSignIn {
  codeVerifier: string;
  nonce?: string;
}

/** The sign-in did not produce a user: refused or forged (400), or the provider failed (502). */
export class SignInError extends Error {
  override name = "SignInError";
  constructor(
    message: string,
    readonly status: 400 | 502,
  ) {
    super(message);
  }
}

export function newPendingSignIn(config: Config): PendingSignIn {
  return {
    codeVerifier: oauth.generateRandomCodeVerifier(),
    ...(config.OAUTH_IDP === "oidc" ? { nonce: oauth.generateRandomNonce() } : {}),
  };
}

/** The provider's authorization URL for this sign-in. */
export async function signInUrl(config: Config, state: string, pending: PendingSignIn): Promise<string> {
  const server = await authorizationServer(config);
  const url = new URL(server.authorization_endpoint!);
  const params: Record<string, string> = {
    client_id: config.OAUTH_IDP_CLIENT_ID!,
    redirect_uri: callbackUrl(config),
    response_type: "code",
    scope: scopes(config),
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.codeVerifier),
    code_challenge_method: "S256",
    ...(pending.nonce ? { nonce: pending.nonce } : {}),
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** At the callback: the code exchanged (with the PKCE verifier) and the user read from the provider. */
export async function finishSignIn(config: Config, callback: URL, pending: PendingSignIn): Promise<SignedInUser> {
  try {
    const server = await authorizationServer(config);
    const client: oauth.Client = { client_id: config.OAUTH_IDP_CLIENT_ID! };
    // The OAuth library has already checked `state` (and that this browser started the sign-in).
    const params = oauth.validateAuthResponse(server, client, callback, oauth.skipStateCheck);
    const response = await oauth.authorizationCodeGrantRequest(
      server,
      client,
      oauth.ClientSecretPost(config.OAUTH_IDP_CLIENT_SECRET!),
      params,
      callbackUrl(config),
      pending.codeVerifier,
      {
        ...requestOptions(config),
        ...(config.OAUTH_IDP === "github" ? { [oauth.customFetch]: githubTokenFetch } : {}),
      },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(server, client, response, {
      ...(pending.nonce ? { expectedNonce: pending.nonce, requireIdToken: true } : {}),
    });
    return config.OAUTH_IDP === "github"
      ? await githubUser(config, tokens.access_token)
      : await oidcUser(config, server, client, tokens);
  } catch (error) {
    throw asSignInError(error);
  }
}

function callbackUrl(config: Config): string {
  return `${config.PUBLIC_BASE_URL}${SIGN_IN_CALLBACK_PATH}`;
}

function scopes(config: Config): string {
  if (config.OAUTH_IDP === "oidc") return "openid email profile";
  // Organizations are read only when the allowlist names some (read:org shows private memberships).
  return config.OAUTH_ALLOWED_GITHUB_ORGS.length > 0 ? "read:user user:email read:org" : "read:user user:email";
}

function requestOptions(config: Config) {
  // http is accepted only for a loopback setup (config.ts refuses it otherwise).
  return { signal: () => AbortSignal.timeout(config.OAUTH_IDP_TIMEOUT_MS), [oauth.allowInsecureRequests]: true };
}

// Discovery answers and keys change rarely: kept per isolate for an hour.
const DISCOVERY_TTL_MS = 3_600_000;
const discovered = new Map<string, { at: number; server: oauth.AuthorizationServer }>();
const keySets = new Map<string, { at: number; keys: JSONWebKeySet }>();

async function authorizationServer(config: Config): Promise<oauth.AuthorizationServer> {
  if (config.OAUTH_IDP === "github") {
    // GitHub is not an OpenID provider and publishes no discovery document.
    const base = config.OAUTH_GITHUB_BASE_URL;
    return {
      issuer: base,
      authorization_endpoint: `${base}/login/oauth/authorize`,
      token_endpoint: `${base}/login/oauth/access_token`,
    };
  }
  const issuer = config.OAUTH_OIDC_ISSUER!;
  const cached = discovered.get(issuer);
  if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.server;
  try {
    const issuerUrl = new URL(issuer);
    const response = await oauth.discoveryRequest(issuerUrl, { algorithm: "oidc", ...requestOptions(config) });
    const server = await oauth.processDiscoveryResponse(issuerUrl, response);
    discovered.set(issuer, { at: Date.now(), server });
    return server;
  } catch (error) {
    throw asSignInError(error, 502);
  }
}

/**
 * GitHub answers a refused code with HTTP 200 and an OAuth error body (its documentation: "bad
 * verification code"); given the standard 400 instead, the library reports the provider's error.
 */
async function githubTokenFetch(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  if (!response.ok || !response.headers.get("content-type")?.includes("json")) return response;
  const body = await response.text();
  const status = /"error"\s*:/.test(body) && !/"access_token"\s*:/.test(body) ? 400 : 200;
  return new Response(body, { status, headers: response.headers });
}

async function githubUser(config: Config, accessToken: string): Promise<SignedInUser> {
  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${config.OAUTH_GITHUB_API_BASE_URL}${path}`, {
      headers: {
        accept: "application/vnd.github+json",
        authorization: `Bearer ${accessToken}`,
        "user-agent": config.UPSTREAM_USER_AGENT,
        "x-github-api-version": "2022-11-28",
      },
      signal: AbortSignal.timeout(config.OAUTH_IDP_TIMEOUT_MS),
    });
    if (!response.ok) throw new SignInError(`GitHub answered ${response.status} for ${path}.`, 502);
    return (await response.json()) as T;
  };
  const user = await api<{ id?: unknown; login?: unknown }>("/user");
  if (typeof user.id !== "number" || typeof user.login !== "string")
    throw new SignInError("GitHub's /user answer has no id or login.", 502);
  const wantsEmails = config.OAUTH_ALLOWED_EMAILS.length > 0 || config.OAUTH_ALLOWED_EMAIL_DOMAINS.length > 0;
  const emails = wantsEmails ? await api<{ email?: unknown; verified?: unknown }[]>("/user/emails") : [];
  const orgs = config.OAUTH_ALLOWED_GITHUB_ORGS.length > 0 ? await api<{ login?: unknown }[]>("/user/orgs") : [];
  return {
    userId: `github-${user.id}`,
    provider: "github",
    displayName: user.login,
    githubLogin: user.login.toLowerCase(),
    verifiedEmails: (Array.isArray(emails) ? emails : [])
      .filter((entry) => entry.verified === true && typeof entry.email === "string")
      .map((entry) => (entry.email as string).toLowerCase()),
    githubOrgs: (Array.isArray(orgs) ? orgs : [])
      .filter((org) => typeof org.login === "string")
      .map((org) => (org.login as string).toLowerCase()),
  };
}

async function oidcUser(
  config: Config,
  server: oauth.AuthorizationServer,
  client: oauth.Client,
  tokens: oauth.TokenEndpointResponse,
): Promise<SignedInUser> {
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  if (!claims || !tokens.id_token) throw new SignInError("The provider sent no ID token.", 400);
  if (!server.jwks_uri) throw new SignInError("The provider publishes no signing keys (jwks_uri).", 502);
  try {
    await jwtVerify(tokens.id_token, createLocalJWKSet(await signingKeys(config, server.jwks_uri)), {
      issuer: server.issuer,
      audience: client.client_id,
    });
  } catch {
    throw new SignInError("The ID token's signature does not verify against the provider's keys.", 400);
  }
  let profile: Record<string, unknown> = { ...claims };
  if (server.userinfo_endpoint) {
    const response = await oauth.userInfoRequest(server, client, tokens.access_token, requestOptions(config));
    profile = { ...profile, ...(await oauth.processUserInfoResponse(server, client, claims.sub, response)) };
  }
  const email = typeof profile.email === "string" ? profile.email.toLowerCase() : undefined;
  const name = typeof profile.name === "string" ? profile.name : undefined;
  return {
    userId: `oidc-${encodeURIComponent(claims.sub)}`,
    provider: "oidc",
    displayName: name ?? email ?? claims.sub,
    verifiedEmails: email && profile.email_verified === true ? [email] : [],
    githubOrgs: [],
  };
}

async function signingKeys(config: Config, jwksUri: string): Promise<JSONWebKeySet> {
  const cached = keySets.get(jwksUri);
  if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.keys;
  const response = await fetch(jwksUri, { signal: AbortSignal.timeout(config.OAUTH_IDP_TIMEOUT_MS) });
  if (!response.ok) throw new SignInError(`The provider's keys answered ${response.status}.`, 502);
  const keys = (await response.json()) as JSONWebKeySet;
  if (!Array.isArray(keys?.keys)) throw new SignInError("The provider's key set is malformed.", 502);
  keySets.set(jwksUri, { at: Date.now(), keys });
  return keys;
}

function asSignInError(error: unknown, fallbackStatus: 400 | 502 = 502): SignInError {
  if (error instanceof SignInError) return error;
  if (error instanceof oauth.AuthorizationResponseError)
    return new SignInError(`The provider refused the sign-in: ${error.error}.`, 400);
  if (error instanceof oauth.ResponseBodyError)
    return new SignInError(`The provider refused the code: ${error.error}.`, error.status >= 500 ? 502 : 400);
  if (error instanceof oauth.OperationProcessingError) {
    // A claim or nonce that does not match is a forged or replayed sign-in; anything else is a broken answer.
    const forged = [oauth.JWT_CLAIM_COMPARISON, oauth.JWT_TIMESTAMP_CHECK, oauth.JSON_ATTRIBUTE_COMPARISON];
    return new SignInError(
      `The provider's answer does not check out: ${error.message}`,
      forged.includes(error.code as (typeof forged)[number]) ? 400 : 502,
    );
  }
  return new SignInError(
    `The provider could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    fallbackStatus,
  );
}
