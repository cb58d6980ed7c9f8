// The pages for people through the Worker's own fetch: content negotiation of /status, typed
// errors on the page (never a 500 or a stack trace), escaping, the check's limits, the corrected
// file, and the auth modes and limits the pages share with /mcp. The browser tests are in
// test/e2e/web-pages.test.ts.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../src/index";
import { sha256Hex } from "../src/http/auth";
import { sampleRecords, seedMirror } from "./mirror/driver";

async function call(url: string, init: RequestInit = {}, vars: Record<string, unknown> = {}) {
  const ctx = createExecutionContext();
  const request = new Request(url, init) as unknown as Parameters<typeof worker.fetch>[0];
  const response = await worker.fetch(request, { ...env, ...vars } as Env, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { response, text };
}

const html = { headers: { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" } };

function checkForm(bibliography: string, headers: Record<string, string> = {}): RequestInit {
  const form = new FormData();
  form.set("bibliography", bibliography);
  return { method: "POST", body: form, headers };
}

beforeEach(async () => {
  await seedMirror();
});

describe("pages", () => {
  it("serves /status as HTML to a browser and as JSON to programs and to ?format=json", async () => {
    const page = await call("http://localhost/status", html);
    expect(page.response.headers.get("content-type")).toContain("text/html");
    expect(page.response.headers.get("content-security-policy")).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(page.text).toContain('<h2 id="mirror-arxiv">arXiv mirror</h2>');
    expect(page.text).toContain(`${sampleRecords().length.toLocaleString("en-US")}`);
    const program = await call("http://localhost/status");
    expect(program.response.headers.get("content-type")).toContain("application/json");
    expect(JSON.parse(program.text).mirrors[0].source).toBe("arxiv");
    const asked = await call("http://localhost/status?format=json", html);
    expect(JSON.parse(asked.text).name).toBe("papers-mcp");
  });

  it("gives install links for Cursor and VS Code built from the server's own address", async () => {
    const { text } = await call("http://papers.example.org/");
    const hrefs = [...text.matchAll(/href="((?:cursor|vscode):[^"]+)"/g)].map((match) =>
      match[1]!.replaceAll("&amp;", "&"),
    );
    const cursor = new URL(hrefs.find((href) => href.startsWith("cursor:"))!);
    expect(cursor.searchParams.get("name")).toBe("papers");
    expect(JSON.parse(atob(cursor.searchParams.get("config")!))).toEqual({ url: "http://papers.example.org/mcp" });
    const vscode = hrefs.find((href) => href.startsWith("vscode:mcp/install?"))!;
    expect(JSON.parse(decodeURIComponent(vscode.slice("vscode:mcp/install?".length)))).toEqual({
      name: "papers",
      type: "http",
      url: "http://papers.example.org/mcp",
    });
  });

  it("searches the mirror, escapes what it echoes, and shows a typed error with its status", async () => {
    const found = await call("http://localhost/search?q=ti%3Aquantum");
    expect(found.response.status).toBe(200);
    expect(found.text).toMatch(/Results 1–10 of [\d,]+\+? \(from the mirror\)/);
    expect(found.text.match(/class="result-title"/g)).toHaveLength(10);
    const hostile = await call(`http://localhost/search?q=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(hostile.text).not.toContain("<script>alert(1)</script>");
    expect(hostile.text).toContain("&lt;script&gt;");
    const category = await call("http://localhost/search?q=quantum&category=nonsense.XX");
    expect(category.response.status).toBe(400);
    expect(category.text).toContain("<code>invalid_category</code>");
    const dates = await call("http://localhost/search?q=quantum&from=2020-01-01&to=2019-01-01");
    expect(dates.response.status).toBe(400);
    expect(dates.text).toContain("<code>invalid_date</code>");
    expect(dates.text).not.toMatch(/\bat \S+ \(|stack/i);
  });

  it("shows a paper with its citation files, and a malformed ID as a typed error", async () => {
    const [paper] = sampleRecords();
    const page = await call(`http://localhost/paper/${paper!.id}`);
    expect(page.response.status).toBe(200);
    expect(page.text).toContain(`eprint = {${paper!.id}}`);
    const ris = await call(`http://localhost/paper/${paper!.id}/cite.ris`);
    expect(ris.response.headers.get("content-disposition")).toMatch(/^attachment; filename="[\w.-]+\.ris"$/);
    expect(ris.text).toMatch(/^TY {2}- /);
    const csl = await call(`http://localhost/paper/${paper!.id}/cite.json`);
    expect(JSON.parse(csl.text)[0].id).toBeDefined();
    expect(page.text).not.toContain("The text's opening");
    // Once a read has cached the revision's text, its opening is on the page (nothing is fetched for it).
    const versioned = `${paper!.id}v${paper!.versions.length}`;
    await env.BLOBS.put(
      `arxiv/text/${versioned}.arxiv_html.json`,
      JSON.stringify({
        text: `# Introduction\n\nWe study ${"things ".repeat(800)}`,
        outline: [],
        title: paper!.title,
        bibliography_count: 0,
        extraction_truncated: false,
        source: "arxiv_html",
        only_version_is_v1: false,
      }),
    );
    const withText = await call(`http://localhost/paper/${paper!.id}`);
    expect(withText.text).toContain("The text's opening");
    expect(withText.text).toMatch(/<pre># Introduction\n\nWe study (things ){100}/);
    expect(withText.text).toMatch(/things \n…<\/pre>/);
    const bad = await call("http://localhost/paper/not-an-id");
    expect(bad.response.status).toBe(400);
    expect(bad.text).toContain("<code>invalid_id</code>");
  });

  it("shows names, titles and abstracts as letters and MathML, and keeps the TeX in the BibTeX box", async () => {
    const balazs = await call("http://localhost/paper/0704.0001");
    const authors = /<p class="authors">([^<]*)<\/p>/.exec(balazs.text)?.[1];
    expect(authors).toMatch(/^C\. Balázs, E\. L\. Berger/);
    const box = /<textarea id="bibtex"[^>]*>([\s\S]*?)<\/textarea>/.exec(balazs.text)?.[1] ?? "";
    expect(box).toMatch(/author = \{Bal\{\\&#39;(?:a|\{a\})\}zs|author = \{Bal\\&#39;azs/);
    // TeX nowhere else on the page.
    expect(balazs.text.replace(box, "")).not.toContain("\\&#39;");
    // Maths in a title: MathML in the heading, letters in the window's title.
    const hbar = await call("http://localhost/paper/acc-phys/9411002");
    expect(hbar.text).toContain("<title>Order ℏ Corrections to the Classical Dynamics");
    expect(hbar.text).toMatch(/<h1>Order <math><mi>ℏ<\/mi><\/math> Corrections/);
    expect(hbar.text).toContain("<mfrac><mi>g</mi><mn>2</mn></mfrac>");
    // The issue's abstract: {\it ...}, ^{} and a formula with the solar mass, and the affiliations' accents.
    const bullet = await call("http://localhost/paper/0704.0094");
    expect(bullet.text).toContain("<em>Marginally consistent</em> CDM models");
    expect(bullet.text).toContain("M<sub>CDM</sub> = 1 x 10<sup>15</sup>Msun");
    expect(bullet.text).toMatch(
      /<math>.*<mo>≤<\/mo><mn>0\.6<\/mn><mo>×<\/mo><msup><mn>10<\/mn><mn>15<\/mn><\/msup><msub><mi>M<\/mi><mo>⊙<\/mo><\/msub>/,
    );
    const abstract = /<p class="abstract">([\s\S]*?)<\/p>/.exec(bullet.text)?.[1] ?? "";
    expect(abstract).not.toMatch(/\\it|\{|\$/);
    const glast = await call("http://localhost/paper/0704.0944");
    expect(glast.text).toContain("Jürg Diemand");
    expect(glast.text).not.toContain('J\\"urg');
    // Every page keeps its policy: no script, no inline style (MathML needs neither).
    expect(bullet.response.headers.get("content-security-policy")).toMatch(/^default-src 'none'; style-src 'self';/);
    expect(bullet.text).not.toMatch(/<script|style="/);
  });

  it("shows whole abstracts behind a disclosure on the search page, and nothing about tokens or tools", async () => {
    const { text } = await call("http://localhost/search?q=abs%3Adark+matter");
    expect(text).not.toMatch(/abstract_truncated|tokens|arxiv_get_metadata|arxiv_\w+|…/);
    const disclosures = [
      ...text.matchAll(
        /<details class="abstract"><summary>([\s\S]*?)<span class="more"> More<\/span><\/summary>\n<p>([\s\S]*?)<\/p><\/details>/g,
      ),
    ];
    expect(disclosures.length).toBeGreaterThan(0);
    // The opening ends a sentence, and the two parts are the whole abstract.
    const [opening, rest] = [disclosures[0]![1]!, disclosures[0]![2]!];
    expect(opening).toMatch(/[.!?] $/);
    const paperId = /<a class="result-title" href="\/paper\/([^"]+)">/.exec(text.slice(0, disclosures[0]!.index))?.[1];
    const whole = sampleRecords().find((record) => paperId?.startsWith(record.id))!;
    const words = (html: string) =>
      html
        .replace(/<[^>]*>/g, "")
        .replace(/&#39;/g, "'")
        .replace(/\s+/g, " ")
        .trim();
    expect(whole, paperId).toBeDefined();
    expect(words(opening + rest)).toBe(words(whole.abstract).replace(/&/g, "&amp;"));
  });

  it("serves an NBER paper's page at /paper/w<n>: the record, its links and its citation", async () => {
    const { response, text } = await call("http://localhost/paper/w10000");
    expect(response.status).toBe(200);
    expect(text).toContain("<h1>Trade Wars: The Exaggerated Impact of Trade in Economic Debate</h1>");
    expect(text).toContain('<p class="authors">Richard B. Freeman</p>');
    expect(text).toContain('<time datetime="2003-10-26">2003-10-26</time>');
    expect(text).toContain("<dt>Programs</dt><dd>International Trade and Investment, Labor Studies</dd>");
    expect(text).toMatch(/<p class="abstract">The rules governing trade and capital flows/);
    expect(text).toContain('<a href="https://www.nber.org/papers/w10000">');
    expect(text).toContain('<a href="https://www.nber.org/system/files/working_papers/w10000/w10000.pdf">PDF</a>');
    expect(text).toContain('<a href="https://doi.org/10.3386/w10000">10.3386/w10000</a>');
    expect(text).toMatch(
      /<textarea id="bibtex"[^>]*>% w10000: from NBER paper page[^\n]*\n@techreport\{freeman2003trade,/,
    );
    expect(text).toContain('<a href="/paper/w10000/cite.bib" download>');
    expect(text).not.toMatch(/nber_\w+|tokens/);
    const bib = await call("http://localhost/paper/w10000/cite.bib");
    expect(bib.response.headers.get("content-disposition")).toBe('attachment; filename="w10000.bib"');
    expect(bib.text).toContain("@techreport{freeman2003trade,");
    const missing = await call("http://localhost/paper/w99999");
    expect(missing.response.status).toBe(404);
    expect(missing.text).toContain("<code>no_match</code>");
  });

  it("answers a malformed address (a broken %-escape) with a 400 page, never a 500", async () => {
    for (const path of ["/paper/%E0%A4%A", "/paper/%E0%A4%A/cite.bib", "/paper/2401.%FF", "/paper/%"]) {
      const { response, text } = await call(`http://localhost${path}`);
      expect(response.status, path).toBe(400);
      expect(response.headers.get("content-type"), path).toContain("text/html");
      expect(text, path).toContain("<code>invalid_id</code>");
    }
    // Query strings are decoded leniently (a broken escape is kept as it is): an ordinary answer.
    for (const path of ["/search?q=%E0%A4%A", "/search?q=quantum&category=%E0%A4%A", "/status?format=%E0%A4%A"]) {
      const { response } = await call(`http://localhost${path}`, html);
      expect(response.status, path).toBeLessThan(500);
    }
  });

  it("refuses an empty, an oversized or a 201-entry bibliography with a message on the form", async () => {
    const empty = await call("http://localhost/check", checkForm("   "));
    expect(empty.response.status).toBe(400);
    expect(empty.text).toContain("The bibliography is empty.");
    const huge = await call("http://localhost/check", checkForm("x".repeat(250_001)));
    expect(huge.response.status).toBe(413);
    const many = Array.from({ length: 201 }, (_, i) => `A. Author, Title number ${i}, J. Things ${i} (2001).`).join(
      "\n",
    );
    const tooMany = await call("http://localhost/check", checkForm(many));
    expect(tooMany.response.status).toBe(400);
    expect(tooMany.text).toContain("The bibliography has 201 entries; at most 200");
    // What was pasted stays in the box.
    expect(tooMany.text).toContain("Title number 200");
    const notAForm = await call("http://localhost/check", {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(notAForm.response.status).toBe(400);
  });

  it("checks a bibliography in a streamed page, and the corrected file keeps its lines", async () => {
    const [first, second] = sampleRecords();
    const bibliography = [
      `@article{one, title={${first!.title}}, eprint={${first!.id}}}`,
      "@article{two, title={A study of things nobody ever wrote about at all}, author={Nobody, A.}, year={2001}, journal={Imaginary Letters}}",
      `@article{three, title={${second!.title}}, eprint={${second!.id}}}`,
    ].join("\n");
    const page = await call("http://localhost/check", checkForm(bibliography));
    expect(page.response.status).toBe(200);
    expect(page.text.indexOf("of 3 checked")).toBeLessThan(page.text.indexOf("Verdicts"));
    expect(page.text).toMatch(/id="entry-1"><td>1<\/td><td class="verdict verdict-verified">/);
    expect(page.text).toMatch(/id="entry-2"><td>2<\/td><td class="verdict verdict-not_found">/);
    expect(page.text).toMatch(/id="entry-3"><td>3<\/td><td class="verdict verdict-verified">/);
    expect(page.text).toContain("% [2] not found: kept as cited; check it by hand\n@article{two,");
    expect(page.text).toMatch(/<\/html>$/);
    const form = new FormData();
    form.set("bibtex", "@misc{a,\r\n  title = {A}\r\n}\r\n");
    const file = await call("http://localhost/check/corrected.bib", { method: "POST", body: form });
    expect(file.text).toBe("@misc{a,\n  title = {A}\n}\n");
    expect(file.response.headers.get("content-disposition")).toBe('attachment; filename="corrected.bib"');
  });

  it("limits the pages per client like /mcp: past the free requests the binding decides", async () => {
    const refusing = { limit: async () => ({ success: false }) };
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const { response } = await call(
        "http://localhost/search?q=quantum",
        { headers: { "cf-connecting-ip": "203.0.113.9" } },
        { RATE_LIMIT_ENDPOINT: refusing },
      );
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});

describe("pages with AUTH_MODE=bearer", () => {
  const token = "page-token-0123456789-abcdef";
  const vars = async () => ({ AUTH_MODE: "bearer", AUTH_TOKEN_HASHES: await sha256Hex(token) });

  it("asks for the token, signs in with an HttpOnly SameSite=Strict cookie, and never redirects off-site", async () => {
    const refused = await call("http://localhost/search?q=quantum", {}, await vars());
    expect(refused.response.status).toBe(401);
    expect(refused.text).toContain('<input type="hidden" name="next" value="/search?q=quantum">');
    const form = (value: string, next: string) => {
      const body = new FormData();
      body.set("token", value);
      body.set("next", next);
      return { method: "POST", body };
    };
    const wrong = await call("http://localhost/signin", form("nope", "/search?q=quantum"), await vars());
    expect(wrong.response.status).toBe(401);
    expect(wrong.response.headers.get("set-cookie")).toBeNull();
    const right = await call("http://localhost/signin", form(token, "/search?q=quantum"), await vars());
    expect(right.response.status).toBe(303);
    expect(right.response.headers.get("location")).toBe("/search?q=quantum");
    const cookie = right.response.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^papers_token=[^;]+; Max-Age=604800; Path=\/; HttpOnly; SameSite=Strict$/);
    const signedIn = await call(
      "http://localhost/search?q=quantum",
      { headers: { cookie: cookie.split(";")[0]! } },
      await vars(),
    );
    expect(signedIn.response.status).toBe(200);
    const offSite = await call("http://localhost/signin", form(token, "//evil.example/"), await vars());
    expect(offSite.response.headers.get("location")).toBe("/");
  });

  it("keeps the search form itself and the stylesheet open, so the sign-in page can be reached", async () => {
    expect((await call("http://localhost/search", {}, await vars())).response.status).toBe(200);
    expect((await call("http://localhost/assets/site.css", {}, await vars())).response.status).toBe(200);
  });
});
