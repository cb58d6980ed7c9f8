// The rank step after the verify: each shard's ranking tables merged with the run's changes or
// rebuilt whole, a phase and a slice per step (plan, clear, full | floors, stage, merge).
import { rankSlice } from "../../store/ranking/tables";
import {
  clearRankChanges,
  fullBuildStatement,
  indexStats,
  planRankRefresh,
  RANK_REFRESH,
  refreshedStatement,
  scaledToDepth,
  setImpactFloors,
  stageRankChanges,
} from "../../store/ranking/refresh";
import { mergeRankTerms } from "../../store/ranking/merge";
import { arxivShards } from "../../store/arxiv-shards";
import { stepStatement, type RankCursor } from "../../store/harvest-state";
import type { AppContext } from "../../context";
import { advance } from "./step-io";

/** Groups of statements (kept whole) packed into calls of about `size` statements. */
function inBatches(groups: D1PreparedStatement[][], size: number): D1PreparedStatement[][] {
  const batches: D1PreparedStatement[][] = [];
  for (const group of groups) {
    const last = batches.at(-1);
    if (last !== undefined && last.length + group.length <= size) last.push(...group);
    else batches.push([...group]);
  }
  return batches;
}

/**
 * The ranking tables after a run, a step at a time: merged with the run's own changes, or rebuilt
 * whole when planRankRefresh says so (src/store/ranking/refresh.ts). A step's writes and the
 * checkpoint's move commit in one batch. Until a term's turn comes, the ranker reads its previous rows.
 */
export async function rankStep(ctx: AppContext, runId: string, cursor: RankCursor): Promise<void> {
  // A sharded mirror's shards each keep ranking tables of their own papers, refreshed one shard
  // after another (cursor.shard), each planned from its own change log and statistics.
  const shards = arxivShards(ctx);
  const index = Math.min(cursor.shard ?? 0, shards.length - 1);
  const db = shards[index]!.db;
  const started = Date.now();
  const now = new Date().toISOString();
  const phase = cursor.phase ?? (cursor.after === "" ? "plan" : "full");
  let next: RankCursor | null;
  const writes: D1PreparedStatement[] = [];
  let did: string;
  if (phase === "plan") {
    const plan = await planRankRefresh(db);
    did = `${plan.full ? "a full rebuild" : "the changes only"}: ${plan.why}`;
    next = {
      kind: "rank",
      step: cursor.step + 1,
      phase: plan.full ? "clear" : "floors",
      after: "",
      terms: 0,
      papers: 0,
      ...(index > 0 ? { shard: index } : {}),
    };
  } else if (phase === "clear") {
    const cleared = await clearRankChanges(db);
    did = cleared ? "change log cleared" : "change log cleared in part";
    next = { ...cursor, step: cursor.step + 1, phase: cleared ? "full" : "clear" };
  } else if (phase === "full") {
    const slice = await rankSlice(db, cursor.after);
    did = `vocabulary after ${JSON.stringify(cursor.after)}: ${slice.terms} terms`;
    next =
      slice.last === null
        ? null
        : { ...cursor, step: cursor.step + 1, after: slice.last, terms: cursor.terms + slice.terms };
    if (next === null) writes.push(fullBuildStatement(db, await indexStats(db), now));
  } else if (phase === "floors") {
    const floors = await setImpactFloors(db);
    did = `${floors.writes.length} impact lists' floors`;
    writes.push(...floors.writes);
    next = { ...cursor, step: cursor.step + 1, phase: floors.done ? "stage" : "floors" };
  } else if (phase === "stage") {
    const staged = await stageRankChanges(db, cursor.after === "" ? Number.MIN_SAFE_INTEGER : Number(cursor.after));
    did = `${staged.papers} changed papers staged (${staged.staged} list entries)`;
    // Each statement of staged rows alone: a search waits for one of them at most.
    for (const statement of staged.rows) await statement.run();
    writes.push(...staged.writes);
    next =
      staged.last === null
        ? { ...cursor, step: cursor.step + 1, phase: "merge", after: "" }
        : {
            ...cursor,
            step: cursor.step + 1,
            after: String(staged.last),
            papers: (cursor.papers ?? 0) + staged.papers,
          };
  } else {
    const merged = await mergeRankTerms(db, cursor.after);
    did = `terms after ${JSON.stringify(cursor.after)}: ${merged.terms} merged, ${merged.lists} lists written`;
    const perCall = scaledToDepth(RANK_REFRESH.writesPerCall, merged.depth);
    for (const batch of inBatches(merged.groups, perCall)) await db.batch(batch);
    writes.push(...merged.writes);
    next =
      merged.last === null
        ? null
        : { ...cursor, step: cursor.step + 1, after: merged.last, terms: cursor.terms + merged.terms };
    if (next === null) writes.push(refreshedStatement(db, cursor.papers ?? 0, await indexStats(db), now));
  }
  // This shard is done: the next one's plan.
  if (next === null && index + 1 < shards.length)
    next = { kind: "rank", step: cursor.step + 1, after: "", terms: 0, shard: index + 1 };
  console.log(
    `arxiv harvest ${runId}: ranking tables${shards.length > 1 ? ` of ${shards[index]!.binding}` : ""}, ${phase}: ${did} in ${Date.now() - started} ms`,
  );
  const checkpoint = stepStatement(ctx.env.DB, { runId, step: cursor.step, next, now });
  // On DB the step's writes and the checkpoint commit together; on another shard its writes go
  // first (each is idempotent: a step replayed after a crash between the two gives the same tables).
  if (db === ctx.env.DB) await db.batch([...writes, checkpoint]);
  else {
    if (writes.length > 0) await db.batch(writes);
    await checkpoint.run();
  }
  if (next !== null) return advance(ctx, runId, next);
}
