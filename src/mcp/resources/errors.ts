// Resource reads have no isError result: failures are JSON-RPC errors. A miss is the SDK's
// ResourceNotFoundError (the code each protocol revision expects); other reasons are
// invalid-params errors. Both carry { reason, recovery } in `data` so agents can branch.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from "@modelcontextprotocol/server";

export function resourceError(uri: string, reason: string, message: string, recovery: string): ProtocolError {
  if (reason === "not_found" || reason === "no_match") return new ResourceNotFoundError(uri, `${message} ${recovery}`);
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `${message} ${recovery}`, { reason, recovery, uri });
}
