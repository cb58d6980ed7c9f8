// The research agent in tests: two bearer-token identities, named workspaces, the Agent Durable Object's
// storage, and papers announced after the mirror was seeded.
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { type AgentStore, createTables, mirrorReads } from "../../src/agent/agent-store";
import { appContext } from "../../src/context";
import { env } from "cloudflare:workers";
import { sha256Hex } from "../../src/http/auth";
import { pageWriteStatements } from "../../src/store/arxiv-mirror-writes";
import type { MirrorRecord } from "../../src/store/arxiv-row";
import { callToolWith } from "../helpers";
import { sampleRecords } from "../mirror/driver";

// runInDurableObject with the agent's stub, typed loosely (its generics over an Agent class are too deep for tsc).
export const inObject = runInDurableObject as unknown as (
  stub: unknown,
  work: (instance: unknown, state: DurableObjectState) => Promise<unknown>,
) => Promise<unknown>;

export const TOKENS = ["token-of-alice", "token-of-bob"];

export const bearerVars = async () => ({
  AUTH_MODE: "bearer",
  AUTH_TOKEN_HASHES: (await Promise.all(TOKENS.map(sha256Hex))).join(","),
});

/** A tool call made with one of the bearer tokens (AUTH_MODE=bearer). */
export async function as(token: string, name: string, args: Record<string, unknown>) {
  const { result } = await callToolWith(name, args, await bearerVars(), { authorization: `Bearer ${token}` });
  return result;
}

/** A tool call in a named workspace (no authentication): each name is its own identity. */
export const workspace = (name: string, args: Record<string, unknown>, tool = "papers_watch") =>
  callToolWith(tool, args, {}, { "x-papers-workspace": name }).then((r) => r.result);

/** A new paper announced after the mirror was seeded (hand-made record in the sample's shape). */
export function newPaper(id: string, title: string, categories: string[]): MirrorRecord {
  const [template] = sampleRecords();
  return {
    ...template!,
    id,
    style: "new",
    title,
    categories,
    versions: [Date.UTC(2026, 10, 30) / 1000],
    doi: null,
    journal_ref: null,
    datestamp: "2026-11-30",
  };
}

/** Writes records into the mirror as a harvested page does. */
export const harvest = (records: MirrorRecord[]) => env.DB.batch(pageWriteStatements(env.DB, records, []));

/** Runs `work` inside a client's agent with the store its feature modules take (the module tests in test/agent/). */
export async function withStore<T>(identity: string, work: (store: AgentStore) => Promise<T> | T): Promise<T> {
  const agent = await getAgentByName(env.RESEARCH_AGENT, identity);
  return (await inObject(agent, async (instance) => {
    const self = instance as { sql: AgentStore["sql"] };
    const sql = self.sql.bind(instance) as AgentStore["sql"];
    createTables(sql);
    const app = appContext(env);
    return work({ sql, app, mirrorReads: (read) => mirrorReads(sql, app, read) });
  })) as T;
}
