// env -> typed, validated config. The one place that knows every variable and its default.
import { z } from "zod";
import { parseShardSpec } from "./shard-spec";

const baseUrl = z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, ""));
const millis = (fallback: number) => z.coerce.number().int().min(0).max(3_600_000).default(fallback);
const seconds = (fallback: number, max: number) => z.coerce.number().int().min(0).max(max).default(fallback);
const flag = (fallback: "true" | "false") =>
  z
    .enum(["true", "false"])
    .default(fallback)
    .transform((value) => value === "true");
/** A comma-separated list, trimmed and lower-cased; empty entries dropped. */
const lowerCaseList = z
  .string()
  .default("")
  .transform((list) =>
    list
      .split(",")
      .map((entry) => entry.trim().toLowerCase())
      .filter((entry) => entry.length > 0),
  );
const LOOPBACK_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);
const isLoopbackHttp = (url: string) => {
  const parsed = new URL(url);
  return parsed.protocol === "http:" && LOOPBACK_HOSTNAMES.has(parsed.hostname);
};

const configSchema = z.object({
  ARXIV_API_BASE_URL: baseUrl.default("https://export.arxiv.org/api"),
  ARXIV_BASE_URL: baseUrl.default("https://arxiv.org"),
  AR5IV_BASE_URL: baseUrl.default("https://ar5iv.labs.arxiv.org"),
  ARXIV_MIRROR_OAI_BASE_URL: baseUrl.default("https://oaipmh.arxiv.org/oai"),
  NBER_BASE_URL: baseUrl.default("https://www.nber.org"),
  OPENALEX_BASE_URL: baseUrl.default("https://api.openalex.org"),
  /** Secret: the OpenAlex API key (free at openalex.org/settings/api). Unset: the citation graph answers server_misconfigured. */
  OPENALEX_API_KEY: z.string().min(1).optional(),
  /** OpenAlex allows 100 requests a second; we send at most one per this spacing, across isolates. */
  OPENALEX_REQUEST_DELAY_MS: millis(100),
  /** off: a reference is never looked up in OpenAlex (it is asked only when Crossref cannot be). */
  OPENALEX_RESOLVE_ENABLED: flag("true"),
  OPENALEX_TIMEOUT_MS: millis(10000),
  /** List calls (citing and cited pages) per UTC day; the free key's $1 a day buys 10,000. Past it: the cache only. */
  OPENALEX_DAILY_LIST_CALLS: z.coerce.number().int().min(0).max(1_000_000).default(9000),
  /** How long a work's citation count, and a page of citing or cited works, count as fresh. */
  OPENALEX_COUNTS_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86400)
    .default(86400),
  OPENALEX_LIST_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86400)
    .default(86400),
  CROSSREF_BASE_URL: baseUrl.default("https://api.crossref.org"),
  /** off: references outside arXiv and NBER are not looked up in Crossref (the answer says so in tried). */
  CROSSREF_ENABLED: flag("true"),
  /** A contact address sent as mailto= so that Crossref serves us from its polite pool (10 a second, not 5). */
  CROSSREF_MAILTO: z.email().optional(),
  /** Spacing of Crossref requests across isolates; unset, 200 ms (public pool: 5 a second) or 100 ms with CROSSREF_MAILTO (polite: 10). */
  CROSSREF_REQUEST_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  CROSSREF_TIMEOUT_MS: millis(8000),
  /** How long a Crossref answer (a work, a reference's candidates, an unknown DOI) is reused from D1. */
  CROSSREF_CACHE_TTL_SECONDS: seconds(7 * 86400, 90 * 86400),
  /** doi.org's registration-agency lookup: which agency (Crossref, DataCite, JaLC, mEDRA...) registered a DOI Crossref lacks. */
  DOI_RA_BASE_URL: baseUrl.default("https://doi.org"),
  ARXIV_REQUEST_DELAY_MS: millis(3000),
  ARXIV_MIRROR_OAI_REQUEST_DELAY_MS: millis(3000),
  ARXIV_CONTENT_REQUEST_DELAY_MS: millis(1000),
  NBER_REQUEST_DELAY_MS: millis(1000),
  /** Added to every upstream's spacing between departures, so that jitter in transit cannot bring a gap under the delay. */
  CRAWL_GATE_MARGIN_MS: z.coerce.number().int().min(0).max(10_000).default(40),
  ARXIV_API_TIMEOUT_MS: millis(15000),
  /** One OAI-PMH page (1,000 arXivRaw records, a few MB) may take longer than an API answer. */
  ARXIV_MIRROR_OAI_TIMEOUT_MS: millis(60000),
  ARXIV_MIRROR_OAI_METADATA_PREFIX: z.enum(["arXivRaw", "arXiv"]).default("arXivRaw"),
  /** Harvest one OAI set only (cs, math, physics:hep-th, ...); empty: all of arXiv. */
  ARXIV_MIRROR_OAI_SET: z
    .string()
    .regex(/^[a-z-]+(?::[a-z-]+)?$/i)
    .optional(),
  /** off: search and lookup never read the mirror. */
  ARXIV_MIRROR_ENABLED: flag("true"),
  /** An ID the mirror lacks is looked up live (true) or reported as version_not_in_mirror / not_in_arxiv / not_yet_harvested (false). */
  ARXIV_MIRROR_FALLBACK_LIVE: flag("true"),
  /** Newest-first searches whose window reaches into the last N days go live (the mirror trails by up to a day); 0: never. */
  ARXIV_MIRROR_RECENT_DAYS_LIVE: z.coerce.number().int().min(0).max(365).default(2),
  /** An enabled mirror that holds nothing starts its cold harvest at the first cron (false: only POST /admin/harvest does). */
  ARXIV_MIRROR_AUTO_COLD: flag("true"),
  /** How many pages a cold harvest's datestamp window aims at: a lost token re-reads at most about this many. */
  ARXIV_MIRROR_WINDOW_PAGES: z.coerce.number().int().min(1).max(10_000).default(40),
  /** A failing page is retried (exponential backoff from this delay, with jitter) ... */
  ARXIV_MIRROR_RETRY_BASE_MS: millis(10_000),
  /** ... each wait capped here ... */
  ARXIV_MIRROR_RETRY_MAX_MS: millis(30 * 60_000),
  /** ... for this many hours after its first failure; then it goes to the dead-letter queue and the run stops. */
  ARXIV_MIRROR_FAILURE_BUDGET_HOURS: z.coerce.number().min(0).max(168).default(12),
  /** A run whose next step has not happened for this long (and has no retry queued) is resumed from its checkpoint. */
  ARXIV_MIRROR_STALL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** Reads that may be a moment old go through D1 sessions (a read replica may answer; docs/operations.md). */
  D1_READ_REPLICATION: flag("false"),
  /** The arXiv mirror's D1 databases: `DB` alone, or `DB, ARXIV_SHARD_2@2015-01, ...` (each later one from an ID month; docs/operations.md). */
  ARXIV_MIRROR_SHARDS: z
    .string()
    .default("DB")
    .transform((spec, ctx) => {
      try {
        return parseShardSpec(spec);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  ARXIV_CONTENT_TIMEOUT_MS: millis(30000),
  ARXIV_READ_TIMEOUT_MS: millis(50000),
  NBER_TIMEOUT_MS: millis(15000),
  ARXIV_READ_MAX_HTML_BYTES: z.coerce.number().int().min(1).default(30_000_000),
  ARXIV_READ_MAX_PDF_BYTES: z.coerce.number().int().min(1).default(40_000_000),
  ARXIV_READ_MAX_PDF_PAGES: z.coerce.number().int().min(1).max(5000).default(300),
  ARXIV_READ_MAX_TEXT_CHARS: z.coerce.number().int().min(1000).default(2_000_000),
  /** How long an arXiv API answer is reused; arXiv announces new papers once a day. */
  ARXIV_CACHE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86400)
    .default(14400),
  MCP_ALLOWED_HOSTNAMES: lowerCaseList,
  UPSTREAM_USER_AGENT: z.string().min(1).default("papers-mcp/0.1 (+https://github.com/papers-mcp/papers-mcp)"),
  /** NBER's CDN turns away non-browser agents; this one it accepts. */
  NBER_USER_AGENT: z
    .string()
    .min(1)
    .default("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"),
  NBER_INFO_CACHE_TTL_DAYS: z.coerce.number().min(0).max(3650).default(30),
  /** How long an NBER search API answer is reused (NBER publishes new papers weekly); 0 turns the cache off. */
  NBER_SEARCH_CACHE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86400)
    .default(21600),
  NBER_MAX_PDF_BYTES: z.coerce.number().int().min(1).default(40_000_000),
  /** One NBER paper read (the PDF fetched if R2 lacks it, its text extracted), and its extraction budgets. */
  NBER_READ_TIMEOUT_MS: millis(50000),
  NBER_READ_MAX_PDF_PAGES: z.coerce.number().int().min(1).max(5000).default(300),
  NBER_READ_MAX_TEXT_CHARS: z.coerce.number().int().min(1000).default(2_000_000),
  /** Origin of this server as clients see it (download links, OAuth metadata); default: the request's origin. */
  PUBLIC_BASE_URL: baseUrl.optional(),
  /** none: public read-only endpoint; bearer: tokens from AUTH_TOKEN_HASHES; oauth: OAuth 2.1 (DCR, PKCE) with sign-in at OAUTH_IDP. */
  AUTH_MODE: z.enum(["none", "bearer", "oauth"]).default("none"),
  /** AUTH_MODE=oauth: who signs users in, a GitHub OAuth app or any OpenID Connect provider (OAUTH_OIDC_ISSUER). */
  OAUTH_IDP: z.enum(["github", "oidc"]).default("github"),
  /** The OAuth app's client id at the identity provider. */
  OAUTH_IDP_CLIENT_ID: z.string().min(1).optional(),
  /** Secret: the OAuth app's client secret at the identity provider. */
  OAUTH_IDP_CLIENT_SECRET: z.string().min(1).optional(),
  OAUTH_GITHUB_BASE_URL: baseUrl.default("https://github.com"),
  OAUTH_GITHUB_API_BASE_URL: baseUrl.default("https://api.github.com"),
  /** OAUTH_IDP=oidc: the issuer, exactly as the provider's discovery document spells it (a trailing slash matters). */
  OAUTH_OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  OAUTH_IDP_TIMEOUT_MS: millis(10000),
  /** Who may sign in: any match admits. GitHub logins and organizations apply to OAUTH_IDP=github only. None set: nobody. */
  OAUTH_ALLOWED_GITHUB_LOGINS: lowerCaseList,
  OAUTH_ALLOWED_GITHUB_ORGS: lowerCaseList,
  /** Verified email addresses, and domains of verified addresses (lab.example.edu; no subdomains). */
  OAUTH_ALLOWED_EMAILS: lowerCaseList,
  OAUTH_ALLOWED_EMAIL_DOMAINS: lowerCaseList,
  /** Lifetime of an access token we issue (refresh tokens renew it); at least 60 s, KV's shortest expiry. */
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  /** Client registrations (/register) accepted per UTC day, over all callers; each one is a KV write. */
  OAUTH_MAX_REGISTRATIONS_PER_DAY: z.coerce.number().int().min(0).max(1_000_000).default(1000),
  /** Secret: comma-separated SHA-256 hex digests of the accepted bearer tokens. */
  AUTH_TOKEN_HASHES: z
    .string()
    .default("")
    .transform((list) =>
      list
        .split(",")
        .map((hash) => hash.trim().toLowerCase())
        .filter((hash) => hash.length > 0),
    )
    .pipe(z.array(z.string().regex(/^[0-9a-f]{64}$/, "each entry must be a SHA-256 hex digest"))),
  /** Secret: SHA-256 hex digest of the admin token (/admin/*). Unset: admin routes are closed. */
  ADMIN_TOKEN_HASH: z
    .string()
    .regex(/^[0-9a-f]{64}$/i, "must be a SHA-256 hex digest")
    .optional(),
  /** Largest JSON-RPC request body /mcp accepts. */
  MCP_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(10_000_000).default(262_144),
  /** One JSON log line per tool call (tool, outcome or reason, served_from, ms); the tests turn it off. */
  LOG_TOOL_CALLS: flag("true"),
  /** Expensive tool calls (reads, downloads) one client may have running at once in an isolate. */
  MAX_CONCURRENT_EXPENSIVE_PER_CLIENT: z.coerce.number().int().min(1).max(100).default(2),
  /**
   * What one tool call may spend of the platform's per-invocation limits (src/call-budget.ts).
   * The defaults are safe on the paid plan (1,000 D1 queries, 10,000 subrequests); on the free
   * plan (50 and 50) set 45 and 45.
   */
  CALL_MAX_D1_QUERIES: z.coerce.number().int().min(10).max(1_000_000).default(900),
  CALL_MAX_SUBREQUESTS: z.coerce.number().int().min(10).max(10_000_000).default(900),
  CALL_MAX_MS: millis(60_000),
});

export type Config = z.infer<typeof configSchema>;

/** A variable's name. */
export type ConfigVariable = keyof typeof configSchema.shape;

/** Vars as the Worker receives them (strings), e.g. to override some in a test. */
export type ConfigVars = Partial<Record<ConfigVariable, string>>;

/** Every variable's name (docs/configuration.md, README and wrangler.toml are checked against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(configSchema.shape);

/** The upstreams we talk to. Gates are keyed by these names, never by URL host. */
export const UPSTREAMS = [
  "arxiv-api",
  "arxiv-oai",
  "arxiv-content",
  "ar5iv",
  "nber",
  "openalex",
  "crossref",
  "doi-ra",
] as const;
export type Upstream = (typeof UPSTREAMS)[number];

export interface UpstreamSettings {
  baseUrl: string;
  /** Minimum spacing between two requests to this upstream, across all isolates ... */
  delayMs: number;
  /** ... kept with this margin between departures. */
  marginMs: number;
  timeoutMs: number;
  /**
   * Requests in flight at once, before the upstream states its own limit (Crossref's
   * x-concurrency-limit, learned by the gate): arXiv's terms ask for one connection at a time.
   */
  concurrency: number;
  /** Name of the CrawlGate instance; ar5iv shares the arxiv.org content gate. */
  gate: string;
  userAgent: string;
}

export function upstreamSettings(config: Config, upstream: Upstream): UpstreamSettings {
  const userAgent = upstream === "nber" ? config.NBER_USER_AGENT : config.UPSTREAM_USER_AGENT;
  return { ...baseSettings(config, upstream), marginMs: config.CRAWL_GATE_MARGIN_MS, userAgent };
}

function baseSettings(config: Config, upstream: Upstream): Omit<UpstreamSettings, "userAgent" | "marginMs"> {
  switch (upstream) {
    case "arxiv-api":
      return {
        baseUrl: config.ARXIV_API_BASE_URL,
        delayMs: config.ARXIV_REQUEST_DELAY_MS,
        timeoutMs: config.ARXIV_API_TIMEOUT_MS,
        concurrency: 1,
        gate: "arxiv-api",
      };
    case "arxiv-oai":
      return {
        baseUrl: config.ARXIV_MIRROR_OAI_BASE_URL,
        delayMs: config.ARXIV_MIRROR_OAI_REQUEST_DELAY_MS,
        timeoutMs: config.ARXIV_MIRROR_OAI_TIMEOUT_MS,
        concurrency: 1,
        gate: "arxiv-oai",
      };
    case "arxiv-content":
      return {
        baseUrl: config.ARXIV_BASE_URL,
        delayMs: config.ARXIV_CONTENT_REQUEST_DELAY_MS,
        timeoutMs: config.ARXIV_CONTENT_TIMEOUT_MS,
        concurrency: 1,
        gate: "arxiv-content",
      };
    case "ar5iv":
      return {
        baseUrl: config.AR5IV_BASE_URL,
        delayMs: config.ARXIV_CONTENT_REQUEST_DELAY_MS,
        timeoutMs: config.ARXIV_CONTENT_TIMEOUT_MS,
        concurrency: 1,
        gate: "arxiv-content",
      };
    case "nber":
      return {
        baseUrl: config.NBER_BASE_URL,
        delayMs: config.NBER_REQUEST_DELAY_MS,
        timeoutMs: config.NBER_TIMEOUT_MS,
        // A website, no stated limit: one page at a time, as a polite crawler fetches.
        concurrency: 1,
        gate: "nber",
      };
    case "openalex":
      return {
        baseUrl: config.OPENALEX_BASE_URL,
        delayMs: config.OPENALEX_REQUEST_DELAY_MS,
        timeoutMs: config.OPENALEX_TIMEOUT_MS,
        // No stated concurrency; 5 keeps 10 requests a second flowing at answers of up to 500 ms.
        concurrency: 5,
        gate: "openalex",
      };
    case "crossref":
      return {
        baseUrl: config.CROSSREF_BASE_URL,
        delayMs: crossrefSpacingMs(config),
        timeoutMs: config.CROSSREF_TIMEOUT_MS,
        concurrency: crossrefConcurrency(config),
        gate: "crossref",
      };
    case "doi-ra":
      // Asked only for a cited DOI Crossref does not hold: Crossref's spacing and timeout, its own gate.
      return {
        baseUrl: config.DOI_RA_BASE_URL,
        delayMs: crossrefSpacingMs(config),
        timeoutMs: config.CROSSREF_TIMEOUT_MS,
        // doi.org states no limit for its registration-agency lookup: two at a time.
        concurrency: 2,
        gate: "doi-ra",
      };
  }
}

/** Crossref's stated rates: 5 requests a second in the public pool, 10 in the polite one (a mailto). */
export function crossrefSpacingMs(config: Config): number {
  return config.CROSSREF_REQUEST_DELAY_MS ?? (config.CROSSREF_MAILTO ? 100 : 200);
}

/** Crossref's stated concurrency until an answer says otherwise: 3 in the polite pool (a mailto), 1 in the public one. */
export function crossrefConcurrency(config: Config): number {
  return config.CROSSREF_MAILTO ? 3 : 1;
}

/** What AUTH_MODE=oauth needs beyond PUBLIC_BASE_URL; http is for a loopback wrangler dev only. */
function oauthProblems(config: Config): { path: string[]; message: string }[] {
  const problems: { path: string[]; message: string }[] = [];
  const local = isLoopbackHttp(config.PUBLIC_BASE_URL!);
  if (!local && !config.PUBLIC_BASE_URL!.startsWith("https:"))
    problems.push({ path: ["PUBLIC_BASE_URL"], message: "must be https (http only on a loopback host)" });
  if (!config.OAUTH_IDP_CLIENT_ID)
    problems.push({ path: ["OAUTH_IDP_CLIENT_ID"], message: "AUTH_MODE=oauth needs it" });
  if (!config.OAUTH_IDP_CLIENT_SECRET)
    problems.push({ path: ["OAUTH_IDP_CLIENT_SECRET"], message: "AUTH_MODE=oauth needs it (a secret)" });
  if (config.OAUTH_IDP === "oidc" && !config.OAUTH_OIDC_ISSUER)
    problems.push({ path: ["OAUTH_OIDC_ISSUER"], message: "OAUTH_IDP=oidc needs the issuer URL" });
  // The client secret travels to these: plain http only while the whole setup is local.
  const idpUrls =
    config.OAUTH_IDP === "oidc"
      ? { OAUTH_OIDC_ISSUER: config.OAUTH_OIDC_ISSUER }
      : {
          OAUTH_GITHUB_BASE_URL: config.OAUTH_GITHUB_BASE_URL,
          OAUTH_GITHUB_API_BASE_URL: config.OAUTH_GITHUB_API_BASE_URL,
        };
  for (const [name, url] of Object.entries(idpUrls)) {
    if (url && !local && !url.startsWith("https:"))
      problems.push({ path: [name], message: "must be https unless PUBLIC_BASE_URL is a loopback http origin" });
  }
  return problems;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

const validatedSchema = configSchema
  .refine((config) => config.AUTH_MODE !== "bearer" || config.AUTH_TOKEN_HASHES.length > 0, {
    message: "AUTH_MODE=bearer needs at least one hash in AUTH_TOKEN_HASHES",
    path: ["AUTH_TOKEN_HASHES"],
  })
  .refine((config) => config.AUTH_MODE !== "oauth" || config.PUBLIC_BASE_URL !== undefined, {
    message: "AUTH_MODE=oauth needs PUBLIC_BASE_URL (the https origin clients use)",
    path: ["PUBLIC_BASE_URL"],
  })
  .superRefine((config, context) => {
    if (config.AUTH_MODE !== "oauth" || config.PUBLIC_BASE_URL === undefined) return;
    for (const problem of oauthProblems(config)) context.addIssue({ code: "custom", ...problem });
  });

// The env object is stable for an isolate's lifetime, so parse it once.
const parsed = new WeakMap<object, Config>();
const CONFIG_KEYS = Object.keys(configSchema.shape);

export function loadConfig(env: object): Config {
  const cached = parsed.get(env);
  if (cached) return cached;
  const vars: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) {
    const value = (env as Record<string, unknown>)[key];
    // An empty string in .dev.vars means "use the default", except for lists.
    if (typeof value === "string" && value === "" && key !== "MCP_ALLOWED_HOSTNAMES" && key !== "AUTH_TOKEN_HASHES")
      continue;
    if (value === undefined) continue;
    vars[key] = value;
  }
  const result = validatedSchema.safeParse(vars);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  parsed.set(env, result.data);
  return result.data;
}
