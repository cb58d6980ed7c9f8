// What guards the pages' sign-in and sign-out: where a signed-in browser may be sent (`next`),
// which posts count as this site's own forms (login CSRF), and how often an address may start a
// sign-in. Refusals are pages with a typed error, like every other page.
import type { Context } from "hono";
import { html } from "hono/html";
import { rateLimitAllows } from "../http/limits";
import { errorBox, type Html, page } from "../web/layout";
import { htmlPage } from "./page-session";

type PageContext = Context<{ Bindings: Env }>;

/** Seconds a refused sign-in is told to wait: the sign-in limiter counts per minute. */
const SIGN_IN_RETRY_AFTER_SECONDS = 60;

/**
 * `next` as a path of this site (path and query), or "/" for anything else. Parsed by the URL
 * parser against the site's own origin (`site`'s), so that what is checked is what a browser would follow:
 * a browser drops tabs and newlines from a Location and reads a backslash as a slash
 * ("/\t/evil.example" is "//evil.example", another host), so those are refused before parsing.
 */
export function localPath(next: string, site: string): string {
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return "/";
  const origin = new URL(site).origin;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return "/";
  }
  // A path that starts with two slashes ("/.//evil.example" parses to one) is another host again.
  if (url.origin !== origin || url.pathname.startsWith("//")) return "/";
  return `${url.pathname}${url.search}`;
}

/**
 * A refusal when a form post did not come from this site's own pages, or null to let it through
 * (login CSRF: another site's form must not sign a browser in with its own token, nor out).
 * Fetch Metadata first, then Origin, as Go's net/http CrossOriginProtection does: a browser sends
 * Sec-Fetch-Site (all current ones) or at least Origin on a cross-origin POST; a request with
 * neither is not a browser's, and a client that is not a browser cannot be made to post by a site.
 */
export async function crossSiteRefusal(c: PageContext): Promise<Response | null> {
  const site = c.req.header("sec-fetch-site");
  const origin = c.req.header("origin");
  const ownOrigin = new URL(c.req.url).origin;
  // "none": the person started it (typed or bookmarked), no page did.
  if (site !== undefined ? site === "same-origin" || site === "none" : origin === undefined || origin === ownOrigin)
    return null;
  const refusal = page({
    title: "Refused",
    body: html`<h1>Refused</h1>${errorBox({
      reason: "invalid_request",
      message: "This form came from another site, so it was not acted on.",
      recovery: "Use the form on this site's own page.",
    })}<p><a href="/">Home</a></p>`,
  });
  return htmlPage(c, refusal, 403);
}

/**
 * A 429 page when this address has started too many sign-ins in the last minute, or null. Every
 * sign-in counts (each one writes KV, or tries a token): the same per-address limiter as the
 * OAuth endpoints (RATE_LIMIT_OAUTH), so /signin cannot be used to get around theirs.
 */
export async function signInRateRefusal(c: PageContext): Promise<Response | null> {
  const address = `ip:${c.req.header("cf-connecting-ip") ?? "local"}`;
  if (await rateLimitAllows(c.env.RATE_LIMIT_OAUTH, address)) return null;
  return htmlPage(c, tooManySignIns(), 429, { "retry-after": String(SIGN_IN_RETRY_AFTER_SECONDS) });
}

const tooManySignIns = (): Html =>
  page({
    title: "Too many sign-ins",
    body: html`<h1>Too many sign-ins</h1>${errorBox({
      reason: "rate_limited",
      message: "Too many sign-ins from your address in the last minute.",
      recovery: "Wait a minute, then sign in again.",
    })}`,
  });
