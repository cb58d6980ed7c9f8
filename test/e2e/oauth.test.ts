// AUTH_MODE=oauth end to end: wrangler dev on a loopback http origin, the real
// @cloudflare/workers-oauth-provider, the fake identity provider (hand-made GitHub and OpenID
// Connect, served by the loopback fake upstream), and the MCP SDK's client doing discovery,
// registration, PKCE and the token exchange itself. The "browser" is played here: it follows
// the redirects, signs in at the fake provider as a chosen account, and approves the consent page.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack } from "../../scripts/lib/dev-server.ts";
import { fakeIdentityProviderVars } from "../../scripts/fake-upstream/router.ts";

const REDIRECT = "http://127.0.0.1:33419/callback";

type Stack = Awaited<ReturnType<typeof startStack>>;
const stacks: Stack[] = [];

async function oauthStack(idp: "github" | "oidc", allow: Record<string, string>): Promise<Stack> {
  const stack = await startStack({
    vars: ({ url, fakeOrigin }: { url: string; fakeOrigin: string }) => ({
      AUTH_MODE: "oauth",
      PUBLIC_BASE_URL: url,
      ...fakeIdentityProviderVars(fakeOrigin, idp),
      ...allow,
    }),
  });
  stacks.push(stack);
  return stack;
}

/** The browser: cookies kept by name, redirects followed by hand. */
async function browse(authorizationUrl: URL, account: string, hooks: Record<string, string> = {}) {
  const cookies = new Map<string, string>();
  const get = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, ...value] = pair!.split("=");
      if (/max-age=0/i.test(line)) cookies.delete(name!);
      else cookies.set(name!, value.join("="));
    }
    return response;
  };
  const toProvider = await get(authorizationUrl.href);
  expect(toProvider.status).toBe(302);
  const providerUrl = new URL(toProvider.headers.get("location")!);
  providerUrl.searchParams.set("fake_user", account);
  for (const [key, value] of Object.entries(hooks)) providerUrl.searchParams.set(key, value);
  const atProvider = await get(providerUrl.href);
  const page = await get(atProvider.headers.get("location")!);
  if (page.status !== 200) return { status: page.status, reason: page.headers.get("x-papers-reason"), code: null };
  const handle = /name="handle" value="([^"]+)"/.exec(await page.text())![1]!;
  const approval = await get(`${authorizationUrl.origin}/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: authorizationUrl.origin },
    body: new URLSearchParams({ handle, decision: "approve" }).toString(),
  });
  return {
    status: approval.status,
    reason: null,
    code: new URL(approval.headers.get("location")!).searchParams.get("code"),
  };
}

/** The SDK's OAuth hooks, with the browser above in place of a real one. */
class ScriptedOAuthClient implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  outcome?: Awaited<ReturnType<typeof browse>>;
  private readonly account: string;
  private readonly hooks: Record<string, string>;
  constructor(account: string, hooks: Record<string, string> = {}) {
    this.account = account;
    this.hooks = hooks;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "papers-mcp e2e",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.outcome = await browse(url, this.account, this.hooks);
  }
}

/** Connects as `account`: the first attempt sends the browser through sign-in, the second uses the token. */
async function connectAs(stack: Stack, account: string, hooks: Record<string, string> = {}) {
  const auth = new ScriptedOAuthClient(account, hooks);
  const first = new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { authProvider: auth });
  await expect(new Client({ name: "e2e-oauth", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  if (!auth.outcome?.code) return { auth, client: null };
  await first.finishAuth(auth.outcome.code);
  const client = new Client({ name: "e2e-oauth", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { authProvider: auth }));
  return { auth, client };
}

afterAll(async () => {
  for (const stack of stacks) await stack.stop();
});

describe("AUTH_MODE=oauth through wrangler dev with GitHub sign-in", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await oauthStack("github", { OAUTH_ALLOWED_GITHUB_ORGS: "papers-lab" });
  });

  it("an allowed user signs in; the SDK client registers, exchanges the code with PKCE and calls tools", async () => {
    const { auth, client } = await connectAs(stack, "alice");
    expect(auth.outcome?.status).toBe(302);
    expect(auth.saved?.access_token).toMatch(/^github-1001:/);
    const categories = await client!.callTool({ name: "arxiv_list_categories", arguments: { group: "q-fin" } });
    expect((categories.structuredContent as { count: number }).count).toBe(9);
    const saved = await client!.callTool({ name: "papers_library", arguments: { action: "add", ids: ["0704.0001"] } });
    expect(saved.isError).toBeFalsy();
    await client!.close();
  });

  it("a signed-in user who is not on the allowlist is refused and gets no token", async () => {
    const { auth, client } = await connectAs(stack, "bob");
    expect(client).toBeNull();
    expect(auth.outcome).toMatchObject({ status: 403, reason: "not_allowed", code: null });
    expect(auth.saved).toBeUndefined();
  });

  it("a forged or tampered token is refused with 401 and the resource metadata to start over", async () => {
    const { auth, client } = await connectAs(stack, "alice");
    await client!.close();
    const [user, grant, secret] = auth.saved!.access_token.split(":");
    for (const token of [`${user}:${grant}:${"x".repeat(secret!.length)}`, "forged"]) {
      const response = await fetch(stack.mcpUrl, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain("resource_metadata");
    }
  });
});

describe("AUTH_MODE=oauth through wrangler dev with OpenID Connect sign-in", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await oauthStack("oidc", { OAUTH_ALLOWED_EMAIL_DOMAINS: "lab.example.edu" });
  });

  it("discovery, the ID token and userinfo admit a verified address on the domain", async () => {
    const { auth, client } = await connectAs(stack, "alice");
    expect(auth.saved?.access_token).toMatch(/^oidc-alice-1001:/);
    const result = await client!.callTool({ name: "arxiv_list_categories", arguments: { group: "econ" } });
    expect((result.structuredContent as { count: number }).count).toBe(3);
    await client!.close();
  });

  it("a forged ID token and an unverified address get no token", async () => {
    const forged = await connectAs(stack, "alice", { fake_forge: "signature" });
    expect(forged.auth.outcome).toMatchObject({ status: 400, reason: "sign_in_failed" });
    const unverified = await connectAs(stack, "carol");
    expect(unverified.auth.outcome).toMatchObject({ status: 403, reason: "not_allowed" });
  });
});
