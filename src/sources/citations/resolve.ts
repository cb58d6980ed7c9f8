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
import type { ServedPaper } from "../arxiv/paper";
import { readOneEntry } from "./entry-formats";
import { cleanDoi, identifiersIn, withoutIdentifiers } from "./identifiers";
import { parseReference, textOfFields, type ReferenceFields } from "./reference-text";
import { contentWords, nameWords } from "./text-match";
import { parseJournalRefs } from "../../search/journal-ref";
import { lookupCrossref, lookupOpenAlex, type SourceLookup, type Unchecked } from "./resolve-external";
import { withOtherVersions } from "./resolve-versions";
import type { AppContext } from "../../context";
import {
  type Found,
  lookupArxiv,
  lookupIdentifiers,
  lookupJournalRefs,
  pairArxivTitles,
  rankArxiv,
  walkMirrors,
} from "./resolve-candidates";
import { type Candidate, CONSIDERED, MATCH_THRESHOLD, score } from "./resolve-score";

export { lookupArxiv, MATCH_THRESHOLD, score };

export const MAX_REFERENCE_CHARS = 5_000;
export type { Candidate };

export interface Resolution {
  status: "match" | "no_match";
  matches: Candidate[];
  /** Candidates under the threshold, shown so an agent sees why nothing matched; never a match. */
  near_misses: Candidate[];
  /** An identifier in the reference that names another paper than the rest of it, said in words. */
  conflict: string | null;
  parsed: ReferenceFields;
  tried: string[];
  /** Sources that were to be asked and could not be (then no_match means "not found where we could look"). */
  unchecked: Unchecked[];
  /** DOIs in the reference that Crossref answered 404 for. */
  absent_dois?: string[];
  [CONSIDERED]?: readonly Found[];
}

/** What the resolver works from: the reference's text (written from the fields when only fields are given) and its identifiers. */
export interface ReferenceInput {
  text: string;
  fields: ReferenceFields;
  /** The fields were stated (a pasted BibTeX, RIS or CSL-JSON entry, or fields given), not read from free text. */
  structured?: boolean;
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
  return { text, fields, structured: !!structured || input.reference === undefined || !input.reference.trim() };
}

export interface ResolveOptions {
  maxMatches?: number;
  /** arXiv lookups already made for a batch of references (base ID -> paper or miss reason), so that a list costs one lookup. */
  arxivLookups?: Map<string, ServedPaper | string>;
  /** Search only these sources (default both). */
  sources?: readonly ("arxiv" | "nber")[];
  /**
   * The mirrors' title walks only: never arXiv's API, nor the ranker (the last resort, a whole
   * search per reference). The citation graph resolves a page of clean titles at a time, where the
   * walks find what the ranker would (bench:citation-graph: half the time of a page).
   */
  mirrorsOnly?: boolean;
  /** Ask Crossref when no mirror paper verifies (default true; never with mirrorsOnly). */
  external?: boolean;
  /** Epoch ms by which an external lookup must be over (a bibliography's time budget). */
  deadline?: number;
}

export async function resolveReference(
  ctx: AppContext,
  input: ReferenceInput,
  {
    maxMatches = 3,
    arxivLookups,
    sources = ["arxiv", "nber"],
    mirrorsOnly = false,
    external = true,
    deadline,
  }: ResolveOptions = {},
): Promise<Resolution> {
  const tried: string[] = [];
  const unchecked: Unchecked[] = [];
  const absentDois: string[] = [];
  const found: Found[] = [];
  const text = input.text.slice(0, MAX_REFERENCE_CHARS);
  const plain = withoutIdentifiers(text);
  const ids = identifiersIn(
    `${text} ${input.fields.doi ? `doi:${input.fields.doi}` : ""} ${input.fields.arxiv_id ? `arXiv:${input.fields.arxiv_id}` : ""} ` +
      `${input.fields.nber_id ? `NBER Working Paper ${input.fields.nber_id}` : ""}`,
  );
  const gathered = { found, tried, unchecked, absentDois };
  gather(gathered, await lookupIdentifiers(ctx, ids, arxivLookups));
  // Each candidate is scored once, however many walks ask whether one verified yet.
  const scores = new Map<Found, Candidate>();
  const scoreAll = () => {
    const byPaper = new Map<string, Found>();
    for (const candidate of found) {
      const key = `${candidate.source}:${candidate.id}`;
      const held = byPaper.get(key);
      const better = (a: Found, b: Found) => (a.exact ? 2 : a.journal ? 1 : 0) > (b.exact ? 2 : b.journal ? 1 : 0);
      if (!held || better(candidate, held)) byPaper.set(key, candidate);
    }
    return [...byPaper.values()].map((candidate) => {
      let done = scores.get(candidate);
      if (!done) scores.set(candidate, (done = score(plain, candidate, ids, journalRefs)));
      return done;
    });
  };
  const words = contentWords(plain);
  const journalRefs = parseJournalRefs(plain);
  if (!scoreAll().some((c) => c.confidence >= MATCH_THRESHOLD && c.agreed.exact_identifier)) {
    // A journal reference is looked up beside the word walk (in parallel: no round trip added).
    const byJournal: Found[] = [];
    const journalTried: string[] = [];
    await Promise.all([
      walkMirrors(ctx, words, found, tried, sources),
      lookupJournalRefs(ctx, sources.includes("arxiv") ? journalRefs : [], byJournal, journalTried),
    ]);
    found.push(...byJournal);
    tried.push(...journalTried);
    const verified = () => scoreAll().some((c) => c.confidence >= MATCH_THRESHOLD);
    if (!verified() && sources.includes("arxiv")) await pairArxivTitles(ctx, words, found, tried);
    if (!verified() && sources.includes("arxiv") && !mirrorsOnly)
      await rankArxiv(ctx, withoutNames(words, plain), withTitle(input, text), found, tried, unchecked);
  } else tried.push("word search skipped: an identifier matched and the text agrees");
  // Outside the mirrors: only when none of their papers is the one cited.
  if (external && !mirrorsOnly && !scoreAll().some((c) => c.confidence >= MATCH_THRESHOLD)) {
    const ours = new Set(found.flatMap((c) => (c.doi ? [c.doi.toLowerCase()] : [])));
    const dois = ids.dois.filter((doi) => !/^10\.(48550|3386)\//i.test(doi) && !ours.has(doi.toLowerCase()));
    // A plain-text reference has no title field: the title read from its text goes to OpenAlex.
    const title = input.fields.title ?? titleOf(text);
    const query = { plain, dois, journalRefs, ...(deadline ? { deadline } : {}), ...(title ? { title } : {}) };
    const crossref = await lookupCrossref(ctx, query);
    gather(gathered, crossref);
    // OpenAlex holds what Crossref lacks (conference papers without a DOI), not only what it could not answer.
    if (!scoreAll().some((c) => c.confidence >= MATCH_THRESHOLD))
      gather(gathered, await lookupOpenAlex(ctx, query, crossref));
  }

  let scored = scoreAll().sort((a, b) => b.confidence - a.confidence || b.title.length - a.title.length);
  scored = withoutSharedJournalRefs(scored, tried);
  const conflict = identifierConflict(scored);
  if (conflict) scored = scored.map((c) => ({ ...c, confidence: Math.min(c.confidence, 0.5) }));
  const matches = await withOtherVersions(
    ctx,
    scored.filter((candidate) => candidate.confidence >= MATCH_THRESHOLD).slice(0, maxMatches),
    journalRefs,
  );
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
    unchecked: matches.length > 0 ? [] : unchecked,
    ...(absentDois.length > 0 ? { absent_dois: absentDois } : {}),
    [CONSIDERED]: found,
  };
}

/** A source's lookup added to what the resolution has gathered. */
function gather(into: SourceLookup, lookup: Omit<SourceLookup, "absentDois"> & Partial<SourceLookup>): void {
  into.found.push(...lookup.found);
  into.tried.push(...lookup.tried);
  into.unchecked.push(...lookup.unchecked);
  into.absentDois.push(...(lookup.absentDois ?? []));
}

/** The fields with a title: a plain reference's is read from its text (for arXiv's search with no whole mirror). */
function withTitle(input: ReferenceInput, text: string): ReferenceFields {
  const title = input.fields.title ?? titleOf(text);
  return title ? { ...input.fields, title } : input.fields;
}

/**
 * The title read from a plain reference: the first segment of three words or more, unless one of
 * two words comes before it ("Deep learning. Nature." and "Audio-visual segmentation. European
 * Conference on Computer Vision.": the venue after a short title is not the title).
 */
function titleOf(text: string): string | undefined {
  const long = parseReference(text).title;
  const short = parseReference(text, 2).title;
  if (!long || !short) return long ?? short;
  return text.indexOf(short) < text.indexOf(long) ? short : long;
}

/** The words that are not names beside initials: what the arXiv search is given, so that a long author list does not rank by itself. */
function withoutNames(words: string[], plain: string): string[] {
  const names = nameWords(plain);
  return words.filter((word) => !names.has(word));
}

/**
 * Two papers whose own journal reference is the one cited, neither named by its title: the
 * mirror's metadata cannot tell which one the reference means, so neither is vouched for.
 */
function withoutSharedJournalRefs(scored: Candidate[], tried: string[]): Candidate[] {
  const matched = scored.filter((c) => c.confidence >= MATCH_THRESHOLD);
  const byJournalOnly = matched.filter(
    (c) => c.agreed.journal_ref && c.agreed.title === "none" && !c.agreed.exact_identifier,
  );
  if (byJournalOnly.length < 2 || byJournalOnly.length !== matched.length) return scored;
  tried.push(
    `journal reference: ${byJournalOnly.map((c) => `${c.source}:${c.id}`).join(" and ")} both carry it; neither is vouched for`,
  );
  return scored.map((c) => (byJournalOnly.includes(c) ? { ...c, confidence: 0.6 } : c));
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
  return (
    `${byId.agreed.exact_identifier} is ${byId.source}:${byId.id} ("${byId.title}"), ` +
    `but the title and authors are those of ${byText.source}:${byText.id} ("${byText.title}").`
  );
}
