// papers://watches and papers://library: one identity's watches and library, read as resources.

import { beforeEach, describe, expect, it } from "vitest";
import { mcpCall, resetUpstream, structuredOf } from "../helpers";
import { seedMirror } from "../mirror/driver";
import { workspace } from "../support/agent";

beforeEach(resetUpstream);
describe("papers://watches and papers://library", () => {
  beforeEach(() => seedMirror());

  it("reads the watches and the library as resources, per identity", async () => {
    structuredOf(await workspace("lab-6", { action: "create", name: "as a resource", arxiv_query: "ti:lattice" }));
    structuredOf(await workspace("lab-6", { action: "add", ids: ["0704.0001"], tags: ["x"] }, "papers_library"));
    const read = (uri: string, headers: Record<string, string>) => mcpCall("resources/read", { uri }, { headers });
    const watches = JSON.parse(
      (await read("papers://watches", { "x-papers-workspace": "lab-6" })).message.result.contents[0].text,
    );
    expect(watches.watches.map((w: { name: string }) => w.name)).toEqual(["as a resource"]);
    const library = JSON.parse(
      (await read("papers://library", { "x-papers-workspace": "lab-6" })).message.result.contents[0].text,
    );
    expect(library.papers.map((p: { id: string }) => p.id)).toEqual(["0704.0001"]);
    const other = JSON.parse(
      (await read("papers://watches", { "x-papers-workspace": "lab-7" })).message.result.contents[0].text,
    );
    expect(other.watches).toEqual([]);
    const anonymous = await read("papers://watches", {});
    expect(anonymous.message.error.data.reason).toBe("no_identity");
  });
});
