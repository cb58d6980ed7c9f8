// biome-ignore-all lint/style/noExcessiveLinesPerFile: the resolver's walks in one file; issue 33 moves the walks out
// papers_resolve_reference behind the tool: a reference in any style (or fields) -> the real
// paper in arXiv or NBER with a confidence and what agreed, or an honest no_match with what was
// tried. Nothing depends on recognising the style:
// 1. every identifier in the text (identifiers.ts) is looked up exactly;
// 2. candidates come from the whole text's rarer words against both mirrors' titles and author
//    names (store/reference-candidates.ts), and from the mirror's ranker when those verify none;
// 3. each candidate is checked against the text itself (text-match.ts): its title inside the
//    reference, its authors' surnames and its year in what is left.
// An identifier whose paper the rest of the reference contradicts is reported, never trusted.
import { PapersError } from "../../errors";
import { mirrorByDoi } from "../../store/arxiv-mirror-lookup";
import { mirrorState } from "../../store/arxiv-mirror-state";
import { getCachedInfo } from "../../store/nber-cache";
import { mirrorPaper } from "../../store/nber-mirror";
import { arxivTitlePairs, referenceCandidates } from "../../store/reference-candidates";
import { STOPWORDS } from "../../search/stopwords";
import { stem, words as indexWords } from "../../search/tokenize";
import { findPapers } from "../arxiv/lookup";
import { rowToPaper } from "../arxiv/mirror";
import type { ArxivPaper, ServedPaper } from "../arxiv/paper";
import { searchPapers } from "../arxiv/search";
import type { NberPaper, NberPaperInfo } from "../nber/paper";
import { paperUrl } from "../nber/paper";
import { readOneEntry } from "./entry-formats";
import { cleanDoi, identifiersIn, withoutIdentifiers } from "./identifiers";
import { parseReference, textOfFields, type ReferenceFields } from "./reference-text";
import {
  authorEvidence,
  BIBLIOGRAPHIC_WORDS,
  nameWords,
  spellGreek,
  titleEvidence,
  yearEvidence,
  type AuthorEvidence,
  type TitleEvidence,
  type YearEvidence,
} from "./text-match";
import type { AppContext } from "../../context";

/** At or above this, a candidate is a match; below it the answer is no_match. */
export const MATCH_THRESHOLD = 0.8;
export const MAX_REFERENCE_CHARS = 5_000;
/** Candidates taken from each mirror's word walk. */
const WALK_CANDIDATES = 10;
/** Candidates taken from the mirror's ranker when the walk verified none. */
const RANKER_CANDIDATES = 5;

export interface Candidate {
  source: "arxiv" | "nber";
  id: string;
  title: string;
  authors: string[];
  authors_total: number;
  year: number | null;
  doi: string | null;
  /** The latest arXiv version the record holds (null for NBER). */
  version: number | null;
  confidence: number;
  agreed: {
    /** exact: the whole title is inside the reference; close: nearly all its words in order; none. */
    title: TitleEvidence["kind"];
    /** Share of the title's words found in the reference, in order. */
    title_coverage: number;
    authors: AuthorEvidence["kind"];
    surnames_matched: string;
    year: YearEvidence["kind"];
    year_cited: number | null;
    exact_identifier: string | null;
  };
  how: string;
}

export interface Resolution {
  status: "match" | "no_match";
  matches: Candidate[];
  /** Candidates under the threshold, shown so an agent sees why nothing matched; never a match. */
  near_misses: Candidate[];
  /** An identifier in the reference that names another paper than the rest of it, said in words. */
  conflict: string | null;
  parsed: ReferenceFields;
  tried: string[];
}

interface Found {
  source: "arxiv" | "nber";
  id: string;
  title: string;
  authors: string[];
  year: number | null;
  doi: string | null;
  version: number | null;
  how: string;
  exact?: string;
}

/** What the resolver works from: the reference's text (written from the fields when only fields are given) and its identifiers. */
export interface ReferenceInput {
  text: string;
  fields: ReferenceFields;
}

export function referenceInput(input: { reference?: string | undefined } & ReferenceFields): ReferenceInput {
  if (input.reference !== undefined && input.reference.length > MAX_REFERENCE_CHARS) {
    throw new PapersError(
      "invalid_argument",
      `The reference is ${input.reference.length} characters; at most ${MAX_REFERENCE_CHARS} are read.`,
      { recovery: "Pass one bibliography entry, or its title, authors and year as fields." },
    );
  }
  const given = Object.fromEntries(
    Object.entries(input).filter(([key, value]) => key !== "reference" && value !== undefined && value !== ""),
  ) as ReferenceFields;
  // A pasted BibTeX, RIS or CSL-JSON entry is read as the fields it holds.
  const entry = input.reference?.trim() ? readOneEntry(input.reference) : undefined;
  if (entry?.problem && entry.format !== "text")
    throw new PapersError("invalid_argument", `The ${entry.format} entry cannot be read: ${entry.problem}.`, {
      recovery: "Fix the entry, or pass the reference as plain text or as fields.",
    });
  const structured = entry && entry.format !== "text";
  const text = structured ? entry.text : input.reference?.trim() ? input.reference : textOfFields(given);
  const parsed = structured ? entry.fields : input.reference?.trim() ? parseReference(input.reference) : {};
  const fields: ReferenceFields = { ...parsed, ...given };
  if (fields.doi) fields.doi = cleanDoi(fields.doi);
  const ids = identifiersIn(
    `${text} ${given.doi ? `doi:${cleanDoi(given.doi)}` : ""} ${given.arxiv_id ? `arXiv:${given.arxiv_id}` : ""}`,
  );
  if (!fields.arxiv_id && ids.arxiv[0]) fields.arxiv_id = ids.arxiv[0];
  if (!fields.nber_id && ids.nber[0]) fields.nber_id = ids.nber[0];
  if (!fields.doi && ids.dois[0]) fields.doi = ids.dois[0];
  if (contentWords(withoutIdentifiers(text)).length < 2 && ids.arxiv.length + ids.dois.length + ids.nber.length === 0) {
    throw new PapersError(
      "invalid_argument",
      "The reference gives nothing to look up: no identifier and fewer than two words of a title or names.",
      { recovery: "Pass the entry as it appears in the bibliography, or at least its title." },
    );
  }
  return { text, fields };
}

/**
 * The words a reference is looked up by: folded index words, no stopwords, no bare numbers; a
 * word a PDF's line broke with a hyphen ("infor- mation") is also taken whole.
 */
function contentWords(text: string): string[] {
  const seen = new Set<string>();
  const normal = spellGreek(text.normalize("NFKC"));
  const rejoined = [...normal.matchAll(/(\p{L}+)-\s+(\p{L}+)/gu)].map((match) => match[1]! + match[2]!);
  for (const word of [...indexWords(normal), ...indexWords(rejoined.join(" "))]) {
    if (word.length < 2 || /^\d+$/.test(word) || STOPWORDS.has(word)) continue;
    seen.add(word);
  }
  return [...seen];
}

export interface ResolveOptions {
  maxMatches?: number;
  /** arXiv lookups already made for a batch of references (base ID -> paper or miss reason), so that a list costs one lookup. */
  arxivLookups?: Map<string, ServedPaper | string>;
  /** Search only these sources (default both). */
  sources?: readonly ("arxiv" | "nber")[];
}

export async function resolveReference(
  ctx: AppContext,
  input: ReferenceInput,
  { maxMatches = 3, arxivLookups, sources = ["arxiv", "nber"] }: ResolveOptions = {},
): Promise<Resolution> {
  const tried: string[] = [];
  const found: Found[] = [];
  const text = input.text.slice(0, MAX_REFERENCE_CHARS);
  const plain = withoutIdentifiers(text);
  const ids = identifiersIn(
    `${text} ${input.fields.doi ? `doi:${input.fields.doi}` : ""} ${input.fields.arxiv_id ? `arXiv:${input.fields.arxiv_id}` : ""} ${input.fields.nber_id ? `NBER Working Paper ${input.fields.nber_id}` : ""}`,
  );
  await lookupIdentifiers(ctx, ids, found, tried, arxivLookups);
  // Each candidate is scored once, however many walks ask whether one verified yet.
  const scores = new Map<Found, Candidate>();
  const scoreAll = () => {
    const byPaper = new Map<string, Found>();
    for (const candidate of found) {
      const key = `${candidate.source}:${candidate.id}`;
      const held = byPaper.get(key);
      if (!held || (candidate.exact && !held.exact)) byPaper.set(key, candidate);
    }
    return [...byPaper.values()].map((candidate) => {
      let done = scores.get(candidate);
      if (!done) scores.set(candidate, (done = score(plain, candidate, ids)));
      return done;
    });
  };
  const words = contentWords(plain);
  if (!scoreAll().some((c) => c.confidence >= MATCH_THRESHOLD && c.agreed.exact_identifier)) {
    await walkMirrors(ctx, words, found, tried, sources);
    const verified = () => scoreAll().some((c) => c.confidence >= MATCH_THRESHOLD);
    if (!verified() && sources.includes("arxiv")) await pairArxivTitles(ctx, words, found, tried);
    if (!verified() && sources.includes("arxiv"))
      await rankArxiv(ctx, withoutNames(words, plain), input.fields, found, tried);
  } else tried.push("word search skipped: an identifier matched and the text agrees");

  let scored = scoreAll().sort((a, b) => b.confidence - a.confidence || b.title.length - a.title.length);
  const conflict = identifierConflict(scored);
  if (conflict) scored = scored.map((c) => ({ ...c, confidence: Math.min(c.confidence, 0.5) }));
  const matches = scored.filter((candidate) => candidate.confidence >= MATCH_THRESHOLD).slice(0, maxMatches);
  const near = scored
    .filter((candidate) => candidate.confidence < MATCH_THRESHOLD && candidate.confidence >= 0.3)
    .slice(0, matches.length > 0 ? 0 : 2);
  return {
    status: matches.length > 0 ? "match" : "no_match",
    matches,
    near_misses: near,
    conflict,
    parsed: input.fields,
    tried,
  };
}

/** The words that are not names beside initials: what the arXiv search is given, so that a long author list does not rank by itself. */
function withoutNames(words: string[], plain: string): string[] {
  const names = nameWords(plain);
  return words.filter((word) => !names.has(word));
}

/** When the text names one paper (title and authors) and an identifier in it another: say so, trust neither. */
function identifierConflict(scored: Candidate[]): string | null {
  const byText = scored.find(
    (c) =>
      !c.agreed.exact_identifier &&
      c.agreed.title === "exact" &&
      c.agreed.authors === "agree" &&
      c.agreed.year !== "disagree",
  );
  const byId = scored.find((c) => c.agreed.exact_identifier && c.agreed.title === "none");
  if (!byText || !byId || (byText.source === byId.source && byText.id === byId.id)) return null;
  return `${byId.agreed.exact_identifier} is ${byId.source}:${byId.id} ("${byId.title}"), but the title and authors are those of ${byText.source}:${byText.id} ("${byText.title}").`;
}

async function lookupIdentifiers(
  ctx: AppContext,
  ids: ReturnType<typeof identifiersIn>,
  found: Found[],
  tried: string[],
  arxivLookups?: Map<string, ServedPaper | string>,
): Promise<void> {
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
  }
  for (const id of ids.nber) {
    const paper = await nberPaper(ctx, id);
    if (paper) found.push({ ...paper, exact: `NBER number ${id}` });
    tried.push(`NBER number ${id}: ${paper ? "found" : "not in the NBER mirror or cache"}`);
  }
  const journalDois = ids.dois.filter((doi) => !/^10\.48550\/arxiv\./i.test(doi) && !/^10\.3386\//i.test(doi));
  if (journalDois.length === 0) return;
  if (!ctx.config.ARXIV_MIRROR_ENABLED || !(await mirrorState(ctx.env.DB)).ready) {
    for (const doi of journalDois)
      tried.push(`DOI ${doi}: not looked up (no arXiv mirror to hold journal DOIs; papers-mcp does not ask Crossref)`);
    return;
  }
  for (const doi of journalDois) {
    const rows = await mirrorByDoi(ctx.env.DB.withSession("first-unconstrained"), doi);
    for (const row of rows)
      found.push({ ...fromArxivPaper(rowToPaper(row), `journal DOI ${doi} in the arXiv mirror`), exact: `DOI ${doi}` });
    tried.push(
      `DOI ${doi}: ${rows.length > 0 ? `the journal DOI of arXiv ${rows.map((row) => row.id).join(", ")}` : "no arXiv paper in the mirror carries it (papers-mcp does not ask Crossref)"}`,
    );
  }
}

/** Both mirrors' papers sharing the most of the reference's rarer words (one D1 round trip). */
async function walkMirrors(
  ctx: AppContext,
  words: string[],
  found: Found[],
  tried: string[],
  sources: readonly ("arxiv" | "nber")[],
): Promise<void> {
  if (words.length === 0) return;
  const arxivMirror =
    sources.includes("arxiv") && ctx.config.ARXIV_MIRROR_ENABLED && (await mirrorState(ctx.env.DB)).ready;
  const candidates = await referenceCandidates(
    ctx.env.DB.withSession("first-unconstrained"),
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

/** arXiv titles holding two neighbouring words of the reference (a title of common words; a long title among short ones). */
async function pairArxivTitles(ctx: AppContext, words: string[], found: Found[], tried: string[]): Promise<void> {
  if (!ctx.config.ARXIV_MIRROR_ENABLED || !(await mirrorState(ctx.env.DB)).ready) return;
  const rows = await arxivTitlePairs(
    ctx.env.DB.withSession("first-unconstrained"),
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
async function rankArxiv(
  ctx: AppContext,
  titleWords: string[],
  fields: ReferenceFields,
  found: Found[],
  tried: string[],
): Promise<void> {
  const mirror = ctx.config.ARXIV_MIRROR_ENABLED && (await mirrorState(ctx.env.DB)).ready;
  // Lower-case words only: arXiv's grammar would read AND/OR/NOT and field prefixes.
  const query = mirror
    ? titleWords.slice(0, 30).join(" ")
    : fields.title
      ? contentWords(fields.title).slice(0, 30).join(" ")
      : "";
  if (query.split(" ").length < 2) return;
  try {
    const outcome = await searchPapers(ctx, {
      query,
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      maxResults: RANKER_CANDIDATES,
    });
    const from = "served_from" in outcome.source ? outcome.source.served_from : "live";
    for (const paper of outcome.papers) found.push(fromArxivPaper(paper, `arXiv search (${from})`));
    tried.push(`arXiv search of the reference's words (${from}): ${outcome.papers.length} candidates`);
  } catch (error) {
    if (!(error instanceof PapersError)) throw error;
    tried.push(`arXiv search failed: ${error.reason}`);
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
    how,
  };
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

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Confidence from what the reference's own text says of the candidate. A title found whole with
 * its authors and year agreeing is the paper; the same title by other authors, or years apart, is
 * not; a short title needs authors and year both. An identifier decides unless the text
 * contradicts it (another title, other authors, another year): the signature of an invented reference.
 */
export function score(plain: string, candidate: Found, ids: ReturnType<typeof identifiersIn>): Candidate {
  const title = titleEvidence(plain, candidate.title);
  const authors = authorEvidence(title.rest, candidate.authors, outsideTitle(plain, candidate.title));
  const year = yearEvidence(title.rest, candidate.year);
  const distinctive = title.words >= 4 && compactLength(candidate.title) >= 20;
  let confidence: number;
  if (candidate.exact) {
    const contradicted =
      (authors.kind === "disagree" && authors.names >= 2) ||
      year.kind === "disagree" ||
      (title.kind === "none" && hasOtherTitle(title, candidate, plain));
    confidence = contradicted ? 0.4 : 0.99;
  } else if (title.kind === "exact") {
    if (authors.kind === "disagree" || year.kind === "disagree") confidence = 0.6;
    else if (authors.kind === "agree") confidence = year.kind === "agree" ? 0.98 : year.kind === "absent" ? 0.93 : 0.85;
    else if (!distinctive) confidence = 0.6;
    else confidence = year.kind === "agree" ? 0.9 : year.kind === "absent" ? 0.85 : 0.7;
  } else if (title.kind === "close") {
    confidence = authors.kind === "agree" && year.kind === "agree" ? 0.85 : 0.6;
  } else {
    confidence = Math.min(0.5, 0.5 * title.coverage + (authors.kind === "agree" ? 0.1 : 0));
  }
  // The reference names another paper's identifier: whatever else agrees, this is not the one it cites.
  const citedArxiv = ids.arxiv.map((id) => id.replace(/v\d+$/, ""));
  if (
    (candidate.source === "arxiv" && citedArxiv.length > 0 && !citedArxiv.includes(candidate.id)) ||
    (candidate.source === "nber" && ids.nber.length > 0 && !ids.nber.includes(candidate.id))
  )
    confidence = Math.min(confidence, 0.5);
  return {
    source: candidate.source,
    id: candidate.id,
    title: candidate.title.replace(/\s+/g, " "),
    authors: candidate.authors.slice(0, 5),
    authors_total: candidate.authors.length,
    year: candidate.year,
    doi: candidate.doi,
    version: candidate.version,
    confidence: round(confidence),
    agreed: {
      title: title.kind,
      title_coverage: round(title.coverage),
      authors: authors.kind,
      surnames_matched: `${authors.matched} of ${authors.checked}`,
      year: year.kind,
      year_cited: year.cited,
      exact_identifier: candidate.exact ?? null,
    },
    how: candidate.how,
  };
}

const compactLength = (title: string) => title.replace(/[^\p{L}\p{N}]/gu, "").length;

/** Does the text hold a title other than the identifier's paper's (three or more words that are neither its title's nor names)? */
function hasOtherTitle(title: TitleEvidence, candidate: Found, plain: string): boolean {
  if (title.coverage >= 0.5) return false;
  const own = new Set(contentWords(`${candidate.title} ${candidate.authors.slice(0, 20).join(" ")}`));
  const names = nameWords(plain);
  const other = contentWords(title.rest).filter(
    (word) => word.length >= 3 && !own.has(word) && !BIBLIOGRAPHIC_WORDS.has(word) && !names.has(word),
  );
  return other.length >= 3;
}

/** The reference with the title's words taken out, case kept (for telling names apart). */
function outsideTitle(plain: string, title: string): string {
  const own = new Set(contentWords(title));
  return plain
    .split(/\s+/)
    .filter((word) => {
      const folded = indexWords(word);
      return folded.length === 0 || !folded.every((w) => own.has(w) || STOPWORDS.has(w));
    })
    .join(" ");
}
