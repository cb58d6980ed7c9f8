// The NBER mirror's daily refresh: walk NBER's listing newest first, one page per queue message,
// adding papers until a page holds one the mirror already has (or a page cap is reached).
import { searchNberApi } from "../sources/nber/api";
import { mirrorCoverage, mirrorHas, upsertMirror } from "../store/nber-mirror";
import { setHarvestState } from "../store/harvest-state";
import type { HarvestMessage, Harvester } from "./dispatch";
import type { AppContext } from "../context";

const PER_PAGE = 100;
const MAX_PAGES = 30; // 3,000 papers: far more than NBER issues between two daily runs

const setState = (ctx: AppContext, values: Parameters<typeof setHarvestState>[2]) =>
  setHarvestState(ctx.env.DB, "nber", values);

export const nberHarvester: Harvester = {
  async onSchedule(ctx) {
    const runId = new Date().toISOString();
    await setState(ctx, { status: "running", startedAt: runId, finishedAt: null, pages: 0, lastError: null });
    await ctx.env.HARVEST_QUEUE.send({ source: "nber", run_id: runId, cursor: "1" } satisfies HarvestMessage);
  },

  async onPage(ctx, message) {
    const page = Number(message.cursor ?? "1");
    const { papers } = await searchNberApi(ctx, { page, perPage: PER_PAGE, newestFirst: true });
    const known = await mirrorHas(
      ctx.env.DB,
      papers.map((paper) => paper.id),
    );
    const fresh = papers.filter((paper) => !known.has(paper.id));
    await upsertMirror(
      ctx.env.DB,
      fresh.map((paper) => ({ ...paper, source: "api" as const })),
    );
    const done = papers.length === 0 || known.size > 0 || page >= MAX_PAGES;
    const coverage = await mirrorCoverage(ctx.env.DB);
    await setState(ctx, {
      status: done ? "done" : "running",
      pages: page,
      records: coverage.papers,
      lastDatestamp: coverage.newest,
      ...(done ? { finishedAt: new Date().toISOString() } : {}),
    });
    if (!done) await ctx.env.HARVEST_QUEUE.send({ ...message, cursor: String(page + 1) } satisfies HarvestMessage);
  },
};
