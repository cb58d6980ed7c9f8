// The move step of a rebalance run: papers a shard's key range does not hold, moved to their
// shards a batch at a time; after the last shard the run ends like a listing run (verify.ts).
import { movePapers } from "../../store/arxiv-shard-move";
import { arxivShards, shardRecordsStatement } from "../../store/arxiv-shards";
import {
  finishRunStatement,
  stepStatement,
  type ArxivState,
  type Cursor,
  type MoveCursor,
} from "../../store/harvest-state";
import type { AppContext } from "../../context";
import { advance, scopeOf } from "./step-io";
import { firstVerifyStep } from "./verify";

/**
 * A rebalance run's step: a batch of one shard's papers that its key range does not hold, moved
 * to their shards (src/store/arxiv-shard-move.ts); then the next shard; after the last, the run
 * ends as a harvest run does (the other shards' count, the verify, each shard's ranking tables),
 * its watermark unchanged.
 */
export async function moveStep(ctx: AppContext, state: ArxivState, runId: string, cursor: MoveCursor): Promise<void> {
  const now = new Date().toISOString();
  const shards = arxivShards(ctx);
  const { moved, last } =
    cursor.shard < shards.length ? await movePapers(shards, cursor.shard, cursor.after) : { moved: 0, last: null };
  console.log(
    `arxiv harvest ${runId}: ${moved} papers moved out of ${shards[cursor.shard]?.binding ?? "a shard no longer mapped"}`,
  );
  const next: Cursor | null =
    last !== null
      ? { ...cursor, step: cursor.step + 1, after: last, moved: cursor.moved + moved }
      : cursor.shard + 1 < shards.length
        ? {
            ...cursor,
            step: cursor.step + 1,
            shard: cursor.shard + 1,
            after: Number.MIN_SAFE_INTEGER,
            moved: cursor.moved + moved,
          }
        : null;
  const shardCount = await shardRecordsStatement(shards);
  if (next !== null) {
    await ctx.env.DB.batch([
      ...(shardCount ? [shardCount] : []),
      stepStatement(ctx.env.DB, { runId, step: cursor.step, next, now, records: moved }),
    ]);
    return advance(ctx, runId, next);
  }
  const verify = firstVerifyStep(cursor.step + 1);
  await ctx.env.DB.batch([
    ...(shardCount ? [shardCount] : []),
    finishRunStatement(ctx.env.DB, {
      runId,
      step: cursor.step,
      next: verify,
      now,
      watermark: state.watermark,
      scope: scopeOf(ctx.config),
    }),
  ]);
  console.log(`arxiv harvest ${runId}: rebalance done, ${cursor.moved + moved} papers moved`);
  return advance(ctx, runId, verify);
}
