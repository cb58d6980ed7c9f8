// The ranker's knobs in one object (tests and the bench override them per request): each
// candidate source's share lives in its module with the reason for each value.
import { ALL_TERMS_TUNING } from "./sources/all-terms.ts";
import { CHAMPIONS_TUNING } from "./sources/champions.ts";
import { IMPACT_SUMS_TUNING } from "./sources/impact-sums.ts";
import { PAIRS_TUNING } from "./sources/pairs.ts";
import { RARE_PHRASES_TUNING } from "./sources/rare-phrases.ts";

/** The ranker's knobs: each candidate source's own (in its module), and the ranker's. */
export const RANK_TUNING = {
  ...IMPACT_SUMS_TUNING,
  ...RARE_PHRASES_TUNING,
  ...ALL_TERMS_TUNING,
  ...PAIRS_TUNING,
  ...CHAMPIONS_TUNING,
  /**
   * Papers the exhaustive ranking of an OR of words under the count cap would read (title words read every paper
   * holding the word) above which the impact sums rank it, when they know every hit (about 3 us a paper).
   */
  exhaustiveWalk: 30_000,
  /**
   * A prefix whose common expansions are held by more papers than this is never matched (FTS5 merges them in
   * memory): arXiv's API answers.
   */
  prefixMaxDocs: 300_000,
  /** ... nor ranked by relevance above this many (every hit is scored: about 3 us a hit in SQLite, 30,000 in 70-100 ms). */
  prefixRankDocs: 30_000,
  /**
   * Phrases of several words whose walk would read more word positions than this are sent to
   * arXiv's API (phraseWork). Measured offline, 65-170 ns a position: at 3.2 million papers
   * "we show that" 5.2 million, 0.3-0.4 s; "in this paper we show that the" 10 million, 1.7 s; four
   * phrases of "the" with "of", "in", "to", "on" 101 million, 6.6 s; at 1,000,000 papers
   * all:"in the" 8.2 million, 0.5 s.
   */
  phraseMaxWork: 6_000_000,
  /** The deepest page end the candidates serve; deeper pages are ranked exhaustively. */
  rescored: 60,
  /** A quoted phrase whose rarest words are held together by at most this many papers is checked in TypeScript. */
  verifiedPhraseHits: 500,
};
