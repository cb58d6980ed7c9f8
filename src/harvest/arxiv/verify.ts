// The verify step after a run: a small mirror checked whole at once, a large one a slice per step,
// shard after shard; then the ranking tables' refresh starts (rank.ts).
import {
  FULL_VERIFY_MAX_PAPERS,
  finishSlicedVerify,
  nextCategory,
  verifyCategorySlice,
  verifyMirror,
  verifyPaperSlice,
  type VerifyResult,
} from "../../store/arxiv-mirror-verify";
import { arxivShards } from "../../store/arxiv-shards";
import {
  readArxivState,
  stepStatement,
  verifiedStatement,
  type RankCursor,
  type VerifyCursor,
} from "../../store/harvest-state";
import type { AppContext } from "../../context";
import { advance } from "./step-io";

/** Rows checked per verify message on a mirror of up to a million papers a database (under 100 ms of D1 each). */
const VERIFY_SLICE = 50_000;
const VERIFY_SLICE_SIZED_FOR = 1_000_000;

/**
 * Rows per slice for a database of `papers`: a slice's rows cost more in a larger database (measured
 * with bench:refresh: 232-268 ms for 50,000 at 3,200,000 papers against 88 ms at 1,000,000), so
 * fewer of them (91-111 ms for 15,625 there), and a search waits behind a verify call no longer.
 */
export function verifySlice(papers: number): number {
  return Math.max(
    1_000,
    Math.min(VERIFY_SLICE, Math.round((VERIFY_SLICE * VERIFY_SLICE_SIZED_FOR) / Math.max(1, papers))),
  );
}

/**
 * The verify after a run. A small mirror is checked whole in one go; a large one one slice per
 * step (D1 allows a statement 30 s, and the whole-database checks hold it longer).
 */
export async function verifyStep(
  ctx: AppContext,
  runId: string,
  cursor: VerifyCursor,
  sliceSize?: number,
): Promise<void> {
  const now = new Date().toISOString();
  const started = Date.now();
  let result: VerifyResult | undefined;
  let next: VerifyCursor | undefined;
  // A sharded mirror is checked shard after shard (cursor.shard), the totals summed at the end.
  const shards = arxivShards(ctx);
  const index = cursor.shard ?? 0;
  const first = cursor.phase === "papers" && index === 0 && cursor.after === Number.MIN_SAFE_INTEGER;
  const records = first ? ((await readArxivState(ctx.env.DB))?.records ?? 0) : 0;
  // The slice is sized once, at the first step, by the papers a database holds; the cursor carries it.
  if (first) cursor = { ...cursor, slice: verifySlice(records / shards.length) };
  sliceSize ??= cursor.slice ?? VERIFY_SLICE;
  const shard = shards[Math.min(index, shards.length - 1)]!;
  const afterShard = (counts: VerifyCursor["counts"]): VerifyCursor =>
    index + 1 < shards.length
      ? {
          ...cursor,
          step: cursor.step + 1,
          shard: index + 1,
          phase: "papers",
          category: null,
          after: Number.MIN_SAFE_INTEGER,
          counts,
        }
      : { ...cursor, step: cursor.step + 1, phase: "totals", category: null, counts };
  if (first && records <= FULL_VERIFY_MAX_PAPERS) {
    result = await verifyMirror(shards);
  } else if (cursor.phase === "papers") {
    const { last, counts } = await verifyPaperSlice(shard, cursor.after, sliceSize);
    const sum = {
      ...cursor.counts,
      papers: cursor.counts.papers + counts.papers,
      missing: cursor.counts.missing + counts.missing,
      fts_missing: cursor.counts.fts_missing + counts.fts_missing,
      fts_orphans: cursor.counts.fts_orphans + counts.fts_orphans,
      misplaced: (cursor.counts.misplaced ?? 0) + counts.misplaced,
    };
    if (last !== null) next = { ...cursor, step: cursor.step + 1, after: last, counts: sum };
    else {
      const first = await nextCategory(shard.db, "");
      next =
        first === null
          ? afterShard(sum)
          : {
              ...cursor,
              step: cursor.step + 1,
              phase: "categories",
              category: first,
              after: Number.MIN_SAFE_INTEGER,
              counts: sum,
            };
    }
  } else if (cursor.phase === "categories" && cursor.category !== null) {
    const slice = await verifyCategorySlice(shard.db, cursor.category, cursor.after, sliceSize);
    const counts = {
      ...cursor.counts,
      orphans: cursor.counts.orphans + slice.orphans,
      category_rows: cursor.counts.category_rows + slice.rows,
    };
    next =
      slice.next === null
        ? afterShard(counts)
        : { ...cursor, step: cursor.step + 1, category: slice.next.category, after: slice.next.after, counts };
  } else {
    result = await finishSlicedVerify(shards, cursor.counts);
  }
  console.log(`arxiv harvest ${runId}: verify step ${cursor.phase} in ${Date.now() - started} ms`);
  if (next !== undefined) {
    await ctx.env.DB.batch([stepStatement(ctx.env.DB, { runId, step: cursor.step, next, now })]);
    return advance(ctx, runId, next);
  }
  const rank: RankCursor = { kind: "rank", step: cursor.step + 1, after: "", terms: 0 };
  await ctx.env.DB.batch([verifiedStatement(ctx.env.DB, runId, cursor.step, result, now, rank)]);
  if (!result!.ok) console.error("arxiv mirror verify failed", result);
  return advance(ctx, runId, rank);
}

/** The verify after a run (or a rebalance): its first step, from the first shard's first paper. */
export function firstVerifyStep(step: number): VerifyCursor {
  return {
    kind: "verify",
    step,
    phase: "papers",
    after: Number.MIN_SAFE_INTEGER,
    category: null,
    counts: { papers: 0, missing: 0, fts_missing: 0, fts_orphans: 0, orphans: 0, category_rows: 0 },
  };
}
