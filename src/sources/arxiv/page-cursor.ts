// A search's next_start, carrying where the call's reads left each database (D1 session
// bookmarks, with read replication), so that the next page reads a state at least as new as the
// first one did: a replica that lacks the newest day cannot answer page 2 of a search whose page
// 1 saw it. Written "40~<base64url of {binding: bookmark}>"; a plain number when there is nothing
// to carry (no read replication, or an answer from arXiv's API).
import { PapersError } from "../../errors";
import type { Bookmarks } from "../../store/arxiv-shards";

export type PageStart = number | string;

/** next_start as a string: the offset, then the bookmarks. */
export const PAGE_START = /^(\d{1,7})(?:~([A-Za-z0-9_-]{1,990}))?$/;
const BINDING = /^[A-Z][A-Z0-9_]{0,63}$/;
/** D1's bookmarks are hyphenated hex (e.g. 0000000a-00000002-00004e4f-…). */
const BOOKMARK = /^[0-9a-f-]{1,200}$/i;

const invalid = () =>
  new PapersError("invalid_argument", "start is neither an offset nor a next_start this server gave.", {
    recovery: "Pass a number, or next_start exactly as the last answer gave it.",
  });

/** The offset and the bookmarks a start carries. */
export function readStart(start: PageStart): { offset: number; since: Bookmarks } {
  if (typeof start === "number") return { offset: start, since: {} };
  const match = PAGE_START.exec(start);
  if (!match) throw invalid();
  const offset = Number(match[1]);
  if (!match[2]) return { offset, since: {} };
  let since: unknown;
  try {
    since = JSON.parse(new TextDecoder().decode(fromBase64Url(match[2])));
  } catch {
    throw invalid();
  }
  if (typeof since !== "object" || since === null || Array.isArray(since)) throw invalid();
  const entries = Object.entries(since);
  if (entries.length > 8 || !entries.every(([k, v]) => BINDING.test(k) && typeof v === "string" && BOOKMARK.test(v)))
    throw invalid();
  return { offset, since: since as Bookmarks };
}

/** The next page's start: the offset alone, or with the bookmarks to read from. */
export function pageStart(offset: number | null, bookmarks: Bookmarks | null): PageStart | null {
  if (offset === null) return null;
  if (!bookmarks) return offset;
  return `${offset}~${toBase64Url(new TextEncoder().encode(JSON.stringify(bookmarks)))}`;
}

function toBase64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
