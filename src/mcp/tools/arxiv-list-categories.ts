import { z } from "zod";
import { ARXIV_GROUPS, listCategories } from "../../sources/arxiv/categories";
import { defineTool } from "../tool";

const category = z.object({
  code: z.string(),
  name: z.string(),
  group: z.string(),
  group_name: z.string(),
  archive: z.string(),
  archive_name: z.string(),
  alias_of: z.string().optional(),
});

export const arxivListCategories = defineTool({
  name: "arxiv_list_categories",
  title: "List arXiv categories",
  useWhen: "find the category codes for cat: and category (all, or one group or archive).",
  description:
    "The ~155 active arXiv categories (code, name, group, archive), all or of one group (cs, econ, physics, ...) or archive (astro-ph).",
  input: z.object({
    group: z.string().min(1).max(40).optional().describe("group or archive; omit for all"),
  }),
  output: z.object({
    group: z.string().nullable(),
    count: z.number(),
    categories: z.array(category),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
  errors: [{ reason: "invalid_group", when: "group is neither a category group nor an archive" }],
  handler({ group }) {
    const categories = listCategories(group);
    return { group: group ?? null, count: categories.length, categories };
  },
  render({ group, count, categories }) {
    const head = `${count} arXiv categories${group ? ` in ${group}` : ""} (groups: ${ARXIV_GROUPS.join(", ")}):`;
    const lines = categories.map((c) => `${c.code}\t${c.name}${c.alias_of ? ` (alias of ${c.alias_of})` : ""}`);
    return [head, ...lines].join("\n");
  },
});
