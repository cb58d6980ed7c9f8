import { z } from "zod";
import { agentFor, unwrap } from "../../agent/client";
import { CHECK_TOKEN_BUDGET, MAX_WATCHES } from "../../agent/watches";
import { defineTool } from "../tool";

const records = (note: string) => z.array(z.looseObject({})).describe(note);

export const papersWatch = defineTool({
  name: "papers_watch",
  title: "Watches: what is new",
  useWhen: "follow a topic: saved searches whose new papers come back on check.",
  description:
    `Saved searches (at most ${MAX_WATCHES}): create (name + arxiv_query and/or categories, ` +
    `nber_query, or cites), list, delete, check: papers new since the last check.`,
  input: z.object({
    action: z.enum(["create", "list", "delete", "check"]).describe("what to do"),
    name: z.string().min(1).max(80).optional().describe("create: its name"),
    arxiv_query: z.string().min(1).max(500).optional().describe("create: arXiv grammar"),
    categories: z.array(z.string().min(1).max(40)).max(10).optional().describe("create: cs.CL, hep-th"),
    nber_query: z.string().min(1).max(300).optional().describe("create: NBER words"),
    cites: z.string().min(1).max(300).optional().describe("create: a paper ID; new works citing it"),
    watch: z.string().min(1).max(80).optional().describe("id or name (delete; check: omit for all)"),
  }),
  output: z.object({
    action: z.string(),
    watches: records("{id, name, source, query, created_at, last_checked_at}").optional(),
    news: records(
      "{watch, new_papers[{id, title, authors, date}], new_count, count_is_lower_bound, since, computed_at, from_precomputed}",
    ).optional(),
    new_versions: records(
      "saved papers with a new version: {id, title, saved_version, latest_version, latest_version_date}",
    ).optional(),
    deleted: z.string().optional(),
    unchecked: z.array(z.string()).optional(),
  }),
  annotations: { readOnlyHint: false, openWorldHint: false, idempotentHint: false },
  errors: [
    { reason: "no_identity", when: "the call carries no client identity for per-client state" },
    { reason: "invalid_watch", when: "a create has no query, or one for each source" },
    { reason: "watch_unanswerable", when: "the watch's query is one the mirror cannot answer" },
    { reason: "watch_exists", when: "a watch with that name exists" },
    { reason: "too_many_watches", when: "the client has as many watches as it may" },
    { reason: "no_such_watch", when: "no watch has that id or name" },
    { reason: "invalid_query", when: "arxiv_query does not parse" },
    { reason: "invalid_category", when: "a category is not one of arXiv's codes" },
    { reason: "invalid_id", when: "cites is not a paper ID" },
    { reason: "not_in_openalex", when: "OpenAlex has no work for cites yet" },
    { reason: "rate_limited", when: "OpenAlex's allowance is spent" },
    { reason: "server_misconfigured", when: "no OpenAlex key for cites" },
    { reason: "upstream_unavailable", when: "OpenAlex is down" },
  ],
  async handler(args, { env, identity, fail }) {
    const agent = await agentFor(env, identity);
    const missing = (field: string, action: string) =>
      fail("invalid_argument", `action=${action} needs ${field}.`, {
        recovery: `Pass ${field}; see papers_watch's inputSchema.`,
      });
    switch (args.action) {
      case "create": {
        if (!args.name) return missing("name", "create");
        const { watch } = unwrap(await agent.createWatch({ name: args.name, ...pick(args) }));
        return { action: args.action, watches: [watch] };
      }
      case "list":
        return { action: args.action, watches: (await agent.listWatches()).watches };
      case "delete": {
        if (!args.watch) return missing("watch", "delete");
        return { action: args.action, deleted: unwrap(await agent.deleteWatch(args.watch)).deleted };
      }
      case "check": {
        const { news, new_versions, unchecked } = unwrap(await agent.checkWatches(args.watch));
        return { action: args.action, news, new_versions, ...(unchecked.length > 0 ? { unchecked } : {}) };
      }
    }
  },
  render(result) {
    if (result.deleted) return `Deleted watch ${result.deleted}.`;
    if (result.news) {
      const blocks = (
        result.news as {
          watch: { name: string };
          new_papers: { id: string; title: string; date: string | null }[];
          new_count: number;
          count_is_lower_bound: boolean;
          since: string | null;
        }[]
      ).map((item) =>
        [
          `${item.watch.name}: ${item.new_count}${item.count_is_lower_bound ? "+" : ""} new since ${item.since ?? "creation"}`,
          ...item.new_papers.map((paper) => `  [${paper.id}] ${paper.title} (${paper.date ?? "?"})`),
        ].join("\n"),
      );
      const versions = (
        (result.new_versions as { id: string; latest_version: number; latest_version_date: string }[] | undefined) ?? []
      ).map((paper) => `New version of saved ${paper.id}: v${paper.latest_version} (${paper.latest_version_date})`);
      const rest = result.unchecked?.length
        ? [
            `Not checked yet, to keep this answer within ${CHECK_TOKEN_BUDGET.toLocaleString("en-US")} ` +
              `tokens (their news is kept): ${result.unchecked.join(", ")}. Check them next, one with watch=<name> or all again.`,
          ]
        : [];
      return [...blocks, ...versions, ...rest].join("\n\n") || "No watches.";
    }
    const watches = (result.watches ?? []) as { id: string; name: string; source: string; query: string }[];
    return watches.length === 0
      ? "No watches yet."
      : watches.map((watch) => `${watch.id} ${watch.name} (${watch.source}): ${watch.query}`).join("\n");
  },
});

function pick(args: {
  arxiv_query?: string | undefined;
  categories?: string[] | undefined;
  nber_query?: string | undefined;
  cites?: string | undefined;
}) {
  return {
    ...(args.cites !== undefined ? { cites: args.cites } : {}),
    ...(args.arxiv_query !== undefined ? { arxiv_query: args.arxiv_query } : {}),
    ...(args.categories !== undefined ? { categories: args.categories } : {}),
    ...(args.nber_query !== undefined ? { nber_query: args.nber_query } : {}),
  };
}
