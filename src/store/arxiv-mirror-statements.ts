// One database's statements of a mirror search (arxiv-mirror-search.ts runs them over every
// database and merges): what drives the walk, the category and date conditions, the capped
// counts, a listed page's rows, and the ranked page (search/rank.ts).
import { monthEndKey, monthStartKey } from "./arxiv-key";
import { PAGE_COLUMNS, SELECT_COLUMNS } from "./arxiv-mirror-lookup";
import type { MirrorRow } from "./arxiv-row";
import { listedOrder, type ListedOrder } from "./arxiv-listed-order";
import type { MirrorSearchOptions, MirrorSearchPlan, MirrorSearchResult } from "./arxiv-mirror-search";
import { toMatch } from "../search/expression";
import { tooBroad, rankRelevance, RANK_TUNING, type D1Reader, type KeyFilters } from "../search/rank";

/** Counting stops here; a total that reaches it is a lower bound. */
export const COUNT_CAP = 10_000;
/** At most this many candidate rows are examined to count a filtered search. */
export const SCAN_CAP = 20_000;
/** Up to this many hits are sorted exactly by date; more are walked in key (= submission) order. */
export const RANK_CAP = 2_000;

const MONTH_SECONDS = 31 * 86_400;

/** A category code as an SQL literal: codes are validated against the taxonomy, and literals keep D1's 100 bound values for the rest. */
function categoryLiteral(code: string): string {
  if (!/^[A-Za-z0-9.*-]+$/.test(code)) throw new Error(`not a category value: ${code}`);
  return `'${code}'`;
}

/** The category and date conditions of a plan on a paper key expression (no bound values: literals and numbers). */
function keyFilters(plan: MirrorSearchPlan, groups = plan.categoryGroups): KeyFilters {
  return (key: string) => {
    const clauses: string[] = [];
    for (const group of groups) {
      clauses.push(
        `EXISTS (SELECT 1 FROM arxiv_paper_categories c WHERE c.category IN (${group.map(categoryLiteral).join(", ")}) ` +
          `AND c.paper_key = ${key})`,
      );
    }
    if (plan.excludedCategories.length > 0) {
      clauses.push(
        `NOT EXISTS (SELECT 1 FROM arxiv_paper_categories c WHERE c.category IN ` +
          `(${plan.excludedCategories.map(categoryLiteral).join(", ")}) AND c.paper_key = ${key})`,
      );
    }
    if (plan.submitted !== null) {
      const { from, to } = plan.submitted;
      // Key order is the ID's month, and a paper's v1 date lies within a month of it (usually
      // inside it; the first 0704 IDs went to papers of 31 March, an old adap-org one was dated
      // five days after its month). So keys of months that sit at least that margin inside the
      // window need no date check, and only the months near its edges read the paper's date.
      const outerLo = monthStartKey(new Date((from - MONTH_SECONDS) * 1000));
      const outerHi = monthEndKey(new Date((to + MONTH_SECONDS) * 1000));
      const innerLo = monthEndKey(new Date((from + MONTH_SECONDS) * 1000)) + 1;
      const innerHi = monthStartKey(new Date((to - MONTH_SECONDS) * 1000)) - 1;
      clauses.push(`${key} BETWEEN ${outerLo} AND ${outerHi}`);
      clauses.push(
        `((${key} BETWEEN ${innerLo} AND ${innerHi} AND ${key} NOT IN (SELECT paper_key FROM ` +
          `arxiv_date_outliers)) OR (SELECT published FROM arxiv_papers WHERE paper_key = ${key}) ` +
          `BETWEEN ${Math.trunc(from)} AND ${Math.trunc(to)})`,
      );
    }
    return { clauses, binds: [] };
  };
}

interface Source {
  from: string;
  where: string[];
  binds: unknown[];
  key: string;
  /** The driver is arxiv_papers itself (aliased p): the page needs no join. */
  isPapers?: boolean;
}

/** What the walk is driven by (the FTS index, one category's rows, or the papers) and the conditions left for each row. */
function buildSource(plan: MirrorSearchPlan): { source: Source; filters: string[] } {
  const groups = [...plan.categoryGroups];
  let source: Source;
  if (plan.match !== null) {
    source = {
      from: "arxiv_papers_fts",
      where: ["arxiv_papers_fts MATCH ?"],
      binds: [toMatch(plan.match)],
      key: "arxiv_papers_fts.rowid",
    };
  } else {
    const single = groups.findIndex((group) => group.length === 1);
    if (single >= 0) {
      const [value] = groups.splice(single, 1)[0]!;
      source = {
        from: "arxiv_paper_categories d",
        where: [`d.category = ${categoryLiteral(value!)}`],
        binds: [],
        key: "d.paper_key",
      };
    } else {
      source = { from: "arxiv_papers p", where: [], binds: [], key: "p.paper_key", isPapers: true };
    }
  }
  const { clauses } = keyFilters(plan, groups)(source.key);
  // The key range of a date window drives the walk itself (an FTS5 rowid range, a junction range).
  const range = clauses.findIndex((clause) => clause.startsWith(`${source.key} BETWEEN`));
  if (range >= 0) source.where.push(...clauses.splice(range, 1));
  return { source, filters: clauses };
}

/** Papers dated in the window whose keys lie outside the window's key range (a few old oddities). */
export async function outliersOutsideRange(db: D1Reader, submitted: { from: number; to: number }): Promise<number> {
  const outerLo = monthStartKey(new Date((submitted.from - MONTH_SECONDS) * 1000));
  const outerHi = monthEndKey(new Date((submitted.to + MONTH_SECONDS) * 1000));
  const row = await db
    .prepare(
      "SELECT count(*) AS n FROM arxiv_date_outliers WHERE published BETWEEN ? AND ? AND paper_key NOT BETWEEN ? AND ?",
    )
    .bind(submitted.from, submitted.to, outerLo, outerHi)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** The capped counts, by caps, of a search listed without ranking (none when no cap is shrunk: the defaults). */
const DEFAULT_CAPS = { count: COUNT_CAP, scan: SCAN_CAP, rank: RANK_CAP } as const;
export const capsOf = (options: MirrorSearchOptions) => options.caps ?? DEFAULT_CAPS;

/** Whether a count stopped at a cap (its total is a lower bound): a filtered walk at the scan cap, or the count cap. */
export function reachesCap(filtered: boolean, caps: { count: number; scan: number }, counted: Counted): boolean {
  return filtered ? counted.scanned >= caps.scan || counted.matched >= caps.count : counted.scanned >= caps.count;
}

/** Whether the plan's hits are counted through a filter (a walk that stops at the scan cap). */
export const countsThroughFilter = (plan: MirrorSearchPlan): boolean => buildSource(plan).filters.length > 0;

/**
 * The capped count of a listed search (no ranking), or why the mirror does not run it: a broad
 * prefix or a phrase of common words is refused before the count matches it (rank.ts: FTS5 would
 * merge the prefix in memory, and read the phrase's positions at length). `scanCap` narrows the
 * walk of a filtered count (a sharded mirror counts its older shards with what is left of it).
 */
export async function countListed(
  db: D1Reader,
  plan: MirrorSearchPlan,
  options: MirrorSearchOptions,
  scanCap?: number,
): Promise<Counted | Extract<MirrorSearchResult, { kind: "live" }>> {
  const { source, filters } = buildSource(plan);
  const caps = capsOf(options);
  const limits = { ...RANK_TUNING, ...options.tuning };
  if (scanCap === undefined && plan.match !== null) {
    const broad = await tooBroad(
      db,
      plan.match,
      { prefixDocs: limits.prefixMaxDocs, phraseWork: limits.phraseMaxWork },
      "merges",
    );
    if (broad !== null) return { kind: "live", reason: broad, mirrorCouldApproximate: false };
  }
  const counted = await countingFor(db, source, filters, { ...caps, scan: scanCap ?? caps.scan })
    .countWith()
    .first<Counted>();
  return { scanned: counted?.scanned ?? 0, matched: counted?.matched ?? 0 };
}

/** A capped count: the rows the walk examined, and the hits among them. */
export type Counted = { scanned: number; matched: number };

/** Whether a count stopped at a cap (the total is a lower bound). */
export function isLowerBound(plan: MirrorSearchPlan, options: MirrorSearchOptions, counted: Counted): boolean {
  return reachesCap(countsThroughFilter(plan), capsOf(options), counted);
}

/** How a counted listing is answered: its total and order (by update, by submission, newest first), or live. */
export function listedDecision(
  plan: MirrorSearchPlan,
  options: MirrorSearchOptions,
  counted: Counted,
):
  | Extract<MirrorSearchResult, { kind: "live" }>
  | {
      kind: "list";
      answer: Omit<Extract<MirrorSearchResult, { kind: "answer" }>, "rows">;
      orderBy: string;
      order: ListedOrder;
    } {
  const caps = capsOf(options);
  const matched = Math.min(counted.matched, caps.count);
  const totalIsLowerBound = isLowerBound(plan, options, counted);
  const exact = !totalIsLowerBound && matched <= caps.rank;
  if (options.sortBy === "updated" && !exact) {
    return {
      kind: "live",
      mirrorCouldApproximate: false,
      reason:
        `sorting ${totalIsLowerBound ? `over ${matched.toLocaleString("en-US")}` : matched.toLocaleString("en-US")} ` +
        `hits by last update needs arXiv's index (the mirror sorts at most ${caps.rank.toLocaleString("en-US")})`,
    };
  }
  const { ordering, orderBy, order } = listedOrder(options, buildSource(plan).source.key, exact);
  return {
    kind: "list",
    answer: { kind: "answer", total: matched, totalIsLowerBound, ordering, counted },
    orderBy,
    order,
  };
}

/** A listed page's rows, in one query: the join touches only the rows the walk reaches. */
export async function listedRows(
  db: D1Reader,
  plan: MirrorSearchPlan,
  orderBy: string,
  start: number,
  limit: number,
): Promise<MirrorRow[]> {
  const { source, filters } = buildSource(plan);
  const where = [...source.where, ...filters];
  const join = source.isPapers ? "" : `JOIN arxiv_papers p ON p.paper_key = ${source.key}`;
  const pageSql =
    `SELECT p.paper_key AS paper_key, ${PAGE_COLUMNS} FROM ${source.from} ${join} ` +
    `${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY ${orderBy} LIMIT ? OFFSET ?`;
  const { results } = await db
    .prepare(pageSql)
    .bind(...source.binds, limit, start)
    .all<MirrorRow>();
  return results;
}

type SearchSource = ReturnType<typeof buildSource>["source"];
type Counting = {
  countWith: (reaches?: { sql: string; binds: unknown[] }) => D1PreparedStatement;
  lowerBound: (counted: { scanned: number; matched: number }) => boolean;
};

/**
 * The capped count of the hits: exact up to the cap; the walk stops there (a filtered count
 * examines at most the scan cap's rows). `reaches`, a condition that holds when the hits
 * certainly reach the cap (a word every one of whose papers is a hit is held by more papers than
 * the cap), spares the walk.
 */
function countingFor(
  db: D1Reader,
  source: SearchSource,
  filters: string[],
  caps: { count: number; scan: number },
): Counting {
  const baseWhere = source.where.length > 0 ? `WHERE ${source.where.join(" AND ")}` : "";
  const filtered = filters.length > 0;
  const countWith = (reaches?: { sql: string; binds: unknown[] }) =>
    filtered
      ? db
          .prepare(
            `SELECT count(*) AS scanned, coalesce(sum(ok), 0) AS matched FROM (SELECT CASE WHEN ` +
              `${filters.join(" AND ")} THEN 1 ELSE 0 END AS ok FROM ${source.from} ${baseWhere} ORDER ` +
              `BY ${source.key} DESC LIMIT ${caps.scan})`,
          )
          .bind(...source.binds)
      : reaches
        ? db
            .prepare(
              `SELECT n AS scanned, n AS matched FROM (SELECT CASE WHEN ${reaches.sql} THEN ${caps.count} ` +
                `ELSE (SELECT count(*) FROM (SELECT 1 FROM ${source.from} ${baseWhere} LIMIT ${caps.count})) END AS n)`,
            )
            .bind(...reaches.binds, ...source.binds)
        : db
            .prepare(
              `SELECT count(*) AS scanned, count(*) AS matched FROM (SELECT 1 FROM ${source.from} ` +
                `${baseWhere} ORDER BY ${source.key} DESC LIMIT ${caps.count})`,
            )
            .bind(...source.binds);
  const lowerBound = (counted: Counted) => reachesCap(filtered, caps, counted);
  return { countWith, lowerBound };
}

/** A search with words in relevance order: the ranker's page (src/search/rank.ts). */
export async function rankedAnswer(
  db: D1Reader,
  plan: MirrorSearchPlan,
  match: NonNullable<MirrorSearchPlan["match"]>,
  options: MirrorSearchOptions,
): Promise<MirrorSearchResult> {
  const { source, filters } = buildSource(plan);
  const caps = capsOf(options);
  const countCap = caps.count;
  const { countWith, lowerBound } = countingFor(db, source, filters, caps);
  const ranked = await rankRelevance<MirrorRow>(db, {
    query: match,
    filters: keyFilters(plan),
    count: countWith,
    countCap,
    isLowerBound: lowerBound,
    // A reference's candidates are many and never shown with counts.
    select: options.reference ? SELECT_COLUMNS : PAGE_COLUMNS,
    start: options.start,
    limit: options.limit,
    ascending: options.sortOrder === "ascending",
    ...(options.tuning ? { tuning: options.tuning } : {}),
    ...(options.trace ? { trace: options.trace } : {}),
    ...(options.reference ? { reference: true } : {}),
    ...(options.impactCache ? { impactCache: options.impactCache } : {}),
  });
  if (ranked.live !== undefined) return { kind: "live", reason: ranked.live, mirrorCouldApproximate: true };
  return {
    kind: "answer",
    total: Math.min(ranked.counted.matched, countCap),
    totalIsLowerBound: lowerBound(ranked.counted),
    rows: ranked.rows,
    ordering: "relevance",
    method: ranked.method,
    counted: ranked.counted,
    ...(ranked.statistics ? { statistics: ranked.statistics } : {}),
  };
}
