// papers://watches: the caller's watches with their last check, and papers://library: the saved
// papers (the same per-client state papers_watch and papers_library manage).
import { agentFor } from "../../agent/client";
import { defineResource } from "../resource";

export const papersWatches = defineResource({
  name: "papers-watches",
  uri: "papers://watches",
  title: "Your watches",
  description: "The caller's watches (papers_watch) with when each was last checked",
  read: async (_request, { env, identity }) => ({
    watches: (await (await agentFor(env, identity)).listWatches()).watches,
  }),
});

export const papersLibrary = defineResource({
  name: "papers-library",
  uri: "papers://library",
  title: "Your library",
  description: "The caller's saved papers (papers_library) with tags, notes and latest versions",
  read: async (_request, { env, identity }) => ({
    papers: (await (await agentFor(env, identity)).listLibrary()).papers,
  }),
});
