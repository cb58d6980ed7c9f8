// What every candidate source gives the ranker: one subquery of paper keys with its binds. The
// ranker ORs them into one statement that fetches the candidates' text for rescoring.
import { BM25_SQL } from "../bm25-sql.ts";
import type { KeyFilters } from "../filters.ts";

export interface CandidatePart {
  sql: string;
  binds: unknown[];
}

/** The best `limit` papers FTS5 ranks for a MATCH expression, under the search's filters. */
export function ftsPart(filters: KeyFilters, match: string, limit: number): CandidatePart {
  const { clauses, binds } = filters("arxiv_papers_fts.rowid");
  return {
    sql:
      `SELECT arxiv_papers_fts.rowid FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ` +
      `?${clauses.map((c) => ` AND ${c}`).join("")} ORDER BY ${BM25_SQL} LIMIT ${limit}`,
    binds: [match, ...binds],
  };
}
