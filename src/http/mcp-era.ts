// Which MCP era a request to /mcp speaks, for the answers we give before the SDK sees it (our own
// refusals), and the one header disagreement we let through (claude-code#93290). The SDK decides
// the era the same way for everything it answers: the body's per-request `_meta` first, the
// MCP-Protocol-Version header only when the body names none.
import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";

/** The first revision of the stateless era (per-request `_meta`, `resultType` on every result). */
export const FIRST_MODERN_VERSION = "2026-07-28";

/** Who answers: stamped into a modern result's `_meta`, as the SDK stamps its own results. */
export interface ServerIdentity {
  name: string;
  version: string;
  title?: string;
}

/** A 2025-era request (the handshake revisions), or a 2026-07-28 one with its id when it had one. */
export type RequestEra =
  | { era: "legacy" }
  | { era: "modern"; id: string | number | undefined; serverInfo: ServerIdentity };

export const LEGACY: RequestEra = { era: "legacy" };

const DATED = /^\d{4}-\d{2}-\d{2}$/;

function isModern(version: string): boolean {
  // Revisions are dates: a later date is a later revision (the SDK compares them the same way).
  return DATED.test(version) && version >= FIRST_MODERN_VERSION;
}

function plainObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The protocol version a single message's `_meta` names: undefined without a claim, null for a claim that is not a string. */
export function envelopeVersion(parsed: unknown): string | null | undefined {
  const meta = plainObject(plainObject(plainObject(parsed)?.params)?._meta);
  if (!meta || !(PROTOCOL_VERSION_META_KEY in meta)) return undefined;
  const claim = meta[PROTOCOL_VERSION_META_KEY];
  return typeof claim === "string" ? claim : null;
}

/**
 * The era a request speaks. A batch is 2025-era by definition (2026-07-28 has no batches). A body
 * that names a version in its `_meta` is that version's era (a malformed claim is modern: the
 * SDK refuses it as a 2026 request); a body without one is modern only if its header says so
 * (the body could not be read, or the SDK will refuse the missing `_meta` as a 2026 request).
 */
export function requestEra(parsed: unknown, protocolHeader: string | null, serverInfo: ServerIdentity): RequestEra {
  if (Array.isArray(parsed)) return LEGACY;
  const claim = envelopeVersion(parsed);
  const modern = claim === undefined ? isModern(protocolHeader?.trim() ?? "") : claim === null || isModern(claim);
  if (!modern) return LEGACY;
  const id = plainObject(parsed)?.id;
  return { era: "modern", id: typeof id === "string" || typeof id === "number" ? id : undefined, serverInfo };
}

/** The header claude-code#93290's clients send with a 2026-07-28 body. */
const CLAUDE_STALE_HEADER = "2025-11-25";

/**
 * claude-code#93290: Claude Desktop and Claude Code, through claude.ai connectors, send
 * `MCP-Protocol-Version: 2025-11-25` with a body whose `_meta` names 2026-07-28, and the SDK refuses
 * every such call with -32020 (HeaderMismatch), as the revision says a server MUST. We accept that
 * one pair and no other: the body is what the SDK (and we) read the era from, the header only
 * mirrors it for intermediaries, and nothing between the client and this Worker routes on it.
 * Returns the header value to serve the request with, or undefined to leave it as sent.
 */
export function mendedProtocolHeader(parsed: unknown, protocolHeader: string | null): string | undefined {
  if (protocolHeader?.trim() !== CLAUDE_STALE_HEADER) return undefined;
  return envelopeVersion(parsed) === FIRST_MODERN_VERSION ? FIRST_MODERN_VERSION : undefined;
}
