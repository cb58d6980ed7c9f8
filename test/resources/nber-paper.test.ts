// nber://paper/{paperId}: an NBER paper's record.

import { beforeEach, describe, expect, it } from "vitest";
import { mcpCall, resetUpstream } from "../helpers";

beforeEach(resetUpstream);

describe("nber://paper/{paperId}", () => {
  it("reads nber://paper/{paperId}", async () => {
    const { message } = await mcpCall("resources/read", { uri: "nber://paper/w10000" });
    expect(JSON.parse(message.result.contents[0].text)).toMatchObject({ id: "w10000", served_from: "live" });
    const bad = await mcpCall("resources/read", { uri: "nber://paper/banana" });
    expect(bad.message.error.data).toMatchObject({ reason: "invalid_id" });
  });
});
