// Where the resolver's candidates come from: the identifiers the reference names (looked up
// exactly), the walks over both mirrors' titles by the reference's rarer words and by its
// neighbouring word pairs, and the arXiv search as the last resort. Each gives Found papers that
// resolve.ts scores against the reference's own text.
import { arxivReaders } from "../../store/arxiv-shards";
import { PapersError } from "../../errors";
import { mirrorByDoi, mirrorByJournalRef } from "../../store/arxiv-mirror-lookup";
import { mirrorStateOf } from "../../store/arxiv-mirror-state";
import { getCachedInfo } from "../../store/nber-cache";
import { mirrorPaper } from "../../store/nber-mirror";
import { arxivTitlePairs, referenceCandidates } from "../../store/reference-candidates";
import { stem } from "../../search/tokenize";
import {
  describeJournalRef,
  journalRefTokens,
  type JournalRef,
  parseJournalRefs,
  sameArticle,
} from "../../search/journal-ref";
import { findPapers } from "../arxiv/lookup";
import { rowToPaper } from "../arxiv/mirror";
import type { ArxivPaper, ServedPaper } from "../arxiv/paper";
import { runSearch } from "../arxiv/search";
import { planSearch } from "../arxiv/search-plan";
import type { NberPaper, NberPaperInfo } from "../nber/paper";
import { paperUrl } from "../nber/paper";
import type { identifiersIn } from "./identifiers";
import type { ReferenceFields } from "./reference-text";
import { contentWords } from "./text-match";
import type { SourceLookup, Unchecked } from "./resolve-external";
import type { PersonName } from "./names";
import type { AppContext } from "../../context";

/** Candidates taken from each mirror's word walk. */
const WALK_CANDIDATES = 10;
/** Candidates taken from the mirror's ranker when the walk verified none. */
const RANKER_CANDIDATES = 5;

/** A paper a lookup or a walk proposed, before it is scored against the reference. */
export interface Found {
  source: "arxiv" | "nber" | "crossref" | "openalex";
  id: string;
  title: string;
  authors: string[];
  year: number | null;
  doi: string | null;
  version: number | null;
  /** The year of the journal version (arXiv's journal_ref), when the record has one. */
  published_year?: number | null;
  /** The record's own journal reference, parsed (arXiv's journal_ref). */
  own_journal?: JournalRef | null;
  /** arXiv's journal_ref as written: where the paper was published, when arXiv knows. */
  journal_ref?: string | null;
  /** Other years the record is known by (a work's print and online years). */
  years?: number[];
  /** How many authors the record has, when `authors` is a shortened list. */
  authors_total?: number;
  /** The authors' names in parts, as the source gave them (Crossref). */
  people?: PersonName[];
  how: string;
  exact?: string;
  /** The journal reference in the text that names this paper's own ("Phys. Rev. A 76, 042309 (2007)"). */
  journal?: string;
  /** A work outside the mirrors: where it was published, as its source describes it. */
  venue?: Venue;
}

/** Where a work outside the mirrors was published (Crossref's container, volume, issue, pages). */
export interface Venue {
  type: string | null;
  container: string | null;
  /** Other names of the container (Crossref's further container-titles). */
  containers?: string[];
  volume: string | null;
  issue: string | null;
  page: string | null;
  publisher: string | null;
}

/** Every identifier in the reference looked up exactly: what each found, what was tried, and what arXiv could not answer. */
export async function lookupIdentifiers(
  ctx: AppContext,
  ids: ReturnType<typeof identifiersIn>,
  arxivLookups?: Map<string, ServedPaper | string>,
): Promise<Omit<SourceLookup, "absentDois">> {
  const found: Found[] = [];
  const tried: string[] = [];
  const unchecked: Unchecked[] = [];
  // A cited version is still the paper: look up the paper (the latest version answers).
  const bases = [...new Set(ids.arxiv.map((id) => id.replace(/v\d+$/, "")))];
  const missing = bases.filter((base) => !arxivLookups?.has(base));
  const looked = missing.length > 0 ? await lookupArxiv(ctx, missing) : new Map<string, ServedPaper | string>();
  for (const cited of ids.arxiv) {
    const base = cited.replace(/v\d+$/, "");
    const outcome = arxivLookups?.get(base) ?? looked.get(base) ?? "not found";
    if (typeof outcome !== "string")
      found.push({
        ...fromArxivPaper(outcome, `arXiv ID ${cited} looked up (${outcome.served_from})`),
        exact: `arXiv ID ${cited}`,
      });
    tried.push(typeof outcome !== "string" ? `arXiv ID ${cited}: found` : `arXiv ID ${cited}: ${outcome}`);
    // arXiv could not answer: the paper may well exist, so nothing built on this miss may say not_found.
    if (outcome === "live_lookup_failed" && !unchecked.some((u) => u.source === "arxiv"))
      unchecked.push({ source: "arxiv", reason: "upstream_unavailable", retry_after_ms: null });
  }
  for (const id of ids.nber) {
    const paper = await nberPaper(ctx, id);
    if (paper) found.push({ ...paper, exact: `NBER number ${id}` });
    tried.push(`NBER number ${id}: ${paper ? "found" : "not in the NBER mirror or cache"}`);
  }
  const journalDois = ids.dois.filter((doi) => !/^10\.48550\/arxiv\./i.test(doi) && !/^10\.3386\//i.test(doi));
  if (journalDois.length === 0) return { found, tried, unchecked };
  if (!ctx.config.ARXIV_MIRROR_ENABLED || !(await mirrorStateOf(ctx)).ready) {
    for (const doi of journalDois) tried.push(`DOI ${doi}: not looked up in the arXiv mirror (none is ready)`);
    return { found, tried, unchecked };
  }
  for (const doi of journalDois) {
    const rows = await mirrorByDoi(arxivReaders(ctx), doi);
    for (const row of rows)
      found.push({ ...fromArxivPaper(rowToPaper(row), `journal DOI ${doi} in the arXiv mirror`), exact: `DOI ${doi}` });
    const held =
      rows.length > 0
        ? `the journal DOI of arXiv ${rows.map((row) => row.id).join(", ")}`
        : "no arXiv paper in the mirror carries it";
    tried.push(`DOI ${doi}: ${held}`);
  }
  return { found, tried, unchecked };
}

/** Both mirrors' papers sharing the most of the reference's rarer words (one D1 round trip). */
export async function walkMirrors(
  ctx: AppContext,
  words: string[],
  found: Found[],
  tried: string[],
  sources: readonly ("arxiv" | "nber")[],
): Promise<void> {
  if (words.length === 0) return;
  const arxivMirror = sources.includes("arxiv") && ctx.config.ARXIV_MIRROR_ENABLED && (await mirrorStateOf(ctx)).ready;
  const candidates = await referenceCandidates(
    arxivReaders(ctx),
    { arxiv: words.map((word) => [word, stem(word)]), nber: words },
    { arxiv: arxivMirror, nber: sources.includes("nber"), limit: WALK_CANDIDATES },
  );
  for (const row of candidates.arxiv)
    found.push(fromArxivPaper(rowToPaper(row), "words of the reference in the arXiv mirror"));
  for (const paper of candidates.nber)
    found.push(fromNberPaper({ ...paper, url: paperUrl(paper.id) }, "words of the reference in the NBER mirror"));
  if (arxivMirror) tried.push(`words of the reference in the arXiv mirror: ${candidates.arxiv.length} candidates`);
  if (sources.includes("nber"))
    tried.push(`words of the reference in the NBER mirror: ${candidates.nber.length} candidates`);
}

/**
 * arXiv papers whose own journal reference is one the text cites (journal, volume and first page
 * equal): how physics cites, with authors and a journal reference and no title. The index finds
 * rows holding the volume and page; each row's journal_ref is then parsed and compared.
 */
export async function lookupJournalRefs(
  ctx: AppContext,
  cited: readonly JournalRef[],
  found: Found[],
  tried: string[],
): Promise<void> {
  if (cited.length === 0 || !ctx.config.ARXIV_MIRROR_ENABLED || !(await mirrorStateOf(ctx)).ready) return;
  const rows = await mirrorByJournalRef(arxivReaders(ctx), cited.slice(0, 3).map(journalRefTokens));
  let matched = 0;
  for (const row of rows) {
    const own = parseJournalRefs(row.journal_ref ?? "");
    const ref = cited.find((c) => own.some((o) => sameArticle(c, o)));
    if (!ref) continue;
    matched++;
    const journal = describeJournalRef(ref);
    found.push({ ...fromArxivPaper(rowToPaper(row), `journal reference ${journal} in the arXiv mirror`), journal });
  }
  tried.push(
    `journal reference ${cited.slice(0, 3).map(describeJournalRef).join("; ")} in the arXiv mirror: ` +
      `${matched} ${matched === 1 ? "paper" : "papers"}`,
  );
}

/** arXiv titles holding two neighbouring words of the reference (a title of common words; a long title among short ones). */
export async function pairArxivTitles(
  ctx: AppContext,
  words: string[],
  found: Found[],
  tried: string[],
): Promise<void> {
  if (!ctx.config.ARXIV_MIRROR_ENABLED || !(await mirrorStateOf(ctx)).ready) return;
  const rows = await arxivTitlePairs(
    arxivReaders(ctx),
    words.map((word) => [word, stem(word)]),
    WALK_CANDIDATES,
  );
  for (const row of rows)
    found.push(fromArxivPaper(rowToPaper(row), "two neighbouring words of the reference in arXiv titles"));
  tried.push(`two neighbouring words of the reference in arXiv titles: ${rows.length} candidates`);
}

/**
 * The arXiv search's own ranking of the reference's words (the mirror's BM25; arXiv's API when
 * there is no whole mirror, with the title read from the text): finds a paper whose title words
 * are all common, which the rare-word walk cannot.
 */
export async function rankArxiv(
  ctx: AppContext,
  titleWords: string[],
  fields: ReferenceFields,
  found: Found[],
  tried: string[],
  unchecked: Unchecked[] = [],
): Promise<void> {
  const mirror = ctx.config.ARXIV_MIRROR_ENABLED && (await mirrorStateOf(ctx)).ready;
  // Lower-case words only: arXiv's grammar would read AND/OR/NOT and field prefixes.
  const query = mirror
    ? titleWords.slice(0, 30).join(" ")
    : fields.title
      ? contentWords(fields.title).slice(0, 30).join(" ")
      : "";
  if (query.split(" ").length < 2) return;
  try {
    const plan = planSearch(
      { query, sortBy: "relevance", sortOrder: "descending", start: 0, maxResults: RANKER_CANDIDATES },
      ctx.config,
    );
    const outcome = await runSearch(ctx, plan);
    const from = "served_from" in outcome.source ? outcome.source.served_from : "live";
    for (const paper of outcome.papers) found.push(fromArxivPaper(paper, `arXiv search (${from})`));
    tried.push(`arXiv search of the reference's words (${from}): ${outcome.papers.length} candidates`);
  } catch (error) {
    if (!(error instanceof PapersError)) throw error;
    tried.push(`arXiv search failed: ${error.reason}`);
    // With no whole mirror, arXiv's own search was the only way to look there.
    if (!mirror && !unchecked.some((u) => u.source === "arxiv"))
      unchecked.push({ source: "arxiv", reason: error.reason, retry_after_ms: error.retryAfterMs ?? null });
  }
}

/** arXiv IDs looked up in one go (mirror, cache, then one API request): base ID -> paper, or why not. */
export async function lookupArxiv(
  ctx: AppContext,
  baseIds: readonly string[],
): Promise<Map<string, ServedPaper | string>> {
  const out = new Map<string, ServedPaper | string>();
  if (baseIds.length === 0) return out;
  const result = await findPapers(ctx, baseIds);
  for (const paper of result.papers) out.set(paper.input, paper);
  for (const miss of result.not_found) out.set(miss.id, miss.reason);
  for (const id of baseIds) if (!out.has(id)) out.set(id, "not found");
  return out;
}

function fromArxivPaper(paper: ArxivPaper, how: string): Found {
  return {
    source: "arxiv",
    id: paper.base_id,
    title: paper.title,
    authors: paper.authors.map((author) => author.name),
    year: Number(paper.published.slice(0, 4)) || null,
    doi: paper.doi,
    version: paper.versions?.length || null,
    ...publishedAs(paper.journal_ref),
    journal_ref: paper.journal_ref,
    ...(paper.authors_total ? { authors_total: paper.authors_total } : {}),
    how,
  };
}

/** The journal version an arXiv record names: its parsed reference and year. */
function publishedAs(journalRef: string | null): Pick<Found, "own_journal" | "published_year"> {
  const own = journalRef ? (parseJournalRefs(journalRef)[0] ?? null) : null;
  return { own_journal: own, published_year: own?.year ?? null };
}

function fromNberPaper(paper: NberPaper | NberPaperInfo, how: string): Found {
  return {
    source: "nber",
    id: paper.id,
    title: paper.title,
    authors: paper.authors,
    year: Number(paper.date?.slice(0, 4)) || null,
    doi: "doi" in paper ? paper.doi : null,
    version: null,
    how,
  };
}

async function nberPaper(ctx: AppContext, id: string): Promise<Found | undefined> {
  const cached = await getCachedInfo<NberPaperInfo>(ctx.env.DB, id, ctx.config.NBER_INFO_CACHE_TTL_DAYS);
  if (cached) return fromNberPaper(cached.value, `NBER number ${id} (paper page, cached)`);
  const held = await mirrorPaper(ctx.env.DB, id);
  return held ? fromNberPaper({ ...held, url: paperUrl(id) }, `NBER number ${id} (NBER mirror)`) : undefined;
}
