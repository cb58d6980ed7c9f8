// Candidates for a reference, whatever its style: the papers of both mirrors whose titles share
// the most of the reference's rarer words, in one D1 round trip. No title is
// extracted first: a reference's words are its title's, its authors', its venue's and noise, and
// the paper it cites holds the first. Common words are left out in SQL (the arXiv ranking
// table's words in 1,000+ titles; NBER's vocabulary counts), so each remaining word's
// postings are short and the walk stays bounded at any mirror size. The resolver then checks
// every candidate against the text (sources/citations/text-match.ts).
import { SELECT_COLUMNS, type StoredRow } from "./arxiv-mirror-lookup";
import type { MirrorPaper } from "./nber-mirror";
import type { D1Reader } from "../search/rank";
import type { MirrorShard } from "./arxiv-shards";

/** Words held by more papers than this are left out of the NBER candidate walk (30,083 papers: 3%). */
export const NBER_COMMON_DOCS = 1_000;
/** At most this many words of a reference go into a walk (the rarer ones decide it). */
export const CANDIDATE_WORDS = 40;

export interface CandidateWords {
  /** [word as written (folded), its index stem] for the arXiv index (porter). */
  arxiv: [string, string][];
  /** Folded words for the NBER index (unicode61, no stemming). */
  nber: string[];
}

export interface ReferenceCandidates {
  arxiv: StoredRow[];
  nber: MirrorPaper[];
}

// Titles only: the resolver accepts a paper only when its whole title is in the reference, so a
// candidate holds the reference's title words; author names would rank a collaboration's other
// papers (thousands of shared names) above the one cited. arXiv's titles have their own index
// (migration 0010: the main index's bm25 drowns a 2,831-author paper's title in its author list).
const ARXIV_RARE = `WITH rare AS (
    SELECT key AS i, json_extract(value, '$[0]') AS w FROM json_each(?1)
    WHERE json_extract(value, '$[1]') NOT IN (SELECT term FROM arxiv_rank_terms WHERE col = 0))`;
const arxivSql = (expression: string) => `${ARXIV_RARE}
  SELECT ${SELECT_COLUMNS} FROM (
    SELECT rowid AS k, bm25(arxiv_titles_fts) AS score FROM arxiv_titles_fts
    WHERE arxiv_titles_fts MATCH coalesce((${expression}), '""')
    ORDER BY score LIMIT ?2) r JOIN arxiv_papers p ON p.paper_key = r.k ORDER BY r.score`;
/** Titles holding any of the rarer words: a title with one rare word among common ones. */
const ARXIV_ANY = arxivSql(`SELECT group_concat('"' || w || '"', ' OR ') FROM rare`);
/**
 * Titles holding two words that stand next to each other in the reference (stopwords, bare
 * numbers and words no title holds skipped): a title's words stand together, a venue's or an
 * author list's pair with each other rarely in a title. For a title of common words only, which
 * the walk over rare words cannot see, and for a long title whose bm25 loses to the short titles
 * holding one of its words (at a million papers, 1411.4413's). Counts come from the title index's
 * own vocabulary.
 */
const ARXIV_TWO = `WITH kept AS (
    SELECT row_number() OVER (ORDER BY j.key) AS r, json_extract(j.value, '$[0]') AS w FROM json_each(?1) j
    JOIN arxiv_titles_fts_vocab v ON v.term = json_extract(j.value, '$[1]')
    WHERE v.doc <= ?3)
  SELECT ${SELECT_COLUMNS} FROM (
    SELECT rowid AS k, bm25(arxiv_titles_fts) AS score FROM arxiv_titles_fts
    WHERE arxiv_titles_fts MATCH coalesce((
      SELECT group_concat('("' || a.w || '" AND "' || b.w || '")', ' OR ') FROM kept a JOIN kept b ON b.r = a.r + 1), '""')
    ORDER BY score LIMIT ?2) r JOIN arxiv_papers p ON p.paper_key = r.k ORDER BY r.score`;
/** Words in more titles than this are not paired (their lists cost more to intersect than they narrow). */
export const PAIR_MAX_DOCS = 20_000;

const NBER_SQL = `SELECT n.id, n.title, n.authors, n.date FROM (
  SELECT rowid AS k, bm25(nber_papers_fts, 1.0, 0.0, 0.0) AS score FROM nber_papers_fts
  WHERE nber_papers_fts MATCH coalesce((
    SELECT '{title} : (' || group_concat('"' || value || '"', ' OR ') || ')'
    FROM json_each(?1)
    WHERE value NOT IN (SELECT term FROM nber_papers_fts_vocab WHERE term IN (SELECT value FROM json_each(?1)) AND doc > ?3)), '""')
  ORDER BY score LIMIT ?2) r JOIN nber_papers n ON n.rowid = r.k ORDER BY r.score`;

/**
 * The best candidates of each mirror for these words (one batch on DB, which holds the NBER mirror
 * and the arXiv mirror's first shard; one more per other shard, in parallel; a mirror left out
 * gets none). Each shard sends its best `limit`, interleaved by rank: the resolver checks every
 * candidate against the text. Words must be index tokens (letters and digits only), so no FTS5
 * syntax can come through.
 */
export async function referenceCandidates(
  shards: readonly MirrorShard<D1Reader>[],
  words: CandidateWords,
  { arxiv, nber, limit }: { arxiv: boolean; nber: boolean; limit: number },
): Promise<ReferenceCandidates> {
  const arxivWords = words.arxiv.filter(([word]) => /^[\p{L}\p{N}]+$/u.test(word)).slice(0, CANDIDATE_WORDS);
  const nberWords = words.nber.filter((word) => /^[\p{L}\p{N}]+$/u.test(word)).slice(0, CANDIDATE_WORDS);
  const useArxiv = arxiv && arxivWords.length > 0;
  const useNber = nber && nberWords.length > 0;
  const main = shards[0]!.db;
  const arxivOn = (db: D1Reader) => db.prepare(ARXIV_ANY).bind(JSON.stringify(arxivWords), limit);
  const statements: D1PreparedStatement[] = [];
  if (useArxiv) statements.push(arxivOn(main));
  if (useNber) statements.push(main.prepare(NBER_SQL).bind(JSON.stringify(nberWords), limit, NBER_COMMON_DOCS));
  if (statements.length === 0) return { arxiv: [], nber: [] };
  const [results, ...others] = await Promise.all([
    main.batch(statements),
    ...(useArxiv ? shards.slice(1).map((shard) => arxivOn(shard.db).all<StoredRow>()) : []),
  ]);
  const arxivRows = useArxiv
    ? interleave([results![0]!.results as StoredRow[], ...others.map((other) => other.results as StoredRow[])])
    : [];
  const nberRows = useNber
    ? (results![useArxiv ? 1 : 0]!.results as { id: string; title: string; authors: string; date: string | null }[])
    : [];
  return {
    arxiv: arxivRows,
    nber: nberRows.map((row) => ({
      id: row.id,
      title: row.title,
      authors: row.authors === "" ? [] : row.authors.split("; "),
      date: row.date,
      abstract: null,
    })),
  };
}

/** arXiv papers whose titles hold two neighbouring words of the reference (the second walk, when the first verified none). */
export async function arxivTitlePairs(
  shards: readonly MirrorShard<D1Reader>[],
  words: [string, string][],
  limit: number,
): Promise<StoredRow[]> {
  const safe = words.filter(([word]) => /^[\p{L}\p{N}]+$/u.test(word)).slice(0, CANDIDATE_WORDS);
  if (safe.length < 2) return [];
  const answers = await Promise.all(
    shards.map((shard) =>
      shard.db.prepare(ARXIV_TWO).bind(JSON.stringify(safe), limit, PAIR_MAX_DOCS).all<StoredRow>(),
    ),
  );
  return interleave(answers.map((answer) => answer.results));
}

/** Each shard's first, then each one's second, ...: no shard's candidates crowd out another's best. */
function interleave<T>(lists: readonly T[][]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let i = 0; i < longest; i++) for (const list of lists) if (i < list.length) out.push(list[i]!);
  return out;
}
