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
const ARXIV_SQL = `SELECT ${SELECT_COLUMNS} FROM (
  SELECT rowid AS k, bm25(arxiv_titles_fts) AS score FROM arxiv_titles_fts
  WHERE arxiv_titles_fts MATCH coalesce((
    SELECT group_concat('"' || json_extract(value, '$[0]') || '"', ' OR ')
    FROM json_each(?1)
    WHERE json_extract(value, '$[1]') NOT IN (SELECT term FROM arxiv_rank_terms WHERE col = 0)), '""')
  ORDER BY score LIMIT ?2) r JOIN arxiv_papers p ON p.paper_key = r.k ORDER BY r.score`;

const NBER_SQL = `SELECT n.id, n.title, n.authors, n.date FROM (
  SELECT rowid AS k, bm25(nber_papers_fts, 1.0, 0.0, 0.0) AS score FROM nber_papers_fts
  WHERE nber_papers_fts MATCH coalesce((
    SELECT '{title} : (' || group_concat('"' || value || '"', ' OR ') || ')'
    FROM json_each(?1)
    WHERE value NOT IN (SELECT term FROM nber_papers_fts_vocab WHERE term IN (SELECT value FROM json_each(?1)) AND doc > ?3)), '""')
  ORDER BY score LIMIT ?2) r JOIN nber_papers n ON n.rowid = r.k ORDER BY r.score`;

/**
 * The best candidates of each mirror for these words (one batch; a mirror left out gets none).
 * Words must be index tokens (letters and digits only), so no FTS5 syntax can come through.
 */
export async function referenceCandidates(
  db: D1Reader,
  words: CandidateWords,
  { arxiv, nber, limit }: { arxiv: boolean; nber: boolean; limit: number },
): Promise<ReferenceCandidates> {
  const arxivWords = words.arxiv.filter(([word]) => /^[\p{L}\p{N}]+$/u.test(word)).slice(0, CANDIDATE_WORDS);
  const nberWords = words.nber.filter((word) => /^[\p{L}\p{N}]+$/u.test(word)).slice(0, CANDIDATE_WORDS);
  const statements: D1PreparedStatement[] = [];
  const useArxiv = arxiv && arxivWords.length > 0;
  const useNber = nber && nberWords.length > 0;
  if (useArxiv) statements.push(db.prepare(ARXIV_SQL).bind(JSON.stringify(arxivWords), limit));
  if (useNber) statements.push(db.prepare(NBER_SQL).bind(JSON.stringify(nberWords), limit, NBER_COMMON_DOCS));
  if (statements.length === 0) return { arxiv: [], nber: [] };
  const results = await db.batch(statements);
  const arxivRows = useArxiv ? (results[0]!.results as StoredRow[]) : [];
  const nberRows = useNber
    ? (results[useArxiv ? 1 : 0]!.results as { id: string; title: string; authors: string; date: string | null }[])
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
