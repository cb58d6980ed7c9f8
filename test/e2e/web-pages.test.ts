// The pages for people in a real browser (Debian's Chromium through playwright-core) against
// wrangler dev with the seeded mirror: a search and its second page, a paper's page and its
// BibTeX, a paper's maths as MathML and its names as letters, the search's abstracts behind a
// disclosure, an NBER paper's page, a 20-entry bibliography check, and /status while the fake's
// harvest runs; then, on a second stack with AUTH_MODE=bearer, the token sign-in, the sign-out,
// and another site's form refused. Screenshots go to $SCREENSHOTS_DIR when it is set (docs/screenshots/ holds the
// committed ones). Without a browser these tests fail, never skip: CI must go red.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startStack } from "../../scripts/lib/dev-server.ts";
import {
  browserMissing,
  CHROMIUM_PATH,
  launchChromium,
  NAVIGATION_TIMING,
  type PageTiming,
} from "../../scripts/lib/chromium.ts";

const ADMIN_TOKEN = "e2e-admin-token";
const BIBLIOGRAPHY = path.resolve(import.meta.dirname, "../fixtures/hand-made/bibliography-20.bib");

let stack: Awaited<ReturnType<typeof startStack>>;
let browser: Browser;
let context: BrowserContext;
const timings: Record<string, PageTiming> = {};

/** The browser, or an error that says what is missing and how to get it (every test of the file then fails). */
async function chromiumOrFail(): Promise<Browser> {
  const missing = browserMissing();
  const remedy = "Install Debian's chromium package (.ci/run does) or set CHROMIUM_PATH to a Chromium binary.";
  if (missing) throw new Error(`The pages' browser tests cannot run: ${missing}. ${remedy}`);
  try {
    return await launchChromium();
  } catch (error) {
    throw new Error(`The pages' browser tests cannot run: ${CHROMIUM_PATH} did not start (${error}). ${remedy}`);
  }
}

// Why the browser cannot run, if it cannot: every test then fails with it (a failing beforeAll
// would list them as skipped).
let unavailable: Error | null = null;

beforeAll(async () => {
  try {
    browser = await chromiumOrFail();
  } catch (error) {
    unavailable = error as Error;
    return;
  }
  stack = await startStack({
    seed: true,
    // Slow enough that the status page can be seen during the harvest (3 pages of the fake).
    vars: {
      ADMIN_TOKEN_HASH: createHash("sha256").update(ADMIN_TOKEN).digest("hex"),
      ARXIV_MIRROR_OAI_REQUEST_DELAY_MS: "1000",
    },
  });
  context = await browser.newContext({ acceptDownloads: true });
}, 180_000);

beforeEach(() => {
  if (unavailable) throw unavailable;
});

afterAll(async () => {
  if (Object.keys(timings).length > 0) console.log("page timings (ms, bytes):", JSON.stringify(timings));
  await browser?.close();
  await stack?.stop();
});

/** A new tab that fails the test on any console error (a CSP violation is one) or failed request. */
async function openPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("requestfailed", (request) => {
    // A navigation that turns into a download (an attachment) is aborted as a page load: not a failure.
    const error = request.failure()?.errorText;
    if (!(request.isNavigationRequest() && error === "net::ERR_ABORTED")) problems.push(`${request.url()}: ${error}`);
  });
  return { page, problems };
}

async function keep(page: Page, name: string): Promise<void> {
  timings[name] = (await page.evaluate(NAVIGATION_TIMING)) as PageTiming;
  const dir = process.env.SCREENSHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** Every form control has a label a screen reader announces. */
const unlabelled = (page: Page) =>
  page.$$eval("input:not([type=hidden]), select, textarea", (controls) =>
    controls
      .filter((control) => !(control as HTMLInputElement).labels?.length)
      .map((control) => control.id || control.outerHTML),
  );

describe("pages for people in Chromium", () => {
  it("searches from the home page, pages to the second page, and keeps the query", async () => {
    const { page, problems } = await openPage();
    const response = await page.goto(`${stack.url}/`);
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
    await keep(page, "home");
    // By keyboard: type into the labelled search box and press Enter.
    await page.getByLabel("Search arXiv", { exact: true }).first().fill("ti:quantum");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/search\?q=ti%3Aquantum/);
    await expect
      .poll(() => page.locator(".meta[aria-live]").textContent())
      .toMatch(/^Results 1–10 of 72 \(from the mirror\)/);
    const firstPage = await page.locator("ol.results .result-title").allTextContents();
    expect(firstPage).toHaveLength(10);
    for (const title of firstPage) expect(title.toLowerCase()).toContain("quantum");
    await keep(page, "search");
    await page.getByRole("link", { name: "Next page →" }).click();
    await page.waitForURL(/start=10/);
    expect(await page.locator(".meta[aria-live]").textContent()).toMatch(/^Results 11–20 of 72/);
    const secondPage = await page.locator("ol.results .result-title").allTextContents();
    expect(secondPage).toHaveLength(10);
    expect(secondPage.filter((title) => firstPage.includes(title))).toEqual([]);
    expect(await page.inputValue("#q")).toBe("ti:quantum");
    expect(await unlabelled(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("shows a bad query's typed error on the page, not a stack trace", async () => {
    const { page, problems } = await openPage();
    const response = await page.goto(`${stack.url}/search?q=${encodeURIComponent("ti:")}`);
    expect(response?.status()).toBe(400);
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("The field prefix ti: has no value.");
    expect(await page.getByRole("alert").textContent()).toContain("invalid_query");
    expect(await page.content()).not.toMatch(/at \w+ \(|Error:/);
    expect(problems.filter((problem) => !problem.includes("400"))).toEqual([]);
  });

  it("opens a paper's page from the results and downloads its BibTeX", async () => {
    const { page, problems } = await openPage();
    await page.goto(`${stack.url}/search?q=${encodeURIComponent('ti:"adaptive mutants"')}`);
    await page.locator("ol.results .result-title").first().click();
    await page.waitForURL(/\/paper\/0704\.0034v1$/);
    expect(await page.locator("h1").textContent()).toBe("Origin of adaptive mutants: a quantum measurement?");
    expect(await page.locator(".authors").textContent()).toBe("Vasily Ogryzko");
    const bibtex = await page.inputValue("#bibtex");
    expect(bibtex).toMatch(/@misc\{ogryzko2007origin,[\s\S]*eprint = \{0704\.0034\}/);
    await keep(page, "paper");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "BibTeX (.bib)" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("0704.0034v1.bib");
    expect(readFileSync((await download.path())!, "utf8")).toContain("@misc{ogryzko2007origin,");
    expect(await unlabelled(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("shows a paper's maths as MathML and its names as letters, with no console error", async () => {
    const { page, problems } = await openPage();
    await page.goto(`${stack.url}/paper/0704.0094`);
    const abstract = page.locator("p.abstract");
    // The browser draws the formulas (MathML Core): each is a laid-out box, not source text.
    expect(await abstract.locator("math").count()).toBe(3);
    const box = await abstract.locator("math").first().boundingBox();
    expect(box?.width).toBeGreaterThan(40);
    expect(box?.height).toBeGreaterThan(10);
    const text = (await abstract.textContent()) ?? "";
    expect(text).toContain("Marginally consistent CDM models");
    expect(text).not.toMatch(/\\it|\$|\{/);
    expect(await abstract.locator("em").first().textContent()).toBe("Marginally consistent");
    await keep(page, "paper-maths");
    await page.goto(`${stack.url}/paper/acc-phys/9411002`);
    expect(await page.title()).toMatch(/^Order ℏ Corrections to the Classical Dynamics/);
    expect(await page.locator("h1 math").count()).toBe(1);
    await page.goto(`${stack.url}/paper/0704.0001`);
    expect(await page.locator(".authors").textContent()).toMatch(/^C\. Balázs, E\. L\. Berger/);
    // The BibTeX box keeps the TeX, as BibTeX should.
    expect(await page.inputValue("#bibtex")).toMatch(/Bal\{?\\'/);
    await page.goto(`${stack.url}/paper/0704.0944`);
    expect(await page.locator(".authors").textContent()).toContain("Jürg Diemand");
    expect(await unlabelled(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("shows whole abstracts on the search page: the opening, and the rest behind a disclosure", async () => {
    const { page, problems } = await openPage();
    await page.goto(`${stack.url}/search?q=${encodeURIComponent('abs:"dark matter"')}`);
    const body = (await page.locator("main").textContent()) ?? "";
    expect(body).not.toMatch(/tokens|abstract_truncated|arxiv_\w+|…/);
    const first = page.locator("details.abstract").first();
    expect(await first.getAttribute("open")).toBeNull();
    const rest = first.locator("p");
    expect(await rest.isVisible()).toBe(false);
    await first.locator("summary").click();
    expect(await first.getAttribute("open")).toBe("");
    expect(await rest.isVisible()).toBe(true);
    expect(((await rest.textContent()) ?? "").length).toBeGreaterThan(40);
    // By keyboard too: the summary is a control.
    const second = page.locator("details.abstract").nth(1);
    await second.locator("summary").focus();
    await page.keyboard.press("Enter");
    expect(await second.getAttribute("open")).toBe("");
    await keep(page, "search-abstracts");
    expect(problems).toEqual([]);
  });

  it("shows an NBER paper's page: the record, its links, and its BibTeX to download", async () => {
    const { page, problems } = await openPage();
    const response = await page.goto(`${stack.url}/paper/w10000`);
    expect(response?.status()).toBe(200);
    expect(await page.locator("h1").textContent()).toBe(
      "Trade Wars: The Exaggerated Impact of Trade in Economic Debate",
    );
    expect(await page.locator(".authors").textContent()).toBe("Richard B. Freeman");
    const facts = (await page.locator("dl.facts").textContent()) ?? "";
    expect(facts).toContain("2003-10-26");
    expect(facts).toContain("International Trade and Investment, Labor Studies");
    expect(await page.getByRole("link", { name: "The paper's page on nber.org" }).getAttribute("href")).toBe(
      "https://www.nber.org/papers/w10000",
    );
    expect(await page.getByRole("link", { name: "PDF" }).getAttribute("href")).toMatch(/w10000\.pdf$/);
    expect(await page.inputValue("#bibtex")).toContain("@techreport{freeman2003trade,");
    await keep(page, "nber");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "BibTeX (.bib)" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("w10000.bib");
    expect(await unlabelled(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("checks a 20-entry bibliography: verified, differs side by side, not found, and the corrected BibTeX", async () => {
    const { page, problems } = await openPage();
    await page.goto(`${stack.url}/check`);
    expect(await unlabelled(page)).toEqual([]);
    await page.setInputFiles("#file", BIBLIOGRAPHY);
    await page.getByRole("button", { name: "Check" }).click();
    await page.getByRole("heading", { name: "Verdicts" }).waitFor();
    expect(await page.locator(".summary").textContent()).toMatch(
      /20 entries \(bibtex\)\s*14 verified\s*3 differs\s*3 not found\s*0 unchecked\s*0 unreadable/,
    );
    expect(await page.locator("tbody > tr[id^=entry-]").count()).toBe(20);
    // A wrong year is shown beside the record's.
    const differs = page.locator("#entry-15 table.differences");
    expect(await differs.locator("th[scope=row]").allTextContents()).toContain("year");
    expect(await page.locator("#entry-20 .verdict").textContent()).toBe("not found");
    await keep(page, "check");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download corrected .bib" }).click(),
    ]);
    const corrected = readFileSync((await download.path())!, "utf8");
    expect(corrected).toContain("% [15] differs: corrected from the record");
    expect(corrected).toContain("% [18] not found: kept as cited; check it by hand\n@article{ref18,");
    expect(corrected).not.toContain("\r");
    expect(corrected.match(/^@\w+\{/gm)).toHaveLength(20);
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows the harvest's progress on /status while it runs, and JSON to programs", async () => {
    const started = await fetch(`${stack.url}/admin/harvest?source=arxiv&mode=cold`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(started.status).toBe(202);
    const json = await fetch(`${stack.url}/status`);
    expect(json.headers.get("content-type")).toContain("application/json");
    const { page, problems } = await openPage();
    await expect
      .poll(
        async () => {
          await page.goto(`${stack.url}/status`);
          const heading = (await page.locator("h3").allTextContents()).join();
          const facts = page.locator("section[aria-labelledby=mirror-arxiv] dl.facts").nth(1);
          const windows = (await facts.count()) > 0 ? await facts.textContent() : "";
          // The bar has no value until the run can estimate its share (an indeterminate bar): wait for one.
          const value = await page.locator("#progress-arxiv").getAttribute("value");
          return `${heading} ${/Datestamps\s*window \d+/.test(windows ?? "")} ${value !== null}`;
        },
        { timeout: 30_000, interval: 300 },
      )
      // Seen mid-run: the cold run lists arXiv a datestamp window at a time.
      .toBe("Harvest in progress (cold) true true");
    const facts = await page.locator("section[aria-labelledby=mirror-arxiv] dl.facts").last().textContent();
    expect(facts).toMatch(/Records\s*\d+/);
    expect(facts).toMatch(/Pages\s*\d+/);
    expect(facts).toContain("Expected end");
    expect(await page.locator("#progress-arxiv").getAttribute("value")).toMatch(/^\d+(\.\d)?$/);
    await keep(page, "status");
    expect(await page.locator("meter").count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it("reads well on a phone: nothing wider than the screen", async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await phone.newPage();
    for (const route of [
      "/",
      "/search?q=ti%3Aquantum",
      "/search?q=abs%3A%22dark+matter%22",
      "/paper/0704.0034",
      "/paper/0704.0094",
      // Long inline formulas (one an author's unmatched $ makes a sentence long): each scrolls on its own.
      "/paper/0704.0106",
      "/paper/0704.0200",
      "/search?q=quark",
      "/paper/w10000",
      "/check",
    ]) {
      await page.goto(`${stack.url}${route}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, route).toBeLessThanOrEqual(0);
    }
    await page.goto(`${stack.url}/search?q=ti%3Aquantum`);
    if (process.env.SCREENSHOTS_DIR)
      await page.screenshot({ path: path.join(process.env.SCREENSHOTS_DIR, "search-phone.png") });
    await phone.close();
  });
});

describe("the token sign-in in Chromium (AUTH_MODE=bearer)", () => {
  const TOKEN = "e2e-page-token-0123456789";
  let bearer: Awaited<ReturnType<typeof startStack>>;
  // Another site: 127.0.0.1 and localhost are different sites to a browser.
  let elsewhere: Server;
  let elsewhereUrl: string;

  beforeAll(async () => {
    if (unavailable) return;
    bearer = await startStack({
      seed: true,
      vars: { AUTH_MODE: "bearer", AUTH_TOKEN_HASHES: createHash("sha256").update(TOKEN).digest("hex") },
    });
    // Its page posts the sign-in form with a token of its own choosing (login CSRF).
    elsewhere = createServer((_request, response) => {
      response.setHeader("content-type", "text/html; charset=utf-8");
      response.end(`<!doctype html><form method="post" action="${bearer.url}/signin">
<input name="token" value="${TOKEN}"><input name="next" value="/search?q=ti%3Aquantum">
<button type="submit">Win a prize</button></form>`);
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    elsewhereUrl = `http://localhost:${(elsewhere.address() as AddressInfo).port}`;
  }, 180_000);

  afterAll(async () => {
    await new Promise((resolve) => elsewhere?.close(resolve));
    await bearer?.stop();
  });

  it("signs in with the token form, shows the way out, and signs out", async () => {
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    const refused = await page.goto(`${bearer.url}/search?q=ti%3Aquantum`);
    expect(refused?.status()).toBe(401);
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(0);
    await page.getByLabel("Access token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${bearer.url}/search?q=ti%3Aquantum`);
    await expect.poll(() => page.locator(".meta[aria-live]").textContent()).toMatch(/^Results 1–10 of 72/);
    expect(await page.locator("header.site").textContent()).toContain("Signed in");
    expect(await unlabelled(page)).toEqual([]);
    // The header with the sign-out still fits a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${bearer.url}/`);
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(0);
    expect((await visitor.cookies()).map((cookie) => cookie.name)).not.toContain("papers_token");
    expect((await page.goto(`${bearer.url}/search?q=ti%3Aquantum`))?.status()).toBe(401);
    await visitor.close();
  });

  it("refuses another site's form: the browser is not signed in with that site's token", async () => {
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    await page.goto(elsewhereUrl);
    const [answer] = await Promise.all([
      page.waitForResponse(`${bearer.url}/signin`),
      page.getByRole("button", { name: "Win a prize" }).click(),
    ]);
    expect(answer.status()).toBe(403);
    expect((await answer.request().allHeaders())["sec-fetch-site"]).toBe("cross-site");
    await page.waitForLoadState();
    expect(await page.getByRole("alert").textContent()).toContain("This form came from another site");
    expect((await visitor.cookies()).map((cookie) => cookie.name)).not.toContain("papers_token");
    expect((await page.goto(`${bearer.url}/search?q=ti%3Aquantum`))?.status()).toBe(401);
    await visitor.close();
  });
});
