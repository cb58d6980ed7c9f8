import { phraseKey, phrasesOf, toMatch, type Phrase, type TextQuery } from "./expression.ts";
import { BM25_SQL } from "./bm25-sql.ts";
import type { KeyFilters } from "./filters.ts";
import { CHAMPION_COLUMNS } from "./sources/champions.ts";
import { knownItemFirst } from "./known-item.ts";
import { proposeCandidates, traceSources } from "./candidates.ts";
import { rankPhrasesOnly } from "./quoted-phrase.ts";
import { phraseWork, tooBroad, verifiable } from "./too-broad.ts";
import { RANK_TUNING } from "./rank-tuning.ts";
import type { D1Reader, RankMethod, RankRequest, RankResult, StageMark } from "./rank-types.ts";
import { readStatistics, type Statistics } from "./rank-statistics.ts";
import { rescoreCandidates } from "./rescore.ts";
import { flatOr, isSingleToken } from "./phrase-kinds.ts";

export { BM25_SQL, CHAMPION_COLUMNS, knownItemFirst, phraseWork, RANK_TUNING, tooBroad };
export type { D1Reader, KeyFilters, RankMethod, RankRequest, RankResult };

/** Document frequency of a phrase of several words, or a prefix: FTS5's count. */
function dfStatement(db: D1Reader, p: Phrase): D1PreparedStatement {
  return db.prepare("SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?").bind(toMatch(p));
}

export async function rankRelevance<Row extends { paper_key: number }>(
  db: D1Reader,
  request: RankRequest,
): Promise<RankResult<Row>> {
  const tuning = { ...RANK_TUNING, ...request.tuning };
  const mark = (stage: string, since: number) => {
    if (request.trace) request.trace[stage] = (request.trace[stage] ?? 0) + performance.now() - since;
  };
  const phrases = phrasesOf(request.query);
  const unique = [...new Map(phrases.map((p) => [phraseKey(p), p])).values()];
  // First batch: the capped count, the totals, and the single words' frequencies (index seeks).
  // A phrase's frequency is an FTS5 count over its words' doclists: read only if it is needed.
  const singles = unique.filter(isSingleToken);
  const prefixes = unique.filter((p) => p.prefix);
  // A filter thins every source: one word's impact list, read whole, still holds its filtered top.
  const filtered = request.filters("arxiv_papers_fts.rowid").clauses.length > 0;
  const phrasesOnly = singles.length === 0 && prefixes.length === 0 && !filtered;
  // Before any statement matches the query: FTS5 would merge a broad prefix's doclists in memory,
  // and read a phrase of common words' positions at length. A phrase that verifiedPhrase may
  // serve is checked there, with the frequencies it reads anyway (it may not need FTS5's walk).
  const broad = await tooBroad(
    db,
    request.query,
    { prefixDocs: Math.min(tuning.prefixMaxDocs, tuning.prefixRankDocs), phraseWork: tuning.phraseMaxWork },
    "ranks",
    request.reference === true || (phrasesOnly && verifiable(request.query)),
  );
  if (broad !== null) return { live: broad, counted: { scanned: 0, matched: 0 } };
  // Words in any column or the title that a hit may hold: their impact lists give the partial sums.
  const positiveKeys = new Set(positivePhrases(request.query).map(phraseKey));
  const impactPhrases = new Map(
    singles
      .filter((p) => (p.column === null || p.column === 0) && positiveKeys.has(phraseKey(p)))
      .map((p) => [phraseKey(p), p]),
  );
  if (phrasesOnly) return rankPhrasesOnly<Row>(db, request, tuning, mark);
  // A query of several words (or one under a filter) is served by the sums over its words' impact lists.
  const summing = (impactPhrases.size >= 2 || (impactPhrases.size === 1 && filtered)) && !request.reference;
  const statistics = await readStatistics(db, request, {
    singles,
    impactPhrases,
    summing,
    tuning,
    mark,
  });
  const { counted, stats, df } = statistics;

  const exhaustive = async (): Promise<RankResult<Row>> => {
    const s3 = performance.now();
    const rows = await exhaustivePage<Row>(db, request);
    mark("exhaustive", s3);
    return {
      rows: request.reference ? rows : knownItemFirst(request.query, rows),
      counted,
      method: "exhaustive",
      candidates: 0,
      statistics: { stats, df },
    };
  };
  const pageEnd = request.start + request.limit;
  // Few hits: score them all (exact, and cheap below the count cap), unless scoring them reads far
  // more than the hits (title words: FTS5 reads every paper holding the word, ti: or not) while
  // the impact sums know every hit's score.
  if (
    request.reference ||
    counted.matched === 0 ||
    (!request.isLowerBound(counted) &&
      !(summing && !filtered && sumsKnowEveryHit(request.query, phrases, unique, impactPhrases, statistics, tuning))) ||
    request.ascending ||
    pageEnd > tuning.rescored ||
    stats.rows === 0
  )
    return exhaustive();
  await readPhraseFrequencies(db, unique, statistics, mark);
  const parts = proposeCandidates({
    ...statistics,
    request,
    tuning,
    phrases,
    unique,
    positiveKeys,
    impactPhrases,
    filtered,
    pageEnd,
    mark,
  });
  if (request.trace) await traceSources(db, parts, request.trace);
  if (parts.length === 0) return exhaustive();
  const page = await rescoreCandidates<Row>(db, request, parts, { phrases, stats, df, pageEnd, mark });
  return page ? { ...page, counted, statistics: { stats, df } } : exhaustive();
}

/**
 * An OR of words, each summed from a list that holds every paper with it (or every hit of a rare
 * word, read whole): the best sums then hold the best papers, as an exhaustive ranking would find
 * them, and the ranking's walk is worth avoiding when it reads many more papers than it scores.
 */
function sumsKnowEveryHit(
  query: TextQuery,
  phrases: Phrase[],
  unique: Phrase[],
  impactPhrases: Map<string, Phrase>,
  { df, walk, impactLists, rareHitsOf }: Statistics,
  tuning: typeof RANK_TUNING,
): boolean {
  if (!flatOr(query) || !phrases.every(isSingleToken)) return false;
  let walked = 0;
  for (const [place, key] of [...impactPhrases.keys()].entries()) {
    const n = df.get(key) ?? 0;
    const list = impactLists.get(key);
    const rareHits = rareHitsOf.get(place)?.length ?? 0;
    if (list ? list.offsets.length < n : n > tuning.rareWordHits || rareHits !== n) return false;
    walked += walk.get(key) ?? n;
  }
  return impactPhrases.size === unique.length && walked > tuning.exhaustiveWalk;
}

/** The frequencies of the query's phrases of several words (FTS5 counts), read once the candidates need them. */
async function readPhraseFrequencies(
  db: D1Reader,
  unique: Phrase[],
  { df, walk, stats }: Statistics,
  mark: StageMark,
): Promise<void> {
  const others = unique.filter((p) => !isSingleToken(p));
  if (others.length > 0) {
    const s4 = performance.now();
    const more = await db.batch<{ n: number }>(others.map((p) => dfStatement(db, p)));
    for (const [i, p] of others.entries()) df.set(phraseKey(p), Number(more[i]!.results[0]?.n ?? 0));
    // A phrase's words' doclists are read whole: count it as the cost of a common word.
    for (const p of others) walk.set(phraseKey(p), stats.rows);
    mark("stats", s4);
  }
}

/** The phrases outside every NOT's right side: a hit holds some of them. */
function positivePhrases(query: TextQuery): Phrase[] {
  if (query.kind === "phrase") return [query];
  if (query.kind === "not") return positivePhrases(query.left);
  return query.children.flatMap(positivePhrases);
}

/** Every hit scored by FTS5, the page cut from that order (exact; cost grows with the hits). */
async function exhaustivePage<Row>(db: D1Reader, request: RankRequest): Promise<Row[]> {
  const { clauses, binds } = request.filters("arxiv_papers_fts.rowid");
  const sql = `SELECT p.paper_key AS paper_key, ${request.select} FROM arxiv_papers_fts JOIN arxiv_papers p
    ON p.paper_key = arxiv_papers_fts.rowid
    WHERE arxiv_papers_fts MATCH ?${clauses.map((c) => ` AND ${c}`).join("")} ORDER BY ${BM25_SQL}
      ${request.ascending ? "DESC" : "ASC"}, arxiv_papers_fts.rowid ${request.ascending ? "ASC" : "DESC"} LIMIT ? OFFSET ?`;
  const { results } = await db
    .prepare(sql)
    .bind(toMatch(request.query), ...binds, request.limit, request.start)
    .all<Row>();
  return results;
}
