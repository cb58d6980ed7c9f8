// Resource reads have no isError result: failures are JSON-RPC errors. A miss is the SDK's
// ResourceNotFoundError (the code each protocol revision expects); a transient failure (rate
// limited, a timeout, an upstream down) is an internal error the agent may retry, with
// retry_after_ms; other reasons are invalid-params errors. All carry { reason, recovery } in
// `data` so agents can branch.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { ErrorReason, PapersError } from "../../errors";

export function resourceError(
  uri: string,
  reason: ErrorReason,
  message: string,
  recovery: string,
  transient?: { retryAfterMs?: number },
): ProtocolError {
  if (reason === "not_found" || reason === "no_match") return new ResourceNotFoundError(uri, `${message} ${recovery}`);
  if (transient) {
    return new ProtocolError(ProtocolErrorCode.InternalError, `${message} ${recovery}`, {
      reason,
      recovery,
      uri,
      retryable: true,
      ...(transient.retryAfterMs === undefined ? {} : { retry_after_ms: transient.retryAfterMs }),
    });
  }
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `${message} ${recovery}`, { reason, recovery, uri });
}

/** A PapersError from a source, as the resource read's JSON-RPC error. */
export function resourceErrorFrom(uri: string, error: PapersError): ProtocolError {
  return resourceError(
    uri,
    error.reason,
    error.message,
    error.recovery,
    error.retryable ? { retryAfterMs: error.retryAfterMs } : undefined,
  );
}
