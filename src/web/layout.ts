// The frame every page shares (header with the search box, main, footer), the security headers
// and the typed-error box. Pages are hono/html templates: every interpolated value is escaped.
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** No script, no inline style, nothing from elsewhere: the pages need none of it. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; " +
  "base-uri 'none'; frame-ancestors 'none'";

export const PAGE_HEADERS: Record<string, string> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

export interface PageFrame {
  title: string;
  /** The search box's current query (the search page keeps it filled in). */
  query?: string;
  body: Html;
}

// Who is signed in is known to the route, not to the templates: the frame leaves this marker in
// the header and the route fills it (withAccount) before the page is sent. It cannot come from
// anything interpolated: every interpolated "<" is escaped.
const ACCOUNT_SLOT = "<!--account-->";
const ACCOUNT_SLOT_HTML = raw(ACCOUNT_SLOT);

/** A signed-in person's state in the header: that they are signed in, and the way out (a POST, never a link). */
const SIGNED_IN = `<form class="account" action="/signout" method="post"><span>Signed in</span> <button type="submit">Sign out</button></form>`;

/** The page with its header's account slot filled: the sign-out form when `signedIn`, else nothing. */
export function withAccount(document: string, signedIn: boolean): string {
  return document.replace(ACCOUNT_SLOT, signedIn ? SIGNED_IN : "");
}

export function page({ title, query = "", body }: PageFrame): Html {
  return html`${pageStart(title, query)}${body}${pageEnd()}`;
}

/** The frame's opening, up to <main>: a streamed page (the bibliography check) sends it first. */
export function pageStart(title: string, query = ""): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · papers-mcp</title><link rel="stylesheet" href="/assets/site.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml"></head>
<body><header class="site"><div class="bar"><a class="brand" href="/">papers-mcp</a>
<nav aria-label="Site"><a href="/search">Search</a><a href="/check">Check a bibliography</a><a href="/status">Status</a></nav>${ACCOUNT_SLOT_HTML}
<form class="header-search" action="/search" method="get" role="search"><label class="visually-hidden" for="site-q">Search arXiv</label>
<input id="site-q" name="q" type="search" value="${query}" placeholder="Search arXiv papers" maxlength="1000"></form></div></header>
<main id="main">`;
}

export function pageEnd(): Html {
  return html`</main>
<footer class="site">arXiv metadata is CC0; papers' text stays with arxiv.org and nber.org. The same data is open to
AI agents over MCP at <code>/mcp</code>.</footer></body></html>`;
}

/** What a typed error says on a page: the message and what to do, never a stack trace. */
export interface PageError {
  reason: string;
  message: string;
  recovery: string;
}

export function errorBox(error: PageError): Html {
  return html`<div class="error" role="alert"><p><strong>${error.message}</strong></p>
<p>${error.recovery}</p><p class="hint">Reason: <code>${error.reason}</code></p></div>`;
}

export const count = (n: number) => n.toLocaleString("en-US");

/**
 * The notices a person reads. Those written for agents (what an answer left out to save tokens,
 * which tool gives the rest) say nothing to a person, who sees the whole record on the page.
 */
export const peopleNotices = (notices: readonly string[]) =>
  notices.filter((notice) => !/\b(?:arxiv|nber|papers)_[a-z_]+\b|\btokens?\b/.test(notice));
