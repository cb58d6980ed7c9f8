// Builds the mirror's ranking tables (arxiv_rank_terms, arxiv_rank_champions) in an open
// node:sqlite database with the Worker's own code (src/store/ranking/tables.ts, through a
// D1-shaped wrapper). Used by the bench and the seed; a deployed mirror rebuilds them after each
// harvest run, a slice per queue message.
import { fullBuildStatement, indexStats } from "../../src/store/ranking/refresh.ts";
import { rankSlice } from "../../src/store/ranking/tables.ts";
import { d1Over } from "../lib/d1-node.ts";

export async function buildRankTables(db, { slice = 2000, minDocs }: { slice?: number; minDocs?: number } = {}) {
  const started = performance.now();
  const d1 = d1Over(db);
  let after = "";
  let terms = 0;
  let lists = 0;
  for (;;) {
    db.exec("BEGIN");
    const done = await rankSlice(d1, after, {
      terms: slice,
      budgetMs: Number.POSITIVE_INFINITY,
      ...(minDocs ? { minDocs } : {}),
    });
    db.exec("COMMIT");
    if (done.last === null) {
      // Recorded as the harvest records a full build: later changes are merged from here.
      await fullBuildStatement(d1, await indexStats(d1), new Date().toISOString()).run();
      break;
    }
    terms += done.terms;
    lists += done.lists;
    after = done.last;
  }
  return { terms, lists, seconds: Math.round((performance.now() - started) / 100) / 10 };
}
