// The skipped step, at the end of a listing run: one record kept aside as unreadable is asked again
// with GetRecord per step; when none is left (or the run's share is spent) the run completes and
// its verify starts (verify.ts).
import { writePapers } from "../../store/arxiv-mirror-writes";
import { arxivShards, shardRecordsStatement } from "../../store/arxiv-shards";
import { finishRunStatement, stepStatement, type ArxivState, type Cursor } from "../../store/harvest-state";
import { nextSkippedToRetry, skippedTriedStatement, skippedTriedThisRun } from "../../store/harvest-skipped";
import type { AppContext } from "../../context";
import { OaiError } from "../oai";
import { advance, fetchOai, scopeOf } from "./step-io";
import { firstVerifyStep } from "./verify";

/** Unreadable records retried by GetRecord at the end of one run (each is a request spaced by the gate). */
const SKIPPED_RETRIES_PER_RUN = 200;

/** End of the run: one unreadable record retried with GetRecord per step, then the run completes. */
export async function skippedStep(
  ctx: AppContext,
  state: ArxivState,
  runId: string,
  cursor: Extract<Cursor, { kind: "skipped" }>,
): Promise<void> {
  const now = new Date().toISOString();
  const candidate =
    (await skippedTriedThisRun(ctx.env.DB, runId)) < SKIPPED_RETRIES_PER_RUN
      ? await nextSkippedToRetry(ctx.env.DB, runId)
      : null;
  if (candidate === null) {
    const verify = firstVerifyStep(cursor.step + 1);
    const watermark = (state.started_at ?? now).slice(0, 10);
    await ctx.env.DB.batch([
      finishRunStatement(ctx.env.DB, {
        runId,
        step: cursor.step,
        next: verify,
        now,
        watermark,
        scope: scopeOf(ctx.config),
      }),
    ]);
    console.log(`arxiv harvest ${runId}: complete; the next refresh lists from ${watermark}`);
    return advance(ctx, runId, verify);
  }
  const config = ctx.config;
  const query = new URLSearchParams({
    verb: "GetRecord",
    identifier: candidate.identifier,
    metadataPrefix: config.ARXIV_MIRROR_OAI_METADATA_PREFIX,
  });
  const path = `?${query}`;
  const statements: D1PreparedStatement[] = [];
  try {
    const { page } = await fetchOai(ctx, path);
    const item = page.items[0];
    // The paper first (in its shard), then the checkpoint: a replayed step rewrites it unchanged.
    if (item?.kind === "record") {
      await writePapers(arxivShards(ctx), [item.record], []);
      statements.push(skippedTriedStatement(ctx.env.DB, candidate.identifier, runId, { status: "recovered" }));
    } else if (item?.kind === "deleted") {
      await writePapers(arxivShards(ctx), [], [item.id]);
      statements.push(skippedTriedStatement(ctx.env.DB, candidate.identifier, runId, { status: "deleted" }));
    } else {
      const problem = page.skipped[0]?.problem ?? "GetRecord returned no record";
      statements.push(
        skippedTriedStatement(ctx.env.DB, candidate.identifier, runId, { status: "open", reason: problem }),
      );
    }
  } catch (error) {
    if (!(error instanceof OaiError)) throw error;
    // idDoesNotExist: arXiv no longer has it; anything else: still unreadable, tried again next run.
    statements.push(
      skippedTriedStatement(
        ctx.env.DB,
        candidate.identifier,
        runId,
        error.code === "idDoesNotExist"
          ? { status: "deleted", reason: error.message }
          : { status: "open", reason: error.message },
      ),
    );
  }
  const next: Cursor = { kind: "skipped", step: cursor.step + 1 };
  const shardCount = await shardRecordsStatement(arxivShards(ctx));
  if (shardCount) statements.push(shardCount);
  statements.push(stepStatement(ctx.env.DB, { runId, step: cursor.step, next, now }));
  await ctx.env.DB.batch(statements);
  await advance(ctx, runId, next);
}
