// The mirror's ranking (issue 11) on the 1,128 real records of data/arxiv-sample: the tokenizer
// and bm25 reproduced in TypeScript against FTS5's own numbers, the candidate ranker against an
// exhaustive ORDER BY bm25(), phrases against brute force, the ranking tables, and the hostile
// searches that must stay bounded.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { corpusStats, idf, score } from "../src/search/bm25";
import {
  matchAndZero,
  phrase,
  phraseCounts,
  phraseKey,
  phrasesOf,
  toMatch,
  type TextQuery,
} from "../src/search/expression";
import { textScorer } from "../src/search/rescore";
import { BM25_SQL, knownItemFirst, phraseWork, type D1Reader } from "../src/search/rank";
import { countTokens, stem, tokens } from "../src/search/tokenize";
import { planMirrorSearch } from "../src/sources/arxiv/mirror-query";
import { searchMirror, type MirrorSearchOptions } from "../src/store/arxiv-mirror-search";
import { oneDatabase } from "../src/store/arxiv-shards";
import { ImpactListCache } from "../src/search/impact-cache";
import { decodeImpacts, scaledImpacts } from "../src/search/impacts";
import { rankSlice, surfaceWord, VOCAB_SLICE_SQL } from "../src/store/ranking/tables";
import { callTool, resetUpstream } from "./helpers";
import { sampleRecords, seedMirror } from "./mirror/driver";

beforeEach(async () => {
  await resetUpstream();
  await seedMirror();
});

const records = sampleRecords();

/** The ranking tables for the sample, with a threshold its 1,128 papers reach. */
async function buildRankTables(minDocs = 40): Promise<void> {
  let after = "";
  for (;;) {
    const slice = await rankSlice(env.DB, after, { terms: 500, minDocs });
    if (slice.last === null) return;
    after = slice.last;
  }
}

function plan(query: string, filters = {}) {
  const planned = planMirrorSearch(query, filters);
  if (!("plan" in planned)) throw new Error(`expected a mirror plan for ${query}: ${planned.live}`);
  return planned.plan;
}

/** A reader that notes each statement it runs (its SQL and binds), alone or in a batch. */
function recordingReader(db: D1Database, executed: string[]): D1Reader {
  const texts = new WeakMap<D1PreparedStatement, string>();
  const wrap = (statement: D1PreparedStatement, text: string): D1PreparedStatement => {
    const wrapped = new Proxy(statement, {
      get(target, property) {
        if (property === "bind")
          return (...values: unknown[]) => wrap(target.bind(...values), `${text} ${JSON.stringify(values)}`);
        const value = Reflect.get(target, property);
        if (typeof value !== "function") return value;
        if (property === "first" || property === "all" || property === "raw" || property === "run")
          return (...args: unknown[]) => {
            executed.push(text);
            return value.apply(target, args);
          };
        return value.bind(target);
      },
    });
    texts.set(wrapped, text);
    real.set(wrapped, statement);
    return wrapped;
  };
  const real = new WeakMap<D1PreparedStatement, D1PreparedStatement>();
  return {
    prepare: (sql: string) => wrap(db.prepare(sql), sql),
    batch: <T>(statements: D1PreparedStatement[]) => {
      for (const statement of statements) executed.push(texts.get(statement) ?? "?");
      return db.batch<T>(statements.map((statement) => real.get(statement) ?? statement));
    },
  };
}

/** Exhaustive FTS5 ranking: every hit scored, the page cut from it. */
async function exhaustive(match: TextQuery, limit = 10): Promise<{ k: number; s: number }[]> {
  const { results } = await env.DB.prepare(
    `SELECT rowid AS k, -${BM25_SQL} AS s FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ? ORDER BY ${BM25_SQL} ASC, rowid DESC LIMIT ?`,
  )
    .bind(toMatch(match), limit)
    .all<{ k: number; s: number }>();
  return results;
}

// Small caps send every search with more than 20 hits to the candidate ranker.
const candidatePath: Partial<MirrorSearchOptions> = { caps: { count: 20, scan: 40, rank: 10 } };

describe("the index's tokenizer and bm25, in TypeScript", () => {
  it("tokenizes every sample paper exactly as FTS5 did: the same terms, document counts and document sizes", async () => {
    const vocab = new Map(
      (
        await env.DB.prepare("SELECT term, doc FROM arxiv_papers_fts_vocab").all<{ term: string; doc: number }>()
      ).results.map((r) => [r.term, r.doc]),
    );
    const ours = new Map<string, number>();
    const { results: sizes } = await env.DB.prepare(
      "SELECT p.id, d.sz FROM arxiv_papers p JOIN arxiv_papers_fts_docsize d ON d.id = p.paper_key",
    ).all<{ id: string; sz: ArrayBuffer }>();
    const sizeOf = new Map(sizes.map((r) => [r.id, r.sz]));
    let sizeMismatches = 0;
    for (const r of records) {
      const columns = [r.title, r.authors, r.abstract, r.comment ?? "", r.journal_ref ?? ""].map((text) =>
        tokens(text.replace(/\s+/g, " ").trim()),
      );
      for (const term of new Set(columns.flat())) ours.set(term, (ours.get(term) ?? 0) + 1);
      const stored = new Uint8Array(sizeOf.get(r.id)!);
      // docsize: one varint per column (all sizes here are under 128 tokens a column, or two bytes).
      const lengths = columns.map((c) => c.length);
      const decoded: number[] = [];
      for (let i = 0; i < stored.length; ) {
        let v = 0;
        let b: number;
        do {
          b = stored[i++]!;
          v = v * 128 + (b & 0x7f);
        } while (b & 0x80);
        decoded.push(v);
      }
      if (decoded.join() !== lengths.join()) sizeMismatches++;
    }
    expect(sizeMismatches).toBe(0);
    expect(ours.size).toBe(vocab.size);
    const differing = [...ours].filter(([term, n]) => vocab.get(term) !== n);
    expect(differing).toEqual([]);
  });

  it("counts a text's tokens and its wanted words in one pass as the full tokenizer does (the single-word rescoring), with and without a one-letter stem", () => {
    // With a one-letter stem every token is stemmed; without, only tokens that begin like a wanted stem are.
    const frequent = new Map<string, number>();
    for (const r of records.slice(0, 200))
      for (const t of tokens(r.abstract)) frequent.set(t, (frequent.get(t) ?? 0) + 1);
    const common = [...frequent].filter(([t, n]) => t.length >= 2 && n >= 5).map(([t]) => t);
    expect(common.length).toBeGreaterThan(300);
    for (const list of [["quantum", "field", "model", "de", "entangl", "x"], common]) {
      const wanted = new Map(list.map((word, i) => [word, i]));
      let checked = 0;
      for (const r of records) {
        for (const text of [r.title, r.authors, r.abstract, r.comment ?? "", r.journal_ref ?? ""]) {
          const counts = new Array<number>(wanted.size).fill(0);
          const all = tokens(text);
          expect(countTokens(text, wanted, counts)).toBe(all.length);
          expect(counts).toEqual([...wanted.keys()].map((word) => all.filter((t) => t === word).length));
          if (counts.some((c) => c > 0)) checked++;
        }
      }
      expect(checked).toBeGreaterThan(500);
    }
  });

  it("counts the tokens whose stem's first two letters are not theirs: a vowel and y end as a vowel and i (ays -> ai)", () => {
    expect(["ays", "ayed", "aying", "eyed", "oys"].map(stem)).toEqual(["ai", "ai", "ai", "ei", "oi"]);
    const wanted = new Map([
      ["ai", 0],
      ["ei", 1],
      ["model", 2],
    ]);
    const text = "AI models: ays, ayed and aying; eyed AI. Bays are not ai (bai).";
    const counts = [0, 0, 0];
    const all = tokens(text);
    expect(countTokens(text, wanted, counts)).toBe(all.length);
    expect(counts).toEqual([...wanted.keys()].map((word) => all.filter((t) => t === word).length));
    expect(counts).toEqual([6, 1, 1]);
  });

  it("counts upper-case tokens and stems whose last letter is not the token's (hoping -> hope, happy -> happi), and falls back whole on a character outside ASCII", () => {
    expect(["HOPING", "Happy", "hopped", "relational"].map((t) => stem(t.toLowerCase()))).toEqual([
      "hope",
      "happi",
      "hop",
      "relat",
    ]);
    const wanted = new Map([
      ["hope", 0],
      ["happi", 1],
      ["hop", 2],
      ["relat", 3],
      ["gen", 4],
    ]);
    for (const text of [
      "HOPING, Hoped and hopes; Happy HAPPINESS; hopped, HOPS; Relational relations, GENS gen",
      "Schrödinger was hoping; happy Relational gens",
    ]) {
      const counts = [0, 0, 0, 0, 0];
      const all = tokens(text);
      expect(countTokens(text, wanted, counts), text).toBe(all.length);
      expect(counts, text).toEqual([...wanted.keys()].map((word) => all.filter((t) => t === word).length));
      expect(counts.filter((n) => n > 0).length, text).toBeGreaterThanOrEqual(4);
    }
  });

  it("scores documents to FTS5's bm25 exactly: phrases, column filters, prefixes, NOT, a failed AND inside an OR, repeated words", async () => {
    const block = (await env.DB.prepare("SELECT block FROM arxiv_papers_fts_data WHERE id = 1").first<{
      block: ArrayBuffer;
    }>())!.block;
    const stats = corpusStats(new Uint8Array(block));
    expect(stats.rows).toBe(records.length);
    const queries: TextQuery[] = [
      phrase(["quantum"], null),
      { kind: "or", children: [phrase(["lattice"], null), phrase(["gauge"], 0), phrase(["magnetic", "field"], null)] },
      {
        kind: "not",
        left: { kind: "and", children: [phrase(["black"], null), phrase(["hole"], null)] },
        right: phrase(["galaxy"], null),
      },
      phrase(["entangl"], null, true),
      phrase(["smith"], 1),
      // An AND inside an OR (a hyphenated word, image-based): where the AND fails, FTS5 counts none of its words.
      {
        kind: "or",
        children: [
          phrase(["lattice"], null),
          { kind: "and", children: [phrase(["black"], null), phrase(["hole"], null)] },
          phrase(["field"], null),
        ],
      },
      // A word written twice counts twice.
      { kind: "or", children: [phrase(["quantum"], null), phrase(["spin"], null), phrase(["quantum"], null)] },
    ];
    const { results: rows } = await env.DB.prepare(
      "SELECT paper_key, title, authors, abstract, coalesce(comment, '') AS c, coalesce(journal_ref, '') AS j FROM arxiv_papers",
    ).all<Record<string, string> & { paper_key: number }>();
    const docs = new Map(rows.map((r) => [r.paper_key, [r.title!, r.authors!, r.abstract!, r.c!, r.j!].map(tokens)]));
    for (const query of queries) {
      const fts = await exhaustive(query, 10_000);
      expect(fts.length, toMatch(query)).toBeGreaterThan(0);
      const phrases = phrasesOf(query);
      const idfs = await Promise.all(
        phrases.map(async (p) =>
          idf(
            stats,
            (await env.DB.prepare("SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?")
              .bind(toMatch(p))
              .first<{ n: number }>())!.n,
          ),
        ),
      );
      for (const hit of fts) {
        const doc = docs.get(hit.k)!;
        const counts = phrases.map((p) => phraseCounts(p, doc));
        expect(matchAndZero(query, new Map(phrases.map((p, i) => [p, counts[i]!])))).toBe(true);
        expect(score(phrases, idfs, doc, stats, counts), `${toMatch(query)} ${hit.k}`).toBeCloseTo(hit.s, 9);
      }
    }
  });

  it("rescores an OR of words (counted in one pass into reused arrays) to bm25's score to the last bit, and FTS5's; nothing for a paper without the words", async () => {
    const block = (await env.DB.prepare("SELECT block FROM arxiv_papers_fts_data WHERE id = 1").first<{
      block: ArrayBuffer;
    }>())!.block;
    const stats = corpusStats(new Uint8Array(block));
    const { results: rows } = await env.DB.prepare(
      "SELECT paper_key, title, authors, abstract, coalesce(comment, '') AS c, coalesce(journal_ref, '') AS j FROM arxiv_papers",
    ).all<Record<string, string> & { paper_key: number }>();
    const columns = new Map(rows.map((r) => [r.paper_key, [r.title!, r.authors!, r.abstract!, r.c!, r.j!]]));
    const queries: TextQuery[] = [
      phrase(["quantum"], null),
      // A research question's shape: many words, one repeated, one in the title only.
      {
        kind: "or",
        children: [
          phrase(["lattice"], null),
          phrase(["gauge"], 0),
          phrase(["magnet"], null),
          phrase(["field"], null),
          phrase(["lattice"], null),
          phrase(["spin"], null),
        ],
      },
    ];
    for (const query of queries) {
      const phrases = phrasesOf(query);
      const df = new Map<string, number>();
      for (const p of phrases)
        df.set(
          phraseKey(p),
          (await env.DB.prepare("SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?")
            .bind(toMatch(p))
            .first<{ n: number }>())!.n,
        );
      const idfs = phrases.map((p) => idf(stats, df.get(phraseKey(p))!));
      const scorer = textScorer(query, phrases, stats, df);
      expect(scorer.wordsOnly).toBe(true);
      const hits = new Map((await exhaustive(query, 10_000)).map((hit) => [hit.k, hit.s]));
      expect(hits.size, toMatch(query)).toBeGreaterThan(20);
      for (const [key, text] of columns) {
        const scored = scorer(text);
        const fts = hits.get(key);
        if (fts === undefined) {
          expect(scored, `${toMatch(query)} ${key}`).toBeNull();
          continue;
        }
        const doc = text.map(tokens);
        expect(scored!.score, `${toMatch(query)} ${key}`).toBe(score(phrases, idfs, doc, stats));
        expect(scored!.score).toBeCloseTo(fts, 9);
        const titleWords = new Set(doc[0]);
        expect(scored!.titleHasAll).toBe(phrases.every((p) => titleWords.has(p.stems[0]!)));
      }
    }
  });
});

describe("relevance order whatever the number of hits", () => {
  it("traces which candidate sources ran and how many candidates each gave, and the page is the same with or without the trace", async () => {
    await buildRankTables();
    const planned = plan("quantum gauge lattice boson string");
    const options = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10, ...candidatePath } as const;
    const trace: Record<string, number> = {};
    const traced = await searchMirror(oneDatabase(env.DB), planned, { ...options, trace });
    const plain = await searchMirror(oneDatabase(env.DB), planned, options);
    if (traced.kind !== "answer" || plain.kind !== "answer") throw new Error("expected answers");
    expect(traced.method).toBe("candidates");
    expect(trace.source_impact_sums).toBeGreaterThan(0);
    expect(trace.source_impact_sums).toBeLessThanOrEqual(300);
    expect(Object.keys(trace).filter((key) => key.startsWith("source_")).length).toBeGreaterThanOrEqual(1);
    expect(traced.rows.map((r) => r.paper_key)).toEqual(plain.rows.map((r) => r.paper_key));
  });

  it("ranks a search past the count cap by BM25, never newest first, with the same page as an exhaustive ranking", async () => {
    await buildRankTables();
    for (const query of [
      "quantum",
      "field theory",
      "ti:quantum",
      "quantum gauge lattice boson string",
      "magnetic OR field OR spin",
      // ANDs of common words: their lists' sums must hold papers with every word.
      "quantum AND field",
      "quantum AND theory",
    ]) {
      const planned = plan(query);
      const result = await searchMirror(oneDatabase(env.DB), planned, {
        sortBy: "relevance",
        sortOrder: "descending",
        start: 0,
        limit: 10,
        ...candidatePath,
      });
      if (result.kind !== "answer") throw new Error("expected an answer");
      expect(result, query).toMatchObject({ ordering: "relevance", totalIsLowerBound: true, method: "candidates" });
      const exact = await exhaustive(planned.match!);
      // The sample is small enough for the candidates to hold every paper that matters.
      expect(
        result.rows.map((r) => r.paper_key),
        query,
      ).toEqual(exact.map((r) => r.k));
    }
  });

  it("finds a many-word query's best papers from its words' impact lists alone (any column, title): the page of an exhaustive ranking", async () => {
    await buildRankTables();
    for (const query of [
      "quantum gauge lattice boson string",
      "entanglement of spin chains in a magnetic field at finite temperature",
      // A hyphenated word (an AND inside the OR) and a word written twice.
      "non-abelian gauge theory on the lattice with gauge fixing",
      // A title pasted as ti: words (the title's own lists).
      "ti:quantum ti:field ti:theory ti:lattice ti:gauge",
      "ti:entanglement ti:spin quantum",
    ]) {
      const planned = plan(query);
      const result = await searchMirror(oneDatabase(env.DB), planned, {
        sortBy: "relevance",
        sortOrder: "descending",
        start: 0,
        limit: 10,
        ...candidatePath,
        // No other source: the rare phrases, the intersection and the pairs are off.
        tuning: { rareBudget: 0, allTermsBudget: 0, pairBudget: 0 },
      });
      expect(result, query).toMatchObject({ kind: "answer", method: "candidates" });
      if (result.kind === "answer")
        expect(
          result.rows.map((r) => r.paper_key),
          query,
        ).toEqual((await exhaustive(planned.match!)).map((r) => r.k));
    }
  });

  it("ranks title words under the count cap from their impact sums when FTS5 would read every paper holding them, only while the lists hold every hit", async () => {
    await buildRankTables();
    const options = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10 } as const;
    const hits = async (match: TextQuery) =>
      (
        await env.DB.prepare("SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?")
          .bind(toMatch(match))
          .first<{ n: number }>()
      )?.n ?? 0;
    const query = "ti:quantum ti:field ti:lattice ti:entanglement";
    const planned = plan(query);
    const total = await hits(planned.match!);
    const exact = (await exhaustive(planned.match!)).map((r) => r.k);
    // Under the count cap (10,000): the total is exact either way.
    expect(total).toBeGreaterThan(10);
    const walk = { exhaustiveWalk: 50 };
    const summed = await searchMirror(oneDatabase(env.DB), planned, { ...options, tuning: walk });
    expect(summed).toMatchObject({ kind: "answer", method: "candidates", total, totalIsLowerBound: false });
    if (summed.kind === "answer") expect(summed.rows.map((r) => r.paper_key)).toEqual(exact);
    // Below the walk's threshold, every hit is scored as before: the same page.
    const scoredAll = await searchMirror(oneDatabase(env.DB), planned, { ...options, tuning: { exhaustiveWalk: 1e9 } });
    expect(scoredAll).toMatchObject({ kind: "answer", method: "exhaustive", total });
    if (scoredAll.kind === "answer") expect(scoredAll.rows.map((r) => r.paper_key)).toEqual(exact);
    // An AND is not a sum of its words' lists: scored whole.
    const and = await searchMirror(oneDatabase(env.DB), plan("ti:quantum AND ti:field"), { ...options, tuning: walk });
    expect(and).toMatchObject({ kind: "answer", method: "exhaustive" });
    // A list that no longer holds every paper with its word (papers gained it since the build): scored whole.
    await env.DB.prepare("UPDATE arxiv_rank_terms SET docs = docs + 1000 WHERE term = 'quantum' AND col = 0").run();
    expect(await searchMirror(oneDatabase(env.DB), planned, { ...options, tuning: walk })).toMatchObject({
      kind: "answer",
      method: "exhaustive",
    });
  });

  it("answers one common word from its champion list alone: the exact top of that word", async () => {
    await buildRankTables();
    for (const query of ["quantum", "ti:quantum", "abs:field"]) {
      const planned = plan(query);
      const result = await searchMirror(oneDatabase(env.DB), planned, {
        sortBy: "relevance",
        sortOrder: "descending",
        start: 0,
        limit: 10,
        ...candidatePath,
        tuning: { rareBudget: 0 },
      });
      expect(result, query).toMatchObject({ kind: "answer", method: "candidates" });
      if (result.kind === "answer")
        expect(
          result.rows.map((r) => r.paper_key),
          query,
        ).toEqual((await exhaustive(planned.match!)).map((r) => r.k));
    }
  });

  it("sends a prefix whose common expansions cover too much of the index to arXiv's API, with the reason, before any statement matches it", async () => {
    // FTS5 merges a prefix's doclists in memory before its first hit: at 3.2 million papers `quant*`
    // ran workerd's SQLite out of memory in the count. No statement may match a broad prefix.
    await buildRankTables();
    const matchesPrefix = /quant(\\)*"\s*\*/;
    for (const sortBy of ["relevance", "submitted"] as const) {
      for (const query of ["quant*", "quantum ANDNOT ti:quant*"]) {
        const executed: string[] = [];
        const result = await searchMirror(oneDatabase(recordingReader(env.DB, executed)), plan(query), {
          sortBy,
          sortOrder: "descending",
          start: 0,
          limit: 10,
          ...candidatePath,
          tuning: { prefixMaxDocs: 50 },
        });
        expect(result, `${query} by ${sortBy}`).toMatchObject({
          kind: "live",
          reason: expect.stringMatching(
            /^the prefix quant\* expands to index terms held by [\d,]+ papers, more than the mirror (merges|ranks)/,
          ),
        });
        expect(executed.length).toBeGreaterThan(0);
        expect(executed.filter((statement) => matchesPrefix.test(statement))).toEqual([]);
      }
    }
    // Ranking by relevance has the lower bound (every hit of a prefix is scored); a date order the higher.
    for (const [sortBy, kind] of [
      ["relevance", "live"],
      ["submitted", "answer"],
    ] as const) {
      const result = await searchMirror(oneDatabase(env.DB), plan("quant*"), {
        sortBy,
        sortOrder: "descending",
        start: 0,
        limit: 10,
        ...candidatePath,
        tuning: { prefixRankDocs: 50 },
      });
      expect(result.kind, sortBy).toBe(kind);
      if (result.kind === "live") expect(result.reason).toContain("more than the mirror ranks by relevance quickly");
    }
    // Under the bounds, the same prefix is matched and served.
    const executed: string[] = [];
    const served = await searchMirror(oneDatabase(recordingReader(env.DB, executed)), plan("quant*"), {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 10,
      ...candidatePath,
    });
    expect(served).toMatchObject({ kind: "answer" });
    expect(executed.some((statement) => matchesPrefix.test(statement))).toBe(true);
  });

  it("estimates the word positions a phrase's walk reads: its rarest token's papers, each token's occurrences there", () => {
    // A token in a share p of the papers occurs -ln(1 - p) / p times in each (Poisson).
    expect(phraseWork([1_000, 1_000], 3_000) / 1_000).toBeCloseTo(2 * (-Math.log(1 - 1 / 3) * 3), 6);
    // "in the" over 1,000,000 papers: "the" in 99.7% (about 6 each), "in" in 93% (about 3 each).
    expect(phraseWork([936_647, 1_000_812], 1_003_719) / 1e6).toBeCloseTo(8.2, 1);
    // A rare token bounds the walk; a token in every paper stays finite.
    expect(phraseWork([50, 1_000_000], 1_000_000)).toBeLessThan(1_000);
    expect(Number.isFinite(phraseWork([1_000_000, 1_000_000], 1_000_000))).toBe(true);
    expect(phraseWork([0, 900_000], 1_000_000)).toBe(0);
  });

  it("sends quoted phrases of common words to arXiv's API when matching them would read too much, with the reason, before any statement matches them", async () => {
    // FTS5 reads a phrase's words' doclists with their positions from the rarest word's papers on:
    // at 3.2 million papers four phrases of "the", "of", "in", "to" took 6.6 s, during which the
    // database served nothing else. A bound low enough for the sample's common words stands in, and
    // no phrase is left to the papers holding its rarest words (here they are few).
    await buildRankTables();
    const tuning = { phraseMaxWork: 50, verifiedPhraseHits: -1 };
    const cases = [
      ['"of the" OR "in the"', ["of the", "in the"]],
      ['abs:"in this paper"', ["in this paper"]],
      ['"we show that" AND quantum', ["we show that"]],
      ['"we show that" AND "in this paper"', ["we show that", "in this paper"]],
    ] as const;
    for (const sortBy of ["relevance", "submitted"] as const) {
      for (const [query, phrases] of cases) {
        const executed: string[] = [];
        const result = await searchMirror(oneDatabase(recordingReader(env.DB, executed)), plan(query), {
          sortBy,
          sortOrder: "descending",
          start: 0,
          limit: 10,
          ...candidatePath,
          tuning,
        });
        expect(result, `${query} by ${sortBy}`).toMatchObject({
          kind: "live",
          reason: expect.stringMatching(
            /^the quoted phrases? (".+" is|are) made of words held by so many papers that matching (it|them) would read about [\d,]+ of their word positions/,
          ),
        });
        expect(executed.length).toBeGreaterThan(0);
        for (const words of phrases) expect(executed.filter((statement) => statement.includes(words))).toEqual([]);
      }
    }
    // A quoted title whose rarest words few papers hold together is checked in TypeScript, without
    // FTS5's walk: served under the same bound. Under the default bound, the common phrases are too.
    const title = records
      .map((r) =>
        r.title
          .toLowerCase()
          .replace(/[^a-z0-9 ]+/g, " ")
          .replace(/\s+/g, " ")
          .trim(),
      )
      .find((t) => t.split(" ").length >= 5)!;
    const options = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10 } as const;
    expect(
      await searchMirror(oneDatabase(env.DB), plan(`"${title}"`), { ...options, tuning: { phraseMaxWork: 50 } }),
    ).toMatchObject({
      kind: "answer",
      method: "verified",
    });
    for (const [query] of cases)
      expect(
        await searchMirror(oneDatabase(env.DB), plan(query), { ...options, ...candidatePath }),
        query,
      ).toMatchObject({
        kind: "answer",
      });
  });

  it("applies category and date filters to every candidate source: the same page as an exhaustive ranking with the filters", async () => {
    await buildRankTables();
    const cases: [string, Record<string, string>][] = [
      ["quantum", { category: "quant-ph" }],
      ["field OR theory", { category: "hep-th" }],
      ["quantum ANDNOT cat:quant-ph", {}],
      ["field", { submittedFrom: "1995-01-01", submittedTo: "2005-12-31" }],
    ];
    for (const [query, filters] of cases) {
      const planned = plan(query, filters);
      const options = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10 } as const;
      const ranked = await searchMirror(oneDatabase(env.DB), planned, {
        ...options,
        caps: { count: 5, scan: 10, rank: 10 },
        tuning: { rareBudget: 0 },
      });
      const exact = await searchMirror(oneDatabase(env.DB), planned, { ...options, reference: true });
      if (ranked.kind !== "answer" || exact.kind !== "answer") throw new Error("expected answers");
      // (A narrow window can leave fewer candidates than a page: then it is ranked exhaustively.)
      if (!filters.submittedFrom) expect(ranked.method, query).toBe("candidates");
      expect(
        ranked.rows.map((r) => r.id),
        `${query} ${JSON.stringify(filters)}`,
      ).toEqual(exact.rows.map((r) => r.id));
    }
  });

  it("reuses the impact lists it holds only while the table's rows are unchanged, with the same page", async () => {
    await buildRankTables();
    const cache = new ImpactListCache(10_000_000);
    const planned = plan("quantum field theory lattice gauge");
    const options = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10, ...candidatePath } as const;
    const first = await searchMirror(oneDatabase(env.DB), planned, { ...options, impactCache: cache });
    expect(first).toMatchObject({ kind: "answer", method: "candidates" });
    const key = "*|quantum";
    const held = cache.get(key);
    expect(held?.list.offsets.length).toBeGreaterThan(0);
    // Held as D1 sent it: the same papers as the stored row decodes to.
    const row = await env.DB.prepare(
      "SELECT postings FROM arxiv_rank_impacts WHERE term = 'quantum' AND col = -1",
    ).first<{ postings: string }>();
    expect(held?.chars).toBe(row!.postings.length);
    expect(scaledImpacts(held!.list)).toEqual(decodeImpacts(row!.postings));
    expect(cache.size).toBeGreaterThanOrEqual(2);
    // Unchanged: D1 does not send the list again (the held entry is the same object), and the page is the same.
    const again = await searchMirror(oneDatabase(env.DB), planned, { ...options, impactCache: cache });
    expect(cache.get(key)).toBe(held);
    if (first.kind !== "answer" || again.kind !== "answer") throw new Error("expected answers");
    expect(again.rows.map((r) => r.id)).toEqual(first.rows.map((r) => r.id));
    // A rebuilt row (its count changed): read again.
    await env.DB.prepare("UPDATE arxiv_rank_impacts SET docs = docs + 1 WHERE term = 'quantum' AND col = -1").run();
    await searchMirror(oneDatabase(env.DB), planned, { ...options, impactCache: cache });
    expect(cache.get(key)).not.toBe(held);
    expect(cache.get(key)?.docs).toBe(held!.docs + 1);
  });

  it("counts exactly below the cap, and stops at it without walking the hits when an OR's word is held by more papers", async () => {
    await buildRankTables();
    const options = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10, ...candidatePath } as const;
    const hits = async (match: TextQuery) =>
      (
        await env.DB.prepare("SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH ?")
          .bind(toMatch(match))
          .first<{ n: number }>()
      )?.n ?? 0;
    // Words of an OR held by more than 22 papers (the cap of 20 and a tenth), an AND under the cap,
    // a NOT: each total is the exact count up to the cap, and a lower bound at it.
    for (const query of [
      "quantum",
      "quantum field theory",
      "ti:quantum",
      "black AND hole AND entropy",
      "energy ANDNOT quantum",
    ]) {
      const planned = plan(query);
      const result = await searchMirror(oneDatabase(env.DB), planned, options);
      if (result.kind !== "answer") throw new Error(`expected an answer for ${query}`);
      const n = await hits(planned.match!);
      expect({ total: result.total, lower: result.totalIsLowerBound }, query).toEqual({
        total: Math.min(n, 20),
        lower: n >= 20,
      });
    }
    // What spares the walk is the ranking table's count: a row saying a rare word is common (as a
    // stale table could, had papers lost the word) makes the count stop at the cap.
    const rare = plan("lagrangian");
    expect(await hits(rare.match!)).toBeLessThan(20);
    await env.DB.prepare(
      "INSERT OR REPLACE INTO arxiv_rank_terms (term, col, docs) VALUES ('lagrangian', -1, 1000)",
    ).run();
    expect(await searchMirror(oneDatabase(env.DB), rare, options)).toMatchObject({
      total: 20,
      totalIsLowerBound: true,
    });
  });

  it("serves a page beyond the candidates, and worst-first order, from an exhaustive ranking", async () => {
    const planned = plan("quantum");
    const deep = await searchMirror(oneDatabase(env.DB), planned, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 100,
      limit: 10,
      ...candidatePath,
    });
    const exact = await exhaustive(planned.match!, 110);
    expect(deep).toMatchObject({ kind: "answer", method: "exhaustive" });
    if (deep.kind === "answer") expect(deep.rows.map((r) => r.paper_key)).toEqual(exact.slice(100).map((r) => r.k));
    const worst = await searchMirror(oneDatabase(env.DB), planned, {
      sortBy: "relevance",
      sortOrder: "ascending",
      start: 0,
      limit: 3,
      ...candidatePath,
    });
    if (worst.kind === "answer")
      expect(worst.rows[0]!.paper_key).toBe((await exhaustive(planned.match!, 10_000)).at(-1)!.k);
  });

  it("falls back to an exhaustive ranking when the candidates run out before the page is full", async () => {
    const planned = plan("quantum AND field");
    const tiny = await searchMirror(oneDatabase(env.DB), planned, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 10,
      ...candidatePath,
      tuning: { rareCandidates: 1, pairCandidates: 1, allTermsCandidates: 1, championCandidates: 1 },
    });
    expect(tiny).toMatchObject({ kind: "answer", method: "exhaustive" });
    if (tiny.kind === "answer")
      expect(tiny.rows.map((r) => r.paper_key)).toEqual((await exhaustive(planned.match!)).map((r) => r.k));
  });

  it("puts the paper whose whole title is the pasted query first, in every form an agent sends it", async () => {
    const withTitles = records.filter((r) => r.title.split(/\s+/).length >= 5).slice(0, 40);
    for (const record of withTitles) {
      const pasted = record.title
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, " ")
        .trim();
      for (const query of [pasted, `"${pasted}"`]) {
        const result = await callTool("arxiv_search_papers", { query, max_results: 3 });
        expect(result.structuredContent.papers[0]?.base_id, query).toBe(record.id);
      }
    }
  });

  it("puts a pasted title first when it holds hyphenated, slashed or apostrophe words (rotor-router, SU(2)/U(1), Zipf's)", () => {
    for (const title of [
      "Rotor-router walks on graphs with sinks",
      "Froggatt-Nielsen models of flavour and neutrino masses",
      "An ab-initio study of left-handed metamaterials",
      "State-of-the-art methods for architecture-based graph matching",
      "Electroweak breaking of SU(2)/U(1) symmetry with a light composite scalar",
      "Zipf's law for city sizes and Gibrat's law for firm growth",
    ]) {
      const rows = [
        // A near-duplicate BM25 may put first (a longer title with the same words).
        { paper_key: 1, title: `${title.replace(/-/g, " ")} revisited in pseudo-forces` },
        { paper_key: 2, title: "Walks and models on graphs" },
        { paper_key: 3, title },
      ];
      for (const query of [title, title.replace(/-/g, " "), title.toLowerCase()])
        expect(knownItemFirst(plan(query).match!, rows)[0]!.paper_key, query).toBe(3);
    }
  });

  it("pages through a ranked search without repeating or skipping a paper", async () => {
    await buildRankTables();
    const record = records.find((r) => r.title.split(/\s+/).length >= 6)!;
    const planned = plan(
      record.title
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, " ")
        .trim(),
    );
    const pages = [];
    for (const start of [0, 7, 14]) {
      const page = await searchMirror(oneDatabase(env.DB), planned, {
        sortBy: "relevance",
        sortOrder: "descending",
        start,
        limit: 7,
        ...candidatePath,
      });
      if (page.kind !== "answer") throw new Error("expected an answer");
      pages.push(...page.rows.map((r) => r.paper_key));
    }
    const whole = await searchMirror(oneDatabase(env.DB), planned, {
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 21,
      ...candidatePath,
    });
    if (whole.kind !== "answer") throw new Error("expected an answer");
    expect(new Set(pages).size).toBe(21);
    expect(pages).toEqual(whole.rows.map((r) => r.paper_key));
    expect(whole.rows[0]!.id).toBe(record.id);
  });

  it("says a search with no words is listed newest first because there is nothing to rank", async () => {
    const result = await callTool("arxiv_search_papers", { query: "cat:hep-th", max_results: 3 });
    expect(result.structuredContent.notices.join(" ")).toContain("no words to rank");
    expect(result.structuredContent.notices.join(" ")).not.toContain("Too many hits");
  });
});

describe("exact phrases", () => {
  it("matches a quoted phrase's words adjacent and in order, as brute force over the sample finds them", async () => {
    for (const [field, words] of [
      ["abs", "in this paper we"],
      ["abs", "magnetic field"],
      ["ti", "black hole"],
      ["abs", "we show that"],
    ] as const) {
      const wanted = tokens(words).join(" ");
      const text = (r: (typeof records)[number]) => (field === "ti" ? r.title : r.abstract);
      const expected = records.filter((r) =>
        ` ${tokens(text(r).replace(/\s+/g, " ")).join(" ")} `.includes(` ${wanted} `),
      ).length;
      const loose = records.filter((r) => wanted.split(" ").every((w) => tokens(text(r)).includes(w))).length;
      const result = await callTool("arxiv_search_papers", { query: `${field}:"${words}"`, max_results: 1 });
      expect(result.structuredContent.served_from).toBe("mirror");
      expect(result.structuredContent.total, words).toBe(expected);
      if (words.split(" ").length > 3) expect(expected, words).toBeLessThan(loose); // adjacency is checked, not just co-occurrence
    }
  });
});

describe("a quoted phrase checked in TypeScript", () => {
  it("gives FTS5's phrase query's page, order and count, from the papers holding its rarest words", async () => {
    await buildRankTables();
    const titles = records
      .filter((_r, i) => i % 97 === 0)
      .map((r) =>
        r.title
          .toLowerCase()
          .replace(/[^a-z0-9 ]+/g, " ")
          .replace(/\s+/g, " ")
          .trim(),
      )
      .filter((t) => t.split(" ").length >= 3);
    expect(titles.length).toBeGreaterThan(5);
    const cases: [string, Partial<MirrorSearchOptions>][] = [
      ...titles.map((t) => [`"${t}"`, {}] as [string, Partial<MirrorSearchOptions>]),
      [`ti:"${titles[0]}"`, {}],
      ['abs:"in this paper we"', {}],
      ['"in this paper we"', { start: 10 }],
      ['"in this paper we"', { sortOrder: "ascending" }],
      ['"we show that"', {}],
      ['"zzzunseen quantum field theory"', {}],
    ];
    let verified = 0;
    for (const [query, extra] of cases) {
      const options = { sortBy: "relevance", sortOrder: "descending", start: 0, limit: 10, ...extra } as const;
      const ours = await searchMirror(oneDatabase(env.DB), plan(query), options);
      // FTS5's own phrase query over every hit (the path taken when the rarest words are common).
      const fts5 = await searchMirror(oneDatabase(env.DB), plan(query), {
        ...options,
        tuning: { verifiedPhraseHits: -1 },
      });
      if (ours.kind !== "answer" || fts5.kind !== "answer") throw new Error(`expected answers for ${query}`);
      expect(fts5.method, query).toBe("exhaustive");
      if (ours.method === "verified") verified++;
      expect(
        ours.rows.map((r) => r.id),
        query,
      ).toEqual(fts5.rows.map((r) => r.id));
      expect({ total: ours.total, lower: ours.totalIsLowerBound }, query).toEqual({
        total: fts5.total,
        lower: fts5.totalIsLowerBound,
      });
    }
    // Every case but none is small enough here to be checked in TypeScript.
    expect(verified).toBe(cases.length);
  });
});

describe("the ranking tables", () => {
  it("hold each common term's document count and its champions: the papers where that term alone scores highest", async () => {
    await buildRankTables();
    const row = await env.DB.prepare("SELECT docs FROM arxiv_rank_terms WHERE term = 'quantum' AND col = -1").first<{
      docs: number;
    }>();
    const count = await env.DB.prepare(
      "SELECT count(*) AS n FROM arxiv_papers_fts WHERE arxiv_papers_fts MATCH '\"quantum\"'",
    ).first<{ n: number }>();
    expect(row?.docs).toBe(count?.n);
    const { results: champions } = await env.DB.prepare(
      "SELECT paper_key FROM arxiv_rank_champions WHERE term = 'quantum' AND col = -1 ORDER BY weight DESC, paper_key DESC LIMIT 20",
    ).all<{ paper_key: number }>();
    expect(champions.map((c) => c.paper_key)).toEqual(
      (await exhaustive(phrase(["quantum"], null), 20)).map((r) => r.k),
    );
    const title = await env.DB.prepare(
      "SELECT count(*) AS n FROM arxiv_rank_champions WHERE term = 'quantum' AND col = 0",
    ).first<{ n: number }>();
    expect(title?.n).toBeGreaterThan(0);
  });

  it("hold each common word's impact list: every paper where it weighs most, with that weight (here: all its papers)", async () => {
    await buildRankTables();
    const row = await env.DB.prepare(
      "SELECT docs, postings FROM arxiv_rank_impacts WHERE term = 'quantum' AND col = -1",
    ).first<{
      docs: number;
      postings: string;
    }>();
    const hits = await exhaustive(phrase(["quantum"], null), 10_000);
    expect(row?.docs).toBe(hits.length);
    const stats = corpusStats(
      new Uint8Array(
        (await env.DB.prepare("SELECT block FROM arxiv_papers_fts_data WHERE id = 1").first<{ block: ArrayBuffer }>())!
          .block,
      ),
    );
    const decoded = decodeImpacts(row!.postings);
    const listed = new Map([...decoded.keys].map((key, i) => [key, decoded.scores[i]!]));
    expect([...listed.keys()].sort()).toEqual(hits.map((h) => h.k).sort());
    for (const hit of hits) expect(Math.abs(listed.get(hit.k)! * idf(stats, hits.length) - hit.s)).toBeLessThan(0.05);
  });

  it("reach a stem that stems again through a word that gives it (embedding -> embed, not emb)", async () => {
    await buildRankTables();
    const { results } = await env.DB.prepare(
      "SELECT term FROM arxiv_papers_fts_vocab WHERE doc >= 40 AND term GLOB '[a-z]*' ORDER BY term",
    ).all<{ term: string }>();
    const restemmed = results.map((r) => r.term).filter((term) => stem(term) !== term);
    expect(restemmed.length).toBeGreaterThan(0);
    for (const term of restemmed) {
      const word = surfaceWord(term);
      expect(word !== null && stem(word) === term, term).toBe(true);
      const held = await env.DB.prepare("SELECT docs FROM arxiv_rank_impacts WHERE term = ? AND col = -1")
        .bind(term)
        .first<{ docs: number }>();
      expect(held?.docs, term).toBeGreaterThanOrEqual(40);
    }
  });

  it("read the vocabulary a slice at a time: the slice's last term is known before fts5vocab is read, so it gets both bounds", async () => {
    // A bound computed from the vocabulary's own row cannot reach fts5vocab: it then read the whole
    // rest of the index for every slice (seconds a slice at 1,000,000 papers, so one term a step).
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${VOCAB_SLICE_SQL}`)
      .bind("quantum", 200)
      .all<{ detail: string }>();
    const steps = results.map((row) => row.detail);
    const vocabularyScans = steps.flatMap((detail, i) => (/^SCAN [vr] VIRTUAL TABLE/.test(detail) ? [i] : []));
    expect(vocabularyScans).toHaveLength(2);
    for (const at of vocabularyScans) expect(steps[at - 1]).toBe("SCAN slice");
    // And the slice holds exactly the terms after the bound, up to the slice's size.
    const { results: slice } = await env.DB.prepare(VOCAB_SLICE_SQL)
      .bind("quantum", 50)
      .all<{ term: string; col: string }>();
    const { results: expected } = await env.DB.prepare(
      "SELECT term FROM arxiv_papers_fts_vocab WHERE term > 'quantum' ORDER BY term LIMIT 50",
    ).all<{ term: string }>();
    expect([...new Set(slice.filter((row) => row.col === "*").map((row) => row.term))]).toEqual(
      expected.map((row) => row.term),
    );
  });

  it("are rebuilt in slices: a second build replaces the rows instead of adding to them", async () => {
    await buildRankTables();
    const before = await env.DB.prepare(
      "SELECT (SELECT count(*) FROM arxiv_rank_terms) AS t, (SELECT count(*) FROM arxiv_rank_champions) AS c, (SELECT count(*) FROM arxiv_rank_impacts) AS i",
    ).first<{ t: number; c: number; i: number }>();
    await buildRankTables();
    const after = await env.DB.prepare(
      "SELECT (SELECT count(*) FROM arxiv_rank_terms) AS t, (SELECT count(*) FROM arxiv_rank_champions) AS c, (SELECT count(*) FROM arxiv_rank_impacts) AS i",
    ).first<{ t: number; c: number; i: number }>();
    expect(after).toEqual(before);
    expect(before!.t).toBeGreaterThan(10);
    expect(before!.i).toBeGreaterThan(10);
  });
});

describe("hostile searches stay bounded and typed", () => {
  it("sends a prefix of one or two letters to arXiv with the reason, and answers a longer one from the mirror", async () => {
    for (const query of ["e*", "ti:x*", "ab*"])
      expect(planMirrorSearch(query, {}), query).toMatchObject({
        live: expect.stringContaining("prefix of fewer than 3 letters"),
      });
    const longer = await callTool("arxiv_search_papers", { query: "entangl*", max_results: 2 });
    expect(longer.structuredContent.served_from).toBe("mirror");
    expect(longer.structuredContent.total).toBeGreaterThan(0);
  });

  it("answers any number of cat: terms (deduplicated; no bound value per category)", async () => {
    const codes = [
      "hep-th",
      "hep-ph",
      "gr-qc",
      "astro-ph",
      "quant-ph",
      "math.AG",
      "math.CO",
      "cs.LG",
      "cs.AI",
      "cond-mat.str-el",
      "nucl-th",
      "physics.optics",
    ];
    const terms: string[] = [];
    for (let i = 0; `quantum AND (${[...terms, `cat:${codes[i % codes.length]}`].join(" OR ")})`.length <= 1000; i++)
      terms.push(`cat:${codes[i % codes.length]}`);
    expect(terms.length).toBeGreaterThan(60);
    const result = await callTool("arxiv_search_papers", {
      query: `quantum AND (${terms.join(" OR ")})`,
      max_results: 3,
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent.served_from).toBe("mirror");
  });

  it("ranks a 1,000-character OR of common words from the mirror", async () => {
    const common = [
      "quantum",
      "field",
      "theory",
      "model",
      "state",
      "energy",
      "phase",
      "spin",
      "lattice",
      "magnetic",
      "results",
      "system",
    ];
    let query = "";
    for (let i = 0; query.length < 990; i++) query += `${i ? " OR " : ""}${common[i % common.length]}`;
    query = query.slice(0, 1000).replace(/ OR \S*$/, "");
    const result = await callTool("arxiv_search_papers", { query, max_results: 10 });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ served_from: "mirror" });
    expect(result.structuredContent.papers).toHaveLength(10);
  });
});
