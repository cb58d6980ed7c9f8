// papers://watches: the caller's watches with their last check, and papers://library: the saved
// papers (the same per-client state papers_watch and papers_library manage).
import { agentFor } from "../../agent/client";
import { PRIVATE_CACHE_HINT } from "../cache-hints";
import { defineResource } from "../resource";

export const papersWatches = defineResource({
  name: "papers-watches",
  uri: "papers://watches",
  title: "Your watches",
  description: "The caller's watches (papers_watch) with when each was last checked",
  cacheHint: PRIVATE_CACHE_HINT,
  read: async (_request, { env, identity }) => ({
    watches: (await (await agentFor(env, identity)).listWatches()).watches,
  }),
});

export const papersLibrary = defineResource({
  name: "papers-library",
  uri: "papers://library",
  title: "Your library",
  description: "The caller's saved papers (papers_library) with tags, notes and latest versions",
  cacheHint: PRIVATE_CACHE_HINT,
  // The first page within the list budget; papers_library list with start gives the rest.
  read: async (_request, { env, identity }) => {
    const { papers, total, next_start } = await (await agentFor(env, identity)).listLibrary();
    return {
      papers,
      total,
      ...(next_start === null ? {} : { next_start, more: `papers_library action=list start=${next_start}` }),
    };
  },
});
