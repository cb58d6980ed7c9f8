// The research agent: one Agent Durable Object (the agents SDK's, with its own SQLite) per
// client identity, holding what belongs to that user: watches (a query and a high-water mark in
// the mirror; watches.ts), a library of saved papers with tags and notes (library.ts) and their new
// versions (versions.ts). Checks read the mirrors only, never an upstream; a daily schedule after
// the harvest computes every watch's news in advance so that a check answers from it. Methods are
// called over RPC from the tools (src/agent/client.ts) and return { ok, ... } values: an error
// thrown across RPC would lose its type. This class only dispatches to the feature modules.
import { Agent } from "agents";
import { type AppContext, appContext } from "../context";
import { type AgentStore, createTables, mirrorReads } from "./agent-store";
import * as library from "./library";
import * as watches from "./watches";

/** When the precomputed news is made: after the 02:30 UTC harvest has had time to finish. */
const PRECOMPUTE_CRON = "30 6 * * *";

export class ResearchAgent extends Agent<Cloudflare.Env> {
  override async onStart(): Promise<void> {
    createTables(this.store.sql);
    // Idempotent for cron schedules: one row however often the object wakes.
    await this.schedule(PRECOMPUTE_CRON, "precomputeNews");
  }

  createWatch(input: watches.WatchInput) {
    return watches.createWatch(this.store, input);
  }

  listWatches() {
    return watches.listWatches(this.store);
  }

  deleteWatch(idOrName: string) {
    return watches.deleteWatch(this.store, idOrName);
  }

  checkWatches(idOrName?: string) {
    return watches.checkWatches(this.store, idOrName);
  }

  precomputeNews() {
    return watches.precomputeNews(this.store);
  }

  addPapers(items: { id: string; tags?: string[]; note?: string }[]) {
    return library.addPapers(this.store, items);
  }

  listLibrary(tag?: string, start = 0) {
    return library.listLibrary(this.store, tag, start);
  }

  removePapers(ids: string[]) {
    return library.removePapers(this.store, ids);
  }

  taggedIds(tag: string) {
    return library.taggedIds(this.store, tag);
  }

  /** What the feature modules work over: this object's SQLite, the app's context, bookmarked mirror reads. */
  private get store(): AgentStore {
    const sql = this.sql.bind(this) as AgentStore["sql"];
    const app: AppContext = appContext(this.env, (promise) => this.ctx.waitUntil(promise));
    return { sql, app, mirrorReads: (read) => mirrorReads(sql, app, read) };
  }
}
