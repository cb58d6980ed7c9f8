// The research agent across its tools (one Agent Durable Object per client identity): two identities never
// share anything, and the state lives in the Durable Object's storage. Each tool's contract is in test/tools/.

import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../src/http/auth";
import { callToolWith, resetUpstream, reasonOf, structuredOf } from "./helpers";
import { seedMirror } from "./mirror/driver";
import { TOKENS, as, inObject, workspace } from "./support/agent";

beforeEach(resetUpstream);
describe("identities and persistence", () => {
  beforeEach(() => seedMirror());

  it("never shows one identity's watches or library to another", async () => {
    structuredOf(
      await as(TOKENS[0]!, "papers_watch", { action: "create", name: "alice's", arxiv_query: "ti:lattice" }),
    );
    structuredOf(await as(TOKENS[0]!, "papers_library", { action: "add", ids: ["0704.0001"] }));
    expect(structuredOf(await as(TOKENS[1]!, "papers_watch", { action: "list" })).watches).toEqual([]);
    expect(structuredOf(await as(TOKENS[1]!, "papers_library", { action: "list" })).papers).toEqual([]);
    expect(reasonOf(await as(TOKENS[1]!, "papers_watch", { action: "delete", watch: "alice's" }))).toBe(
      "no_such_watch",
    );
    expect(
      structuredOf(await as(TOKENS[0]!, "papers_watch", { action: "list" })).watches.map(
        (w: { name: string }) => w.name,
      ),
    ).toEqual(["alice's"]);
    // A client cannot claim another identity by sending the internal header.
    const spoof = await callToolWith(
      "papers_watch",
      { action: "list" },
      {},
      { "x-papers-identity": `token:${(await sha256Hex(TOKENS[0]!)).slice(0, 16)}` },
    );
    expect(reasonOf(spoof.result)).toBe("no_identity");
  });

  it("keeps its state in the Durable Object's SQLite storage, not in memory", async () => {
    structuredOf(await workspace("lab-5", { action: "create", name: "kept", arxiv_query: "ti:lattice" }));
    structuredOf(await workspace("lab-5", { action: "add", ids: ["0704.0001"] }, "papers_library"));
    const agent = await getAgentByName(env.RESEARCH_AGENT, "workspace:lab-5");
    const stored = await inObject(agent, async (_instance, state) => ({
      watches: state.storage.sql.exec("SELECT name FROM watches").toArray(),
      library: state.storage.sql.exec("SELECT id FROM library").toArray(),
    }));
    expect(stored).toEqual({ watches: [{ name: "kept" }], library: [{ id: "0704.0001" }] });
  });
});
