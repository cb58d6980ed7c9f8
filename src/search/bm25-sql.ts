// FTS5's bm25 with the mirror's column weights, as every ranked statement writes it.
import { WEIGHTS } from "./expression.ts";

export const BM25_SQL = `bm25(arxiv_papers_fts, ${WEIGHTS.map((w) => w.toFixed(1)).join(", ")})`;
