import { z } from "zod";
import { agentFor, unwrap } from "../../agent/client";
import { LIST_TOKEN_BUDGET, MAX_LIBRARY, MAX_NOTE_CHARS } from "../../agent/library";
import { defineTool } from "../tool";

const records = (note: string) => z.array(z.looseObject({})).describe(note);

export const papersLibrary = defineTool({
  name: "papers_library",
  title: "Library of saved papers",
  useWhen: "keep papers for later, with tags and notes (export them by tag).",
  description:
    `Saved papers (at most ${MAX_LIBRARY}): add arXiv or NBER IDs with tags and a note, ` +
    `list (by tag, with latest versions), remove. Export takes a tag.`,
  input: z.object({
    action: z.enum(["add", "list", "remove"]).describe("what to do"),
    ids: z.array(z.string().min(1).max(300)).min(1).max(50).optional().describe("add, remove: arXiv or NBER IDs"),
    tags: z.array(z.string().min(1).max(40)).max(10).optional().describe("add: labels"),
    note: z.string().max(MAX_NOTE_CHARS).optional().describe("add: your note"),
    tag: z.string().min(1).max(40).optional().describe("list: by tag"),
    start: z.number().int().min(0).max(1_000).default(0).describe("list: next_start"),
  }),
  output: z.object({
    action: z.string(),
    papers: records(
      "{id, source, title, tags, note, added_at, saved_version, latest_version, latest_version_date}",
    ).optional(),
    not_added: records("{id, reason, detail}").optional(),
    removed: z.array(z.string()).optional(),
    not_found: z.array(z.string()).optional(),
    total: z.number().optional(),
    next_start: z.number().nullable().optional(),
  }),
  annotations: { readOnlyHint: false, openWorldHint: false, idempotentHint: false },
  errors: [{ reason: "no_identity", when: "the call carries no client identity for per-client state" }],
  async handler(args, { env, identity, fail }) {
    const agent = await agentFor(env, identity);
    if (args.action === "list") {
      const { papers, total, next_start } = await agent.listLibrary(args.tag, args.start);
      return { action: args.action, papers, total, next_start };
    }
    if (!args.ids)
      return fail("invalid_argument", `action=${args.action} needs ids.`, { recovery: "Pass the papers' IDs in ids." });
    if (args.action === "add") {
      const { added, not_added } = unwrap(
        await agent.addPapers(
          args.ids.map((id) => ({
            id,
            ...(args.tags ? { tags: args.tags } : {}),
            ...(args.note !== undefined ? { note: args.note } : {}),
          })),
        ),
      );
      return { action: args.action, papers: added, not_added };
    }
    const { removed, not_found } = await agent.removePapers(args.ids);
    return { action: args.action, removed, not_found };
  },
  render(result) {
    const papers = (result.papers ?? []) as {
      id: string;
      title: string | null;
      tags: string[];
      latest_version: number | null;
      saved_version: number | null;
    }[];
    const lines = papers.map((paper) => {
      const tags = paper.tags.length ? ` #${paper.tags.join(" #")}` : "";
      const newer =
        paper.latest_version && paper.saved_version && paper.latest_version > paper.saved_version
          ? ` (new version v${paper.latest_version})`
          : "";
      return `[${paper.id}] ${paper.title ?? "(title unknown)"}${tags}${newer}`;
    });
    for (const miss of (result.not_added ?? []) as { id: string; reason: string; detail: string }[])
      lines.push(`not added ${miss.id}: ${miss.reason}: ${miss.detail}`);
    if (result.removed)
      lines.push(
        `Removed ${result.removed.length}${result.not_found?.length ? `; not in the library: ${result.not_found.join(", ")}` : ""}.`,
      );
    if (result.next_start != null)
      lines.push(
        `${papers.length} of ${result.total} papers, within ${LIST_TOKEN_BUDGET.toLocaleString("en-US")} ` +
          `tokens: call again with start=${result.next_start} for more.`,
      );
    return lines.join("\n") || "The library is empty.";
  },
});
