// The OAuth provider library answers a few refusals with no body (a wrong method or path under
// /.well-known/: 404, 405). Every refusal of this server names its reason, so those get one.
import type { ErrorReason } from "../errors";

export function withTypedRefusal(response: Response): Response {
  if (response.status < 400 || response.status === 401 || response.headers.has("content-type")) return response;
  const reason: ErrorReason = response.status === 404 ? "not_found" : "invalid_request";
  const message = response.status === 405 ? "This method is not allowed here." : `HTTP ${response.status}.`;
  const headers = new Headers(response.headers);
  headers.set("content-type", "application/json");
  return new Response(
    JSON.stringify({
      error: { reason, message, recovery: "See /.well-known/oauth-authorization-server for the endpoints." },
    }),
    { status: response.status, headers },
  );
}
