// papers_resolve_reference behind the tool: a reference (free text or fields) -> the real paper
// in arXiv or NBER with a confidence and the fields that agreed, or an honest no_match with what
// was tried. Identifiers (arXiv ID, arXiv/NBER/journal DOI, NBER number) are looked up exactly;
// a title is searched in the arXiv mirror (arXiv's API when there is no mirror) and the NBER
// mirror, and every candidate is scored against everything the reference says.
import { PapersError } from "../../errors";
import { mirrorByDoi } from "../../store/arxiv-mirror-lookup";
import { mirrorState } from "../../store/arxiv-mirror-state";
import { getCachedInfo } from "../../store/nber-cache";
import { mirrorPaper, searchMirror as searchNberMirror } from "../../store/nber-mirror";
import { findPapers } from "../arxiv/lookup";
import { rowToPaper } from "../arxiv/mirror";
import type { ArxivPaper, ServedPaper } from "../arxiv/paper";
import { searchPapers } from "../arxiv/search";
import { parseNberId } from "../nber/ids";
import type { NberPaper, NberPaperInfo } from "../nber/paper";
import { paperUrl } from "../nber/paper";
import { asciiFold, splitName, surnameKey } from "./names";
import {
  cleanDoi,
  identifiersIn,
  parseReference,
  titleSimilarity,
  titleTokens,
  type ReferenceFields,
} from "./reference-text";
import type { AppContext } from "../../context";

/** At or above this, a candidate is a match; below it the answer is no_match. */
export const MATCH_THRESHOLD = 0.8;
export const MAX_REFERENCE_CHARS = 2_000;

export interface Candidate {
  source: "arxiv" | "nber";
  id: string;
  title: string;
  authors: string[];
  year: number | null;
  doi: string | null;
  confidence: number;
  agreed: {
    title_similarity: number | null;
    surnames_matched: string | null;
    year_within_one: boolean | null;
    exact_identifier: string | null;
  };
  how: string;
}

export interface Resolution {
  status: "match" | "no_match";
  matches: Candidate[];
  /** Candidates under the threshold, shown so an agent sees why nothing matched; never a match. */
  near_misses: Candidate[];
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
  how: string;
  exact?: string;
}

export function referenceFields(input: { reference?: string | undefined } & ReferenceFields): ReferenceFields {
  if (input.reference !== undefined && input.reference.length > MAX_REFERENCE_CHARS) {
    throw new PapersError(
      "invalid_argument",
      `The reference is ${input.reference.length} characters; at most ${MAX_REFERENCE_CHARS} are read.`,
      {
        recovery: "Pass one bibliography entry, or its title, authors and year as fields.",
      },
    );
  }
  const parsed = input.reference ? parseReference(input.reference) : {};
  const given = Object.fromEntries(
    Object.entries(input).filter(([key, value]) => key !== "reference" && value !== undefined && value !== ""),
  ) as ReferenceFields;
  const fields: ReferenceFields = { ...parsed, ...given };
  if (given.authors)
    fields.authors = given.authors.map((name) =>
      name.includes(" ") || name.includes(",") ? splitName(name).family : name,
    );
  if (fields.doi) {
    fields.doi = cleanDoi(fields.doi);
    Object.assign(fields, { ...identifiersIn(`doi ${fields.doi}`), ...fields });
  }
  if (!fields.title && !fields.doi && !fields.arxiv_id && !fields.nber_id && !(fields.authors && fields.year)) {
    throw new PapersError(
      "invalid_argument",
      "The reference gives nothing to look up: no title, identifier, or authors with a year could be read from it.",
      {
        recovery: "Pass the entry as it appears in the bibliography, or at least its title.",
      },
    );
  }
  return fields;
}

export interface ResolveOptions {
  maxMatches?: number;
  /** arXiv lookups already made for a batch of references (base ID -> paper or miss reason), so that a list costs one lookup. */
  arxivLookups?: Map<string, ServedPaper | string>;
  /** Search only these sources' titles (default both). */
  sources?: readonly ("arxiv" | "nber")[];
}

export async function resolveReference(
  ctx: AppContext,
  fields: ReferenceFields,
  { maxMatches = 3, arxivLookups, sources = ["arxiv", "nber"] }: ResolveOptions = {},
): Promise<Resolution> {
  const tried: string[] = [];
  const found: Found[] = [];
  await lookupIdentifiers(ctx, fields, found, tried, arxivLookups);
  // An identifier that resolved, to a paper whose title does not contradict the reference, decides: no search needed.
  const decided = found.some((candidate) => score(fields, candidate).confidence >= MATCH_THRESHOLD);
  if (decided) tried.push("title search skipped: an identifier matched");
  else await searchTitle(ctx, fields, found, tried, sources);

  // One candidate per paper, its best evidence kept.
  const byPaper = new Map<string, Found>();
  for (const candidate of found) {
    const key = `${candidate.source}:${candidate.id}`;
    const held = byPaper.get(key);
    if (!held || (candidate.exact && !held.exact)) byPaper.set(key, candidate);
  }
  const scored = [...byPaper.values()]
    .map((candidate) => score(fields, candidate))
    .sort((a, b) => b.confidence - a.confidence);
  const matches = scored.filter((candidate) => candidate.confidence >= MATCH_THRESHOLD).slice(0, maxMatches);
  const near = scored
    .filter((candidate) => candidate.confidence < MATCH_THRESHOLD)
    .slice(0, matches.length > 0 ? 0 : 2);
  return { status: matches.length > 0 ? "match" : "no_match", matches, near_misses: near, parsed: fields, tried };
}

async function lookupIdentifiers(
  ctx: AppContext,
  fields: ReferenceFields,
  found: Found[],
  tried: string[],
  arxivLookups?: Map<string, ServedPaper | string>,
): Promise<void> {
  if (fields.arxiv_id) {
    // A cited version is still the paper: look up the paper (the latest version answers).
    const base = fields.arxiv_id.replace(/v\d+$/, "");
    const outcome = arxivLookups?.get(base) ?? (await lookupArxiv(ctx, [base])).get(base)!;
    if (typeof outcome !== "string")
      found.push({
        ...fromArxivPaper(outcome, `arXiv ID ${fields.arxiv_id} looked up (${outcome.served_from})`),
        exact: `arXiv ID ${fields.arxiv_id}`,
      });
    tried.push(
      typeof outcome !== "string" ? `arXiv ID ${fields.arxiv_id}: found` : `arXiv ID ${fields.arxiv_id}: ${outcome}`,
    );
  }
  if (fields.nber_id) {
    const parsed = parseNberId(fields.nber_id);
    const paper = parsed.ok ? await nberPaper(ctx, parsed.id.id) : undefined;
    if (paper) found.push({ ...paper, exact: `NBER number ${paper.id}` });
    tried.push(`NBER number ${fields.nber_id}: ${paper ? "found" : "not in the NBER mirror or cache"}`);
  }
  const doi = fields.doi;
  if (doi && !/^10\.48550\/arxiv\./i.test(doi) && !/^10\.3386\//i.test(doi)) {
    if (!ctx.config.ARXIV_MIRROR_ENABLED || !(await mirrorState(ctx.env.DB)).ready) {
      tried.push(`DOI ${doi}: not looked up (no arXiv mirror to hold journal DOIs; papers-mcp does not ask Crossref)`);
      return;
    }
    const rows = await mirrorByDoi(ctx.env.DB.withSession("first-unconstrained"), doi);
    for (const row of rows)
      found.push({ ...fromArxivPaper(rowToPaper(row), `journal DOI ${doi} in the arXiv mirror`), exact: `DOI ${doi}` });
    tried.push(
      `DOI ${doi}: ${rows.length > 0 ? `the journal DOI of arXiv ${rows.map((row) => row.id).join(", ")}` : "no arXiv paper in the mirror carries it (papers-mcp does not ask Crossref)"}`,
    );
  }
}

async function searchTitle(
  ctx: AppContext,
  fields: ReferenceFields,
  found: Found[],
  tried: string[],
  sources: readonly ("arxiv" | "nber")[],
): Promise<void> {
  const words = fields.title ? titleTokens(fields.title).slice(0, 30) : [];
  if (words.length < 2) return;
  // Lower-case words only: arXiv's grammar would read AND/OR/NOT and field prefixes.
  const query = words.join(" ");
  await Promise.all([
    sources.includes("arxiv") ? searchArxivTitle(ctx, query, found, tried) : undefined,
    sources.includes("nber") ? searchNberTitle(ctx, query, found, tried) : undefined,
  ]);
}

async function searchArxivTitle(ctx: AppContext, query: string, found: Found[], tried: string[]): Promise<void> {
  try {
    const outcome = await searchPapers(ctx, {
      query,
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      maxResults: 5,
    });
    const from = "served_from" in outcome.source ? outcome.source.served_from : "live";
    for (const paper of outcome.papers) found.push(fromArxivPaper(paper, `title search in arXiv (${from})`));
    tried.push(`title search in arXiv (${from}): ${outcome.papers.length} candidates`);
  } catch (error) {
    if (!(error instanceof PapersError)) throw error;
    tried.push(`title search in arXiv failed: ${error.reason}`);
  }
}

async function searchNberTitle(ctx: AppContext, query: string, found: Found[], tried: string[]): Promise<void> {
  const result = await searchNberMirror(ctx.env.DB, { query, page: 1, perPage: 5 });
  for (const paper of result.papers)
    found.push(fromNberPaper({ ...paper, url: paperUrl(paper.id) }, "title search in the NBER mirror"));
  tried.push(`title search in the NBER mirror: ${result.papers.length} candidates`);
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

/** Confidence from the evidence the reference gives: title 0.7, surnames 0.2, year 0.1; an exact identifier decides unless the title contradicts it. */
export function score(fields: ReferenceFields, candidate: Found): Candidate {
  const similarity = fields.title ? titleSimilarity(fields.title, candidate.title) : null;
  const theirs = new Set(candidate.authors.map((name) => surnameKey(splitName(name))));
  const ours = (fields.authors ?? [])
    .slice(0, 6)
    .map((name) => asciiFold(name).replace(/[^a-z]/g, ""))
    .filter(Boolean);
  const matched = ours.filter(
    (name) => theirs.has(name) || [...theirs].some((other) => other.endsWith(name) || name.endsWith(other)),
  );
  const surnameScore = ours.length === 0 ? null : matched.length / ours.length;
  const yearGap = fields.year !== undefined && candidate.year !== null ? Math.abs(fields.year - candidate.year) : null;
  // arXiv's year is the first version's; a journal's can be a year or two later.
  const yearScore = yearGap === null ? null : yearGap <= 1 ? 1 : yearGap <= 3 ? 0.5 : 0;

  let confidence: number;
  if (candidate.exact) {
    // The identifier exists; a title that says otherwise is the signature of an invented reference.
    confidence = similarity !== null && similarity < 0.5 ? 0.4 : 0.99;
  } else {
    const parts: [number, number][] = [];
    if (similarity !== null) parts.push([0.7, similarity]);
    if (surnameScore !== null) parts.push([0.2, surnameScore]);
    if (yearScore !== null) parts.push([0.1, yearScore]);
    const weight = parts.reduce((sum, [w]) => sum + w, 0);
    confidence = weight === 0 ? 0 : parts.reduce((sum, [w, s]) => sum + w * s, 0) / weight;
    // Without a near-identical title nothing is a match; the same title by other authors is another paper.
    if (similarity === null || similarity < 0.75) confidence = Math.min(confidence, 0.6);
    if (surnameScore === 0) confidence = Math.min(confidence, 0.6);
  }
  // The reference names another paper's identifier: whatever else agrees, this is not the one it cites.
  const citedArxiv = fields.arxiv_id?.replace(/v\d+$/, "");
  if (
    (candidate.source === "arxiv" && citedArxiv && citedArxiv !== candidate.id) ||
    (candidate.source === "nber" && fields.nber_id && fields.nber_id !== candidate.id)
  ) {
    confidence = Math.min(confidence, 0.5);
  }
  return {
    source: candidate.source,
    id: candidate.id,
    title: candidate.title.replace(/\s+/g, " "),
    authors: candidate.authors.slice(0, 5),
    year: candidate.year,
    doi: candidate.doi,
    confidence: round(confidence),
    agreed: {
      title_similarity: similarity === null ? null : round(similarity),
      surnames_matched: ours.length === 0 ? null : `${matched.length} of ${ours.length}`,
      year_within_one: yearGap === null ? null : yearGap <= 1,
      exact_identifier: candidate.exact ?? null,
    },
    how: candidate.how,
  };
}
