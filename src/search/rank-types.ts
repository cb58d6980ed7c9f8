// What a ranking is asked and answers, shared by the ranker's stages.
import type { TextQuery } from "./expression.ts";
import type { KeyFilters } from "./filters.ts";
import type { ImpactListCache } from "./impact-cache.ts";
import type { RANK_TUNING } from "./rank-tuning.ts";
import type { CorpusStats } from "./bm25.ts";

export interface RankRequest {
  query: TextQuery;
  filters: KeyFilters;
  /**
   * Counts the hits (capped); its first row has scanned and matched. `reaches` (SQL and binds)
   * holds when the hits certainly reach the cap: the count may then skip its walk.
   */
  count: (reaches?: { sql: string; binds: unknown[] }) => D1PreparedStatement;
  /** The count's cap (exact below it). */
  countCap: number;
  /** Whether the count stopped at its cap (there are more hits than it says). */
  isLowerBound: (counted: { scanned: number; matched: number }) => boolean;
  /** Worst match first (arXiv allows it); ranked exhaustively. */
  ascending?: boolean;
  /** Columns of arxiv_papers p to return for each paper of the page. */
  select: string;
  start: number;
  limit: number;
  tuning?: Partial<typeof RANK_TUNING>;
  /** Filled with the time of each stage (ms), for the bench. */
  trace?: Record<string, number>;
  /** The impact lists held between requests (the isolate's by default). */
  impactCache?: ImpactListCache;
  /** Score every hit and keep plain BM25 order (no known-item rule): the bench's reference. */
  reference?: boolean;
}

export type RankMethod = "exhaustive" | "candidates" | "verified";

export type RankResult<Row> =
  | {
      rows: Row[];
      counted: { scanned: number; matched: number };
      method: RankMethod;
      candidates: number;
      /**
       * The index's totals and the frequencies the ranking read (single words; phrases of several
       * words only when the candidates needed them): a sharded search sums them across shards.
       */
      statistics?: { stats: CorpusStats; df: Map<string, number> };
      live?: undefined;
    }
  /** A search the mirror does not run (the reason says why); arXiv's API answers it. */
  | { live: string; counted: { scanned: number; matched: number } };

/** What the ranker reads through: the database, or a D1 session (read replicas). */
export type D1Reader = Pick<D1Database, "prepare" | "batch">;

/** A paper's text columns as the ranker fetches them to rescore. */
export type StoredText = {
  paper_key: number;
  title: string;
  authors: string;
  abstract: string;
  comment: string | null;
  journal_ref: string | null;
};

/** Adds the time since `since` to a stage of the request's trace (a no-op without one). */
export type StageMark = (stage: string, since: number) => void;
