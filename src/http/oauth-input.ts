// Input the OAuth provider library would hand to KV unchecked: it looks a client up by `client:<client_id>`, and a
// client_id past KV's 512-byte key limit makes that lookup throw (a 500). No client has such an ID (ours are
// short), so it is refused first, as OAuth's invalid_client, typed like the server's other refusals.
import type { ErrorReason } from "../errors";
import { AUTHORIZE_PATH, TOKEN_PATH } from "./oauth-paths";

/** Longer than any client_id /register hands out, well under KV's 512-byte key limit. */
export const MAX_CLIENT_ID_BYTES = 256;

const bytes = (text: string) => new TextEncoder().encode(text).length;

/** The client_id values a request to /authorize or /token carries: query, form body and Basic credentials. */
async function clientIds(request: Request): Promise<string[]> {
  const url = new URL(request.url);
  const ids = url.searchParams.getAll("client_id");
  const basic = /^Basic\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  if (basic) {
    try {
      ids.push(decodeURIComponent(atob(basic[1]!.trim()).split(":")[0] ?? ""));
    } catch {
      // Not base64 or not URI-encoded: the library refuses it on its own.
    }
  }
  const type = request.headers.get("content-type") ?? "";
  if (request.method === "POST" && type.includes("application/x-www-form-urlencoded")) {
    ids.push(...new URLSearchParams(await request.clone().text()).getAll("client_id"));
  }
  return ids;
}

/** A refusal for an /authorize or /token request whose client_id no client can have, or null. */
export async function oversizedClientIdRefusal(request: Request): Promise<Response | null> {
  const path = new URL(request.url).pathname;
  if (path !== AUTHORIZE_PATH && path !== TOKEN_PATH) return null;
  if (!(await clientIds(request)).some((id) => bytes(id) > MAX_CLIENT_ID_BYTES)) return null;
  const reason: ErrorReason = "invalid_argument";
  return Response.json(
    {
      error: "invalid_client",
      error_description: `client_id is longer than ${MAX_CLIENT_ID_BYTES} bytes; no registered client has such an ID.`,
      reason,
      recovery: "Use the client_id that /register returned.",
    },
    { status: 400, headers: { "cache-control": "no-store" } },
  );
}
