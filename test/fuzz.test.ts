import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TOOLS as REGISTERED } from "../src/mcp/registry";
import { mcpCallWith, resetUpstream, upstreamHits } from "./helpers";
import { seededRandom } from "./support/random";

// Fast upstreams for the fuzz run: no spacing, short budgets (the gate logic has its own tests).
const VARS = {
  ARXIV_REQUEST_DELAY_MS: "0",
  ARXIV_CONTENT_REQUEST_DELAY_MS: "0",
  NBER_REQUEST_DELAY_MS: "0",
  ARXIV_API_TIMEOUT_MS: "1000",
  ARXIV_READ_TIMEOUT_MS: "2000",
  NBER_TIMEOUT_MS: "1000",
  // The whole run is one client: lift the per-client limits (they have their own tests).
};

const REJECTIONS = new Set([
  "invalid_argument",
  "invalid_id",
  "invalid_query",
  "invalid_date",
  "invalid_category",
  "invalid_group",
  "start_beyond_result_limit",
]);
// Not a rejection: section_not_found is known only once the paper is read, and that read's text is cached as any
// read's is (the next call with a section from the outline uses it).

const { random, pick } = seededRandom(20261130);

const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "\u0007\b\u001b[31m",
  "\n\r\t",
  "\u202e\u202d",
  "\ufeff",
  "\ud800",
  "\udfff",
  "😀🧪",
  "Ω≈ç√∫",
  "２０２４",
  "../../../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "%00",
  "%2e%2e%2f",
  "/",
  "\\\\server\\share",
  "C:\\Windows",
  "http://169.254.169.254/latest/meta-data/",
  "https://evil.example/abs/2401.12345",
  "file:///etc/passwd",
  "javascript:alert(1)",
  "https://arxiv.org.evil.example/abs/2401.12345",
  "https://arxiv.org@evil.example/abs/2401.12345",
  "//evil.example/x",
  "gopher://x",
  "' OR 1=1 --",
  '"; DROP TABLE nber_papers; --',
  "NEAR(a b)",
  "title:*",
  '"unclosed',
  "(((((",
  ")))",
  "AND",
  "OR OR",
  "ANDNOT",
  "ti:",
  "cat:zzz.*",
  "cat:cs.*",
  "submittedDate:[2024 TO]",
  "<script>alert(1)</script>",
  "&amp;&lt;",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style probe, sent as text on purpose
  "${jndi:ldap://x}",
  "2401.12345",
  "2401.12345v2",
  "hep-th/9901001",
  "arXiv:1605.08386",
  "1605.08386",
  "w25000",
  "25000",
  "w0",
  "w999999",
  "https://www.nber.org/papers/w10000",
  "https://www.nber.org/papers/../../admin",
  "S3.SS1",
  "Introduction",
  "x".repeat(301),
  "y".repeat(1001),
  "z".repeat(100_000),
  "a b c d e f g h i j k l m n o p q r s t u v w x y z",
];
const NASTY_NUMBERS = [
  0,
  -1,
  1,
  1.5,
  49,
  50,
  51,
  99,
  100,
  10_000,
  2 ** 31,
  -(2 ** 53),
  Number.MAX_SAFE_INTEGER,
  1e308,
  NaN,
  Infinity,
];
const WRONG_TYPES: unknown[] = [null, true, false, [], {}, ["a"], { $ne: null }, [1, 2, 3], { toString: "x" }];

const randomString = () => {
  if (random() < 0.6) return pick(NASTY_STRINGS);
  const length = Math.floor(random() * 40);
  let out = "";
  for (let i = 0; i < length; i++) out += String.fromCharCode(Math.floor(random() * (random() < 0.8 ? 0x7f : 0xffff)));
  return out;
};
const anyValue = (): unknown => {
  const roll = random();
  if (roll < 0.5) return randomString();
  if (roll < 0.7) return pick(NASTY_NUMBERS);
  if (roll < 0.9) return pick(WRONG_TYPES);
  return Array.from({ length: Math.floor(random() * 120) }, randomString);
};
const day = () =>
  pick([
    "2024-01-31",
    "2024-02-30",
    "1990-01-01",
    "2100-12-31",
    "2024/01/01",
    "20240101",
    "",
    "yesterday",
    randomString(),
  ]);

// Field generators per tool: mostly the right type with hostile content, sometimes the wrong type.
const TOOLS: Record<string, () => Record<string, unknown>> = {
  arxiv_search_papers: () => ({
    query: random() < 0.85 ? randomString() : anyValue(),
    ...(random() < 0.3
      ? {
          category:
            random() < 0.8 ? pick(["cs", "cs.CL", "astro-ph", "CS.cl", "nope", "cs.XYZ", randomString()]) : anyValue(),
        }
      : {}),
    ...(random() < 0.3 ? { sort_by: pick(["relevance", "submitted", "updated", "date", anyValue()]) } : {}),
    ...(random() < 0.2 ? { submitted_from: day(), submitted_to: day() } : {}),
    ...(random() < 0.3 ? { max_results: pick([...NASTY_NUMBERS, anyValue()]) } : {}),
    ...(random() < 0.3 ? { start: pick([...NASTY_NUMBERS, 9_999, 10_000, anyValue()]) } : {}),
  }),
  arxiv_get_metadata: () => ({
    paper_ids:
      random() < 0.8
        ? Array.from({ length: Math.floor(random() * 12) }, () => (random() < 0.9 ? randomString() : anyValue()))
        : anyValue(),
  }),
  arxiv_read_paper: () => ({
    paper_id: random() < 0.85 ? randomString() : anyValue(),
    ...(random() < 0.3 ? { start: pick(NASTY_NUMBERS) } : {}),
    ...(random() < 0.3 ? { max_characters: pick([...NASTY_NUMBERS, null]) } : {}),
    ...(random() < 0.2 ? { section: randomString() } : {}),
  }),
  arxiv_list_categories: () => (random() < 0.8 ? { group: random() < 0.7 ? randomString() : anyValue() } : {}),
  nber_search_papers: () => ({
    query: random() < 0.85 ? randomString() : anyValue(),
    ...(random() < 0.3 ? { start_date: day(), end_date: day() } : {}),
    ...(random() < 0.3 ? { page: pick(NASTY_NUMBERS) } : {}),
    ...(random() < 0.3 ? { per_page: pick([20, 50, 100, 30, 0, -20, "20", anyValue()]) } : {}),
  }),
  nber_get_paper_info: () => ({
    paper_id: random() < 0.85 ? randomString() : anyValue(),
    ...(random() < 0.3 ? { include_all: pick([true, false, "yes", 1, null]) } : {}),
    ...(random() < 0.2 ? { refresh: pick([true, false, "true", 0]) } : {}),
  }),
  nber_download_paper: () => ({ paper_id: random() < 0.85 ? randomString() : anyValue() }),
  nber_read_paper: () => ({
    paper_id: random() < 0.85 ? randomString() : anyValue(),
    ...(random() < 0.3 ? { start: pick(NASTY_NUMBERS) } : {}),
    ...(random() < 0.3 ? { max_characters: pick([...NASTY_NUMBERS, null]) } : {}),
  }),
  papers_export_citations: () => ({
    ...(random() < 0.85
      ? { ids: random() < 0.9 ? Array.from({ length: Math.floor(random() * 60) }, randomString) : anyValue() }
      : {}),
    ...(random() < 0.2 ? { tag: random() < 0.8 ? randomString() : anyValue() } : {}),
    ...(random() < 0.5 ? { format: pick(["bibtex", "ris", "csl-json", "BibTeX", "json", anyValue()]) } : {}),
  }),
  papers_resolve_reference: () => ({
    ...(random() < 0.6 ? { reference: random() < 0.9 ? randomString() : anyValue() } : {}),
    ...(random() < 0.3 ? { title: randomString() } : {}),
    ...(random() < 0.3
      ? { authors: random() < 0.8 ? Array.from({ length: Math.floor(random() * 60) }, randomString) : anyValue() }
      : {}),
    ...(random() < 0.3 ? { year: pick([...NASTY_NUMBERS, 1799, 2024, "2024"]) } : {}),
    ...(random() < 0.3 ? { doi: pick(["10.48550/arXiv.1605.08386", "10.3386/w10000", "10.", randomString()]) } : {}),
    ...(random() < 0.3 ? { arxiv_id: randomString() } : {}),
  }),
  papers_check_bibliography: () => ({
    ...(random() < 0.9
      ? {
          bibliography:
            random() < 0.8
              ? pick([
                  randomString(),
                  `@article{x, title = {${randomString()}}}`,
                  `TY  - JOUR\nTI  - ${randomString()}\nER  - `,
                  `[1] ${randomString()}\n[2] ${randomString()}`,
                ])
              : anyValue(),
        }
      : {}),
    ...(random() < 0.3 ? { format: pick(["bibtex", "ris", "csl-json", "text", "yaml", randomString()]) } : {}),
    ...(random() < 0.3 ? { max_tokens: pick(NASTY_NUMBERS) } : {}),
  }),
  arxiv_get_references: () => ({
    paper_id: random() < 0.85 ? randomString() : anyValue(),
    ...(random() < 0.3 ? { start: pick(NASTY_NUMBERS) } : {}),
    ...(random() < 0.3 ? { max_results: pick([...NASTY_NUMBERS, anyValue()]) } : {}),
  }),
  papers_find_in_paper: () => ({
    paper_id: random() < 0.85 ? randomString() : anyValue(),
    query: random() < 0.85 ? randomString() : anyValue(),
    ...(random() < 0.3 ? { max_passages: pick([...NASTY_NUMBERS, anyValue()]) } : {}),
  }),
  papers_watch: () => ({
    action: random() < 0.85 ? pick(["create", "list", "delete", "check"]) : anyValue(),
    ...(random() < 0.5 ? { name: random() < 0.9 ? randomString() : anyValue() } : {}),
    ...(random() < 0.4 ? { arxiv_query: random() < 0.9 ? randomString() : anyValue() } : {}),
    ...(random() < 0.2 ? { categories: Array.from({ length: Math.floor(random() * 14) }, randomString) } : {}),
    ...(random() < 0.2 ? { nber_query: randomString() } : {}),
    ...(random() < 0.3 ? { watch: random() < 0.9 ? randomString() : anyValue() } : {}),
  }),
  papers_library: () => ({
    action: random() < 0.85 ? pick(["add", "list", "remove"]) : anyValue(),
    ...(random() < 0.6
      ? { ids: random() < 0.9 ? Array.from({ length: Math.floor(random() * 60) }, randomString) : anyValue() }
      : {}),
    ...(random() < 0.3 ? { tags: Array.from({ length: Math.floor(random() * 14) }, randomString) } : {}),
    ...(random() < 0.2 ? { note: randomString() } : {}),
    ...(random() < 0.2 ? { tag: randomString() } : {}),
  }),
  papers_citations: () => ({
    id:
      random() < 0.85 ? pick([randomString(), "2007.14454", "w4679", "10.1145/3383583.3398584", "10.1/x"]) : anyValue(),
    ...(random() < 0.3 ? { direction: pick(["cited_by", "references", "cites", anyValue()]) } : {}),
    ...(random() < 0.3 ? { sort: pick(["most_cited", "newest", "oldest", "relevance", anyValue()]) } : {}),
    ...(random() < 0.3 ? { start: pick([...NASTY_NUMBERS, 9_999, 10_000, anyValue()]) } : {}),
    ...(random() < 0.3 ? { limit: pick([...NASTY_NUMBERS, anyValue()]) } : {}),
  }),
};
/** Calls per tool: the first eight tools 1,300 each, the six later ones 250 each (11,900 in all). */
const CALLS_PER_TOOL: Record<string, number> = {
  papers_export_citations: 250,
  papers_resolve_reference: 250,
  papers_check_bibliography: 150,
  arxiv_get_references: 250,
  papers_find_in_paper: 250,
  papers_watch: 250,
  papers_library: 250,
  papers_citations: 250,
};

async function storageState(): Promise<string> {
  const row = await env.DB.prepare(
    "SELECT (SELECT count(*) FROM api_cache) || ',' || (SELECT count(*) FROM nber_papers) || ',' || (SELECT count(*) FROM info_cache) || ',' || (SELECT count(*) FROM info_log) || ',' || (SELECT count(*) FROM query_log) || ',' || (SELECT count(*) FROM download_log) || ',' || (SELECT count(*) FROM harvest_state) AS state",
  ).first<{ state: string }>();
  const objects = await env.BLOBS.list({ limit: 1000 });
  return `${row!.state};r2=${objects.objects.length}`;
}

const callTool = (name: string, args: unknown) =>
  mcpCallWith("tools/call", { name, arguments: args }, VARS, {
    "cf-connecting-ip": `fuzz-${Math.floor(random() * 1e9)}`,
    // The per-client tools (watches, library) need an identity; one shared workspace.
    "x-papers-workspace": "fuzz",
  });

describe("fuzz: every tool, hostile arguments", () => {
  it("covers every registered tool", () => {
    expect(Object.keys(TOOLS).sort()).toEqual(REGISTERED.map((tool) => tool.name).sort());
  });
  for (const [tool, generate] of Object.entries(TOOLS)) {
    const calls = CALLS_PER_TOOL[tool] ?? 1300;
    it(`${tool}: ${calls} calls, each a result or a typed error; rejected calls write nothing`, async () => {
      await resetUpstream();
      const reasons = new Map<string, number>();
      for (let i = 0; i < calls; i++) {
        const args = random() < 0.03 ? anyValue() : generate();
        const before = await storageState();
        const { status, message } = await callTool(tool, args);
        if (status === 413) {
          // Arguments over the body cap are refused before any tool runs: a typed JSON-RPC error.
          expect(message.error.data.reason).toBe("request_too_large");
          expect(await storageState()).toBe(before);
          reasons.set("request_too_large", (reasons.get("request_too_large") ?? 0) + 1);
          continue;
        }
        expect(status, JSON.stringify(args).slice(0, 200)).toBe(200);
        if (args === null || typeof args !== "object" || Array.isArray(args)) {
          // `arguments` that is not an object is a malformed request: a JSON-RPC invalid-params error.
          expect(message.error?.code, JSON.stringify(message).slice(0, 300)).toBe(-32602);
          expect(await storageState()).toBe(before);
          reasons.set("invalid_params", (reasons.get("invalid_params") ?? 0) + 1);
          continue;
        }
        const result = message?.result;
        expect(result, JSON.stringify(message).slice(0, 300)).toBeDefined();
        if (result.isError) {
          const error = JSON.parse(result.content[0].text).error;
          expect(error.reason).toMatch(/^[a-z_]+$/);
          expect(error.reason, `${tool} ${JSON.stringify(args).slice(0, 200)} -> ${error.message}`).not.toBe(
            "internal_error",
          );
          expect(typeof error.recovery).toBe("string");
          expect(error.recovery.length).toBeGreaterThan(5);
          reasons.set(error.reason, (reasons.get(error.reason) ?? 0) + 1);
          if (REJECTIONS.has(error.reason))
            expect(await storageState(), `${tool} ${error.reason} wrote something`).toBe(before);
        } else {
          reasons.set("ok", (reasons.get("ok") ?? 0) + 1);
        }
      }
      // Every reason seen is one the tool declares (plus the wrapper's invalid_argument).
      const declared = new Set([
        ...REGISTERED.find((t) => t.name === tool)!.errors.map((error) => error.reason),
        "invalid_argument",
        "invalid_params",
        "request_too_large",
        "ok",
      ]);
      for (const reason of reasons.keys()) expect(declared, `${tool} returned undeclared ${reason}`).toContain(reason);
      console.log(`fuzz ${tool}: ${JSON.stringify(Object.fromEntries([...reasons].sort((a, b) => b[1] - a[1])))}`);
      // The run exercised rejections (and, for most tools, some accepted calls too).
      expect([...reasons.keys()].some((reason) => REJECTIONS.has(reason))).toBe(true);

      // SSRF: whatever the input, requests went only to the configured upstreams' paths.
      for (const hit of await upstreamHits())
        expect(hit.path).toMatch(/^\/(arxiv-api|arxiv-oai|arxiv|ar5iv|nber|openalex|crossref)\//);
    }, 300_000);
  }
});
