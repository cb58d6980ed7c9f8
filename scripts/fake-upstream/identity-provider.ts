// A fake identity provider for AUTH_MODE=oauth, HAND-MADE (no recording of a sign-in exists or
// could be made without real accounts). It follows the documented formats:
//   GitHub OAuth apps  https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
//                      and the REST API's /user, /user/emails, /user/orgs
//   OpenID Connect     Core 1.0 (code flow, ID token claims, UserInfo), Discovery 1.0, RFC 7636 (PKCE), RFC 7517 (JWKS)
// Mounted by the fixture router at <origin>/idp/github (API at /idp/github/api) and <origin>/idp/oidc
// (the issuer). Every answer carries x-fake-upstream: hand-made.
//
// The person at the browser is chosen by the caller: the authorization URL the server redirected to,
// plus `fake_user=<alice|bob|carol>`. Test hooks on the same URL: `fake_deny=1` (the user declines),
// and for OIDC `fake_forge=signature|nonce|audience` (an ID token signed by another key, or with
// claims for another sign-in).
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";

export const FAKE_IDP_CLIENT = { id: "papers-mcp-test", secret: "fake-idp-secret-0123456789" };

/** The accounts the fake provider knows. */
export const FAKE_IDP_USERS = {
  alice: {
    github: { id: 1001, login: "Alice-Lab", name: "Alice Lab" },
    emails: [{ email: "Alice@Lab.example.edu", verified: true, primary: true, visibility: "public" }],
    orgs: [{ login: "papers-lab", id: 5001 }],
    oidc: { sub: "alice-1001", email: "alice@lab.example.edu", email_verified: true, name: "Alice Lab" },
  },
  bob: {
    github: { id: 1002, login: "bob-outsider", name: "Bob" },
    emails: [{ email: "bob@elsewhere.example", verified: true, primary: true, visibility: null }],
    orgs: [],
    // A subject with a colon, as some providers issue: it must survive as a user id.
    oidc: { sub: "tenant:bob-1002", email: "bob@elsewhere.example", email_verified: true, name: "Bob" },
  },
  carol: {
    github: { id: 1003, login: "carol", name: "Carol" },
    emails: [{ email: "carol@lab.example.edu", verified: false, primary: true, visibility: null }],
    orgs: [],
    oidc: { sub: "carol-1003", email: "carol@lab.example.edu", email_verified: false, name: "Carol" },
  },
};

const b64url = (buffer: string | Buffer) => Buffer.from(buffer).toString("base64url");
const handMade = (body: unknown, init: ResponseInit = {}) => {
  const headers = new Headers(init.headers);
  headers.set("x-fake-upstream", "hand-made");
  headers.set("cache-control", "no-store");
  if (typeof body !== "string" && body !== null) headers.set("content-type", "application/json");
  return new Response(typeof body === "string" || body === null ? (body as string | null) : JSON.stringify(body), {
    ...init,
    headers,
  });
};

export function createFakeIdentityProvider() {
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const forgerKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...signingKey.publicKey.export({ format: "jwk" }), kid: "fake-1", alg: "RS256", use: "sig" };
  /** code -> the sign-in it stands for; tokens -> the user they belong to. */
  const codes = new Map();
  const tokens = new Map();
  const stats = { authorize: 0, token: 0, userinfo: 0, api: 0 };

  function jwt(claims: Record<string, unknown>, key: KeyObject) {
    const header = b64url(JSON.stringify({ alg: "RS256", kid: "fake-1", typ: "JWT" }));
    const payload = b64url(JSON.stringify(claims));
    return `${header}.${payload}.${b64url(sign("sha256", Buffer.from(`${header}.${payload}`), key))}`;
  }

  function authorize(url: URL, kind: "github" | "oidc") {
    stats.authorize++;
    const params = url.searchParams;
    const redirect = params.get("redirect_uri");
    if (params.get("client_id") !== FAKE_IDP_CLIENT.id || !redirect)
      return handMade("unknown client or no redirect_uri", { status: 400 });
    const back = new URL(redirect);
    back.searchParams.set("state", params.get("state") ?? "");
    if (params.get("fake_deny") === "1") {
      back.searchParams.set("error", "access_denied");
      return handMade(null, { status: 302, headers: { location: back.href } });
    }
    const user = FAKE_IDP_USERS[(params.get("fake_user") ?? "") as keyof typeof FAKE_IDP_USERS];
    if (!user) return handMade("fake_user must name a known account", { status: 400 });
    if (params.get("code_challenge_method") !== "S256" || !params.get("code_challenge"))
      return handMade("PKCE (S256) is required", { status: 400 });
    const code = b64url(randomBytes(16));
    codes.set(code, {
      kind,
      user,
      redirect,
      challenge: params.get("code_challenge"),
      nonce: params.get("nonce"),
      scope: params.get("scope") ?? "",
      forge: params.get("fake_forge"),
    });
    back.searchParams.set("code", code);
    return handMade(null, { status: 302, headers: { location: back.href } });
  }

  async function token(request: Request, kind: "github" | "oidc", issuer?: string) {
    stats.token++;
    const form = new URLSearchParams(await request.text());
    let clientId = form.get("client_id");
    let secret = form.get("client_secret");
    const basic = /^Basic (.+)$/i.exec(request.headers.get("authorization") ?? "");
    if (basic) [clientId, secret] = Buffer.from(basic[1], "base64").toString().split(":").map(decodeURIComponent);
    const grant = codes.get(form.get("code") ?? "");
    codes.delete(form.get("code") ?? "");
    const verifier = form.get("code_verifier") ?? "";
    const fail = (error: string, description: string) =>
      kind === "github"
        ? // GitHub answers a bad code with 200 and an error body (its documentation, "Error: bad verification code").
          handMade({ error, error_description: description })
        : handMade({ error, error_description: description }, { status: 400 });
    if (clientId !== FAKE_IDP_CLIENT.id || secret !== FAKE_IDP_CLIENT.secret)
      return fail("incorrect_client_credentials", "The client_id and/or client_secret passed are incorrect.");
    if (!grant || grant.kind !== kind || grant.redirect !== form.get("redirect_uri"))
      return fail(kind === "github" ? "bad_verification_code" : "invalid_grant", "The code is incorrect or expired.");
    if (b64url(createHash("sha256").update(verifier).digest()) !== grant.challenge)
      return fail("invalid_grant", "The code_verifier does not match the code_challenge.");
    const accessToken = `fake-${kind}-${b64url(randomBytes(16))}`;
    tokens.set(accessToken, grant.user);
    if (kind === "github")
      return handMade({ access_token: accessToken, token_type: "bearer", scope: grant.scope.replace(/ /g, ",") });
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: issuer,
      sub: grant.user.oidc.sub,
      aud: grant.forge === "audience" ? "another-client" : FAKE_IDP_CLIENT.id,
      iat: now,
      exp: now + 300,
      nonce: grant.forge === "nonce" ? "not-the-nonce-you-sent" : grant.nonce,
      email: grant.user.oidc.email,
      email_verified: grant.user.oidc.email_verified,
      name: grant.user.oidc.name,
    };
    const idToken = jwt(claims, grant.forge === "signature" ? forgerKey.privateKey : signingKey.privateKey);
    return handMade({ access_token: accessToken, token_type: "Bearer", expires_in: 300, id_token: idToken });
  }

  function userOf(request: Request) {
    const match = /^(?:Bearer|token) (.+)$/i.exec(request.headers.get("authorization") ?? "");
    return match ? tokens.get(match[1]) : undefined;
  }

  function githubApi(request: Request, path: string) {
    stats.api++;
    const user = userOf(request);
    if (!user) return handMade({ message: "Bad credentials", status: "401" }, { status: 401 });
    if (path === "/user") return handMade({ ...user.github, type: "User" });
    if (path === "/user/emails") return handMade(user.emails);
    if (path === "/user/orgs") return handMade(user.orgs);
    return handMade({ message: "Not Found" }, { status: 404 });
  }

  /** Answers a request under /idp, or undefined. */
  async function handle(request: Request): Promise<Response | undefined> {
    const url = new URL(request.url);
    if (url.pathname === "/idp/_stats") return handMade(stats);
    if (url.pathname.startsWith("/idp/github/api/"))
      return githubApi(request, url.pathname.slice("/idp/github/api".length));
    if (url.pathname === "/idp/github/login/oauth/authorize") return authorize(url, "github");
    if (url.pathname === "/idp/github/login/oauth/access_token" && request.method === "POST")
      return token(request, "github");
    const issuer = `${url.origin}/idp/oidc`;
    switch (url.pathname) {
      case "/idp/oidc/.well-known/openid-configuration":
        return handMade({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          userinfo_endpoint: `${issuer}/userinfo`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
          scopes_supported: ["openid", "email", "profile"],
          token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
          code_challenge_methods_supported: ["S256"],
          claims_supported: ["sub", "email", "email_verified", "name"],
        });
      case "/idp/oidc/authorize":
        return authorize(url, "oidc");
      case "/idp/oidc/token":
        return request.method === "POST" ? token(request, "oidc", issuer) : undefined;
      case "/idp/oidc/userinfo": {
        stats.userinfo++;
        const user = userOf(request);
        if (!user)
          return handMade(null, { status: 401, headers: { "www-authenticate": 'Bearer error="invalid_token"' } });
        return handMade(user.oidc);
      }
      case "/idp/oidc/jwks":
        return handMade({ keys: [jwk] });
      default:
        return undefined;
    }
  }

  return { handle, stats };
}
