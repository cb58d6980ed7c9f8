// arxiv://mirror/status: how complete and how fresh the arXiv mirror is, and its harvest's progress
// (records, pages, rate, started/finished, last error, last verify). The same data as /status.
import { arxivShards } from "../../store/arxiv-shards";
import { mirrorState } from "../../store/arxiv-mirror-state";
import { readStoreHealth } from "../status-report";
import { defineResource } from "../resource";

export const arxivMirrorStatus = defineResource({
  name: "arxiv-mirror-status",
  uri: "arxiv://mirror/status",
  title: "arXiv mirror status",
  description: "Whether searches can be answered from the arXiv metadata mirror, and its harvest progress",
  read: async (_request, context) => {
    const [health, state] = await Promise.all([
      readStoreHealth(context.env.DB, arxivShards(context)),
      mirrorState(context.env.DB).catch(() => undefined),
    ]);
    const arxiv = health.mirrors.find((mirror) => mirror.source === "arxiv") ?? null;
    const body = {
      serving: state?.ready ?? false,
      ...(state && !state.ready ? { not_serving_because: state.reason } : {}),
      // A partial mirror answers only when arXiv's API cannot, and says how much it holds.
      ...(state?.partial ? { partial: state.partial } : {}),
      ...(state?.scope ? { complete_scope: state.scope } : {}),
      ...(health.reachable ? {} : { error: health.error }),
      harvest: arxiv,
    };
    return body;
  },
});
