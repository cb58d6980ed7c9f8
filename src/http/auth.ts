// Bearer tokens (AUTH_MODE=bearer) and the admin token: compared as SHA-256 digests in constant
// time, against every configured digest (no early exit that would leak which one matched).

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function equalHex(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  if (left.byteLength !== right.byteLength) return false;
  return crypto.subtle.timingSafeEqual(left, right);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined | null): string | undefined {
  const match = /^Bearer\s+([\x21-\x7e]{1,4096})\s*$/i.exec(header ?? "");
  return match?.[1];
}

/** True when the token's digest is one of `hashes`. */
export async function tokenMatches(token: string | undefined, hashes: readonly string[]): Promise<boolean> {
  if (!token || hashes.length === 0) return false;
  const digest = await sha256Hex(token);
  let match = false;
  for (const hash of hashes) match = equalHex(digest, hash.toLowerCase()) || match;
  return match;
}

export function unauthorized(realm: string, description: string): Response {
  return new Response(
    JSON.stringify({
      error: {
        reason: "unauthorized",
        message: description,
        recovery: "Send Authorization: Bearer <token> with a token the operator issued.",
      },
    }),
    {
      status: 401,
      headers: {
        "content-type": "application/json",
        "www-authenticate": `Bearer realm="${realm}", error="invalid_token", error_description="${description}"`,
      },
    },
  );
}
