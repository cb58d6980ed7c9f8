// What a call threw, as a test reads it: the PapersError's reason, "ok" when it returned.
import { PapersError } from "../../src/errors";

export function thrownReason(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof PapersError) return error.reason;
    throw error;
  }
  return "ok";
}
