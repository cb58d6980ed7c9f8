// The tools' way to a client's research agent: the Durable Object named by the caller's identity.
import { getAgentByName } from "agents";
import { PapersError } from "../errors";
import type { AgentError } from "./agent-store";

export async function agentFor(env: Env, identity: string | null) {
  if (identity === null) {
    throw new PapersError(
      "no_identity",
      "Watches and the library belong to a client, and this call has no client identity.",
      {
        recovery:
          "With AUTH_MODE=bearer or oauth the token is the identity. With AUTH_MODE=none, send an " +
          "x-papers-workspace header naming a workspace (letters, digits, . _ -); anyone who knows the name can use it.",
      },
    );
  }
  return getAgentByName(env.RESEARCH_AGENT, identity);
}

/** An agent's { ok: false } answer as the typed error it stands for; its { ok: true } answer as is. */
export function unwrap<R extends { ok: true } | { ok: false; error: AgentError }>(result: R): Extract<R, { ok: true }> {
  if (!result.ok) {
    const { error } = result as { ok: false; error: AgentError };
    throw new PapersError(error.reason, error.message, { recovery: error.recovery });
  }
  return result as Extract<R, { ok: true }>;
}
