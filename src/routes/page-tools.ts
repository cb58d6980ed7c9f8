// What every page's route runs the engine with: the tools' context for a person's request (the
// per-client limits key on the address, as /mcp's do) and a typed outcome instead of a throw.
import type { Context } from "hono";
import { noProgress } from "../progress";
import { type ErrorPayload, toErrorPayload } from "../mcp/errors";
import type { ToolContext } from "../mcp/tool";
import { appContextOf } from "./identity";

export type PageContext = Context<{ Bindings: Env }>;

export function toolContext(c: PageContext): ToolContext {
  const client = `ip:${c.req.header("cf-connecting-ip") ?? "local"}`;
  return { ...appContextOf(c), origin: new URL(c.req.url).origin, identity: null, client, progress: noProgress };
}

export async function attempt<T>(
  work: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: ErrorPayload }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, error: toErrorPayload(error) };
  }
}
