// Cache hints of the 2026-07-28 revision (`ttlMs`, `cacheScope` on list, read and discover
// results; 2025-era answers never carry them). docs/architecture.md lists each with its reason.
import type { CacheHint } from "@modelcontextprotocol/server";

/**
 * server/discover and the tool, prompt, resource and template lists are the same for every caller
 * and change only with a deploy; with no list_changed notifications, the TTL is how soon a client
 * sees a new tool after one: an hour.
 */
export const LIST_TTL_MS = 60 * 60 * 1000;

/** The arXiv category taxonomy is bundled data (arxiv-base's list), the same for everyone, changed by a deploy at most a few times a year. */
export const TAXONOMY_TTL_MS = 24 * 60 * 60 * 1000;

const LIST: CacheHint = { ttlMs: LIST_TTL_MS, cacheScope: "public" };

export const LIST_CACHE_HINTS = {
  "server/discover": LIST,
  "tools/list": LIST,
  "prompts/list": LIST,
  "resources/list": LIST,
  "resources/templates/list": LIST,
} as const;

export const TAXONOMY_CACHE_HINT: CacheHint = { ttlMs: TAXONOMY_TTL_MS, cacheScope: "public" };

/** A caller's own watches and library: never kept by a shared cache, and read afresh each time. */
export const PRIVATE_CACHE_HINT: CacheHint = { ttlMs: 0, cacheScope: "private" };
