// The NBER mirror's daily refresh: walk NBER's listing newest first, one page per queue message,
// adding papers until a page holds one the mirror already has (or a page cap is reached).
import { searchNberApi } from "../sources/nber/api";
import { mirrorCoverage, mirrorHas, upsertMirror } from "../store/nber-mirror";
import { setHarvestState } from "../store/harvest-state";
import type { HarvestMessage, Harvester } from "./dispatch";

const PER_PAGE = 100;
const MAX_PAGES = 30; // 3,000 papers: far more than NBER issues between two daily runs

const setState = (env: Env, values: Parameters<typeof setHarvestState>[2]) => setHarvestState(env.DB, "nber", values);

export const nberHarvester: Harvester = {
  async onSchedule(env) {
    const runId = new Date().toISOString();
    await setState(env, { status: "running", startedAt: runId, finishedAt: null, pages: 0, lastError: null });
    await env.HARVEST_QUEUE.send({ source: "nber", run_id: runId, cursor: "1" } satisfies HarvestMessage);
  },

  async onPage(env, message) {
    const page = Number(message.cursor ?? "1");
    const { papers } = await searchNberApi(env, { page, perPage: PER_PAGE, newestFirst: true });
    const known = await mirrorHas(
      env.DB,
      papers.map((paper) => paper.id),
    );
    const fresh = papers.filter((paper) => !known.has(paper.id));
    await upsertMirror(
      env.DB,
      fresh.map((paper) => ({ ...paper, source: "api" as const })),
    );
    const done = papers.length === 0 || known.size > 0 || page >= MAX_PAGES;
    const coverage = await mirrorCoverage(env.DB);
    await setState(env, {
      status: done ? "done" : "running",
      pages: page,
      records: coverage.papers,
      lastDatestamp: coverage.newest,
      ...(done ? { finishedAt: new Date().toISOString() } : {}),
    });
    if (!done) await env.HARVEST_QUEUE.send({ ...message, cursor: String(page + 1) } satisfies HarvestMessage);
  },
};
