import { it } from "vitest";
import { mcpCall } from "./helpers";
it("size", async () => {
  const { message } = await mcpCall("tools/list");
  for (const tool of message.result.tools) {
    console.log("SIZE", tool.name, JSON.stringify(tool).length);
    if (tool.name === "arxiv_read_paper") {
      const j = JSON.stringify(tool);
      for (let i = 0; i < j.length; i += 200) console.log("PART", j.slice(i, i + 200));
    }
  }
  console.log("SIZE total", JSON.stringify(message.result).length);
});
