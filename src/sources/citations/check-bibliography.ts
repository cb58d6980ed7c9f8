// papers_check_bibliography behind the tool: every entry of a bibliography (.bib, RIS, CSL-JSON or
// a plain list) resolved like papers_resolve_reference, then judged against the record:
// verified (with a BibTeX entry written from the record), differs (which fields, with the
// record's values), not_found (what was tried: the mirrors and Crossref), unchecked (a source
// that could not be asked, and when to retry) or unreadable (why). The arXiv IDs of all entries
// are looked up in one go, so a bibliography whose papers the mirrors hold asks no upstream; the
// rest go to Crossref through its crawl gate, within the call's time budget.
import { PapersError } from "../../errors";
import { noProgress, throttled, type ReportProgress } from "../../progress";
import { estimateTokens } from "../text/tokens";
import { toBibtex, workToBibtex } from "./bibtex";
import { type BibliographyFormat, readBibliography, type ReadEntry } from "./entry-formats";
import { lookupRecords } from "./export";
import { identifiersIn } from "./identifiers";
import { assignKeys } from "./keys";
import { citedAuthors } from "./record";
import { type Candidate, lookupArxiv, type Resolution, resolveReference } from "./resolve";
import { sameTitle } from "./claims";
import {
  claimsOf,
  type Difference,
  differencesFrom,
  type EntryEvidence,
  isCouldNotAsk,
  nberArticleDifference,
  publishedVersion,
} from "./entry-differences";
import { CONSIDERED, RECORD } from "./resolve-score";
import type { Unchecked } from "./resolve-external";
import { mapLimited } from "./map-limited";
import type { AppContext } from "../../context";
import { type BudgetUnchecked, firstBudgetUnchecked, type InFlight, withinBudget } from "./bibliography-budget";

export type { Difference };
export type { BudgetUnchecked };

export const MAX_ENTRIES = 200;
export const MAX_BIBLIOGRAPHY_CHARS = 250_000;
const RESOLVE_CONCURRENCY = 6;
/** Lookups outside the mirrors stop this long after a call starts; the entries left are unchecked. */
export const EXTERNAL_BUDGET_MS = 20_000;

export type Verdict = "verified" | "differs" | "not_found" | "unchecked" | "unreadable";

export interface CheckedEntry {
  n: number;
  verdict: Verdict;
  /** The record: "arxiv:0704.0001", "nber:w4679" or "crossref:10.1007/..." (verified and differs). */
  id?: string;
  title?: string;
  confidence?: number;
  differences?: Difference[];
  /** A BibTeX entry written from the record (verified and differs, while the answer's budget lasts). */
  bibtex?: string;
  tried?: string[];
  /** unchecked: the sources that could not be asked, why, and when to retry (or where to start again). */
  unchecked?: (Unchecked | BudgetUnchecked)[];
  why?: string;
  /** The same reference as an earlier entry. */
  duplicate_of?: number;
  /** A Crossref or OpenAlex work that is also an arXiv or NBER paper: "arxiv:0704.0251". */
  also?: string[];
}

export interface BibliographyCheck {
  format: BibliographyFormat;
  /** Counts over the entries of this answer; `entries` is how many the bibliography has. */
  summary: Record<Verdict, number> & { entries: number };
  entries: CheckedEntry[];
  /** Where the next call starts when the token budget cut this answer short. */
  next_start: number | null;
  notices: string[];
}

export async function checkBibliography(
  ctx: AppContext,
  text: string,
  {
    format,
    maxTokens,
    start = 0,
    progress = noProgress,
  }: { format?: BibliographyFormat; maxTokens: number; start?: number; progress?: ReportProgress },
): Promise<BibliographyCheck> {
  const all = readBibliography(text, format);
  if (all.length === 0)
    throw new PapersError("invalid_argument", "No entry could be found in the bibliography.", {
      recovery: "Pass a .bib file's text, RIS, CSL-JSON, or references one per line or numbered.",
    });
  if (all.length > MAX_ENTRIES)
    throw new PapersError(
      "invalid_argument",
      `The bibliography has ${all.length} entries; at most ${MAX_ENTRIES} are checked in one call.`,
      {
        recovery: `Split it into calls of at most ${MAX_ENTRIES} entries.`,
      },
    );
  if (start >= all.length)
    throw new PapersError("invalid_argument", `start ${start} is past the last entry (${all.length}).`, {
      recovery: "Start from 0, or from the next_start an answer gave.",
    });
  const detected = all[0]!.format;
  const read = all.slice(start);
  // All entries' arXiv IDs in one lookup (one API request at most for those the mirror lacks).
  const cited = read.flatMap((entry) => (entry.problem ? [] : identifiersIn(entry.text).arxiv));
  const arxivLookups = await lookupArxiv(ctx, [...new Set(cited.map((id) => id.replace(/v\d+$/, "")))]);
  const report = throttled(progress);
  let done = 0;
  const firstSeen = new Map<string, number>();
  const budget = ctx.call?.budget;
  const deadline = Math.min(Date.now() + EXTERNAL_BUDGET_MS, budget?.deadline ?? Number.POSITIVE_INFINITY);
  const works = new Map<string, Candidate>();
  const inFlight: InFlight = { count: 0, waiting: [] };
  const checked = await mapLimited(read, RESOLVE_CONCURRENCY, async (entry, i): Promise<CheckedEntry> => {
    const result = await withinBudget(ctx, entry, start + i, inFlight, () =>
      checkEntry(ctx, entry, arxivLookups, deadline, works),
    );
    done++;
    report(`${done} of ${read.length} entries checked`, done, read.length);
    return result;
  });
  for (const [i, entry] of checked.entries()) {
    const key = entry.id ?? normalised(read[i]!.text);
    if (!key) continue;
    const first = firstSeen.get(key);
    if (first !== undefined) {
      entry.duplicate_of = first;
      delete entry.title;
    } else firstSeen.set(key, entry.n);
  }
  // The budget: entries in order while they fit (counted twice: the answer carries them in its
  // text and in its structured content), then BibTeX for them while it lasts.
  const notices: string[] = [];
  let used = 300;
  let kept = 0;
  for (const entry of checked) {
    const cost = estimateTokens(JSON.stringify(entry)) * 2;
    if (kept > 0 && used + cost > maxTokens) break;
    used += cost;
    kept++;
  }
  const entries = checked.slice(0, kept);
  const tokenCut = kept < checked.length ? start + kept : null;
  const budgetCut = firstBudgetUnchecked(entries);
  const nextStart = budgetCut ?? tokenCut;
  if (budgetCut !== null)
    notices.push(
      `This call's budget (D1 queries, subrequests or time; CALL_MAX_*) ran out at entry ${budgetCut + 1}: the ` +
        `entries marked call_budget were not checked. Call again with start=${budgetCut}.`,
    );
  else if (tokenCut !== null)
    notices.push(
      `Entries ${tokenCut + 1}-${all.length} are not in this answer (its budget is ${maxTokens} ` +
        `tokens): call again with start=${tokenCut}.`,
    );
  // Every BibTeX is written from its record alone: an NBER paper cited as a journal article gets the
  // working paper's entry (with the published version NBER's page names, when cached), never the
  // volume and pages the entry gave.
  notices.push(...(await attachBibtex(ctx, entries, maxTokens - used, works)));
  const summary = { entries: all.length, verified: 0, differs: 0, not_found: 0, unchecked: 0, unreadable: 0 };
  for (const entry of entries) summary[entry.verdict]++;
  return { format: detected, summary, entries, next_start: nextStart, notices };
}

const normalised = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

async function checkEntry(
  ctx: AppContext,
  entry: ReadEntry,
  arxivLookups: Awaited<ReturnType<typeof lookupArxiv>>,
  deadline: number,
  works: Map<string, Candidate>,
): Promise<CheckedEntry> {
  if (entry.problem) return { n: entry.n, verdict: "unreadable", why: entry.problem };
  if (entry.text.replace(/[^\p{L}]/gu, "").length < 4 && identifiersIn(entry.text).arxiv.length === 0)
    return { n: entry.n, verdict: "unreadable", why: "the entry has no words or identifier to look up" };
  let resolution: Awaited<ReturnType<typeof resolveReference>>;
  try {
    resolution = await resolveReference(
      ctx,
      { text: entry.text, fields: entry.fields },
      { maxMatches: 1, arxivLookups, deadline },
    );
  } catch (error) {
    if (error instanceof PapersError && error.reason === "invalid_argument")
      return { n: entry.n, verdict: "unreadable", why: error.message };
    throw error;
  }
  const ids = identifiersIn(entry.text);
  // A structured entry states its fields: each is compared with the record's (claims.ts).
  const claims = entry.format === "text" ? undefined : claimsOf(entry.fields);
  const absent = resolution.absent_dois ?? [];
  const best = resolution.matches[0];
  if (best) {
    const published = await publishedVersion(ctx, best, claims, deadline);
    // A structured entry's journal, volume and pages, written as a journal reference for the NBER article check.
    const f = entry.fields;
    const cited = f.venue && f.volume && f.pages ? `${entry.text} ${f.venue} ${f.volume}, ${f.pages}` : entry.text;
    const article = isCouldNotAsk(published) ? null : await nberArticleDifference(ctx, best, cited, deadline);
    const failed = isCouldNotAsk(published) ? published : isCouldNotAsk(article) ? article : null;
    if (failed)
      return {
        n: entry.n,
        verdict: "unchecked",
        id: `${best.source}:${best.id}`,
        title: best.title,
        tried: [...resolution.tried, `${failed.unchecked.source}: unchecked (a field cited could not be checked)`],
        unchecked: [failed.unchecked],
      };
    const considered = resolution[CONSIDERED] ?? [];
    const differences = differencesFrom(best, {
      ids,
      text: entry.text,
      claims,
      absentDois: absent,
      published: isCouldNotAsk(published) ? null : published,
      considered,
    });
    if (article && !isCouldNotAsk(article) && !differences.some((d) => d.field === "journal_ref"))
      differences.push(article);
    if (best.source === "crossref" || best.source === "openalex") works.set(`${best.source}:${best.id}`, best);
    const also = (best.also ?? []).filter((v) => v.source !== "doi").map((v) => `${v.source}:${v.id}`);
    return {
      n: entry.n,
      verdict: differences.length > 0 ? "differs" : "verified",
      id: `${best.source}:${best.id}`,
      title: best.title,
      confidence: best.confidence,
      ...(differences.length > 0 ? { differences } : {}),
      ...(also.length > 0 ? { also } : {}),
    };
  }
  const judged = await judgeNearMiss(
    ctx,
    entry,
    resolution,
    { ids, text: entry.text, claims, absentDois: absent },
    deadline,
    works,
  );
  if (judged) return judged;
  const tried = resolution.conflict ? [resolution.conflict, ...resolution.tried] : resolution.tried;
  if (resolution.unchecked.length > 0)
    return { n: entry.n, verdict: "unchecked", tried, unchecked: resolution.unchecked };
  return { n: entry.n, verdict: "not_found", tried };
}

/**
 * No match, but a near miss that is plainly the record meant: its whole title with its authors or
 * its year, nearly its title (one that runs on, a word changed) by its authors, or (fields stated)
 * the cited title itself. It differs in what the comparison finds; an entry whose stated fields
 * all agree with it is verified (the text's heuristics missed it: a surname such as "An" reads as
 * a word). Null when no near miss is the record meant.
 */
async function judgeNearMiss(
  ctx: AppContext,
  entry: ReadEntry,
  resolution: Resolution,
  evidence: EntryEvidence,
  deadline: number,
  works: Map<string, Candidate>,
): Promise<CheckedEntry | null> {
  const claims = evidence.claims;
  const near = resolution.near_misses.find(
    (c) =>
      (c.agreed.title === "exact" &&
        (c.agreed.authors === "agree" || c.agreed.year === "agree") &&
        !(c.agreed.exact_identifier && c.confidence <= 0.4)) ||
      (c.agreed.title === "close" && c.agreed.authors === "agree") ||
      (claims?.title !== undefined && sameTitle(claims.title, c.title)),
  );
  if (!near) return null;
  const published = await publishedVersion(ctx, near, claims, deadline);
  const differences = differencesFrom(near, {
    ...evidence,
    published: isCouldNotAsk(published) ? null : published,
    considered: resolution[CONSIDERED] ?? [],
  });
  const id = `${near.source}:${near.id}`;
  if (differences.length > 0)
    return { n: entry.n, verdict: "differs", id, title: near.title, confidence: near.confidence, differences };
  // Verified only on enough stated fields: the title and its authors, or a distinctive title and its year.
  const distinctive = (claims?.title ?? "").split(/\s+/).length >= 4 && (claims?.title ?? "").length >= 20;
  if (!claims?.title || !(claims.authors || (claims.year && distinctive))) return null;
  if (isCouldNotAsk(published) || !near[RECORD]) return null;
  if (near.source === "crossref" || near.source === "openalex") works.set(id, near);
  return { n: entry.n, verdict: "verified", id, title: near.title, confidence: 0.9 };
}

/** BibTeX written from the records, in entry order, while it fits in what is left of the budget. */
async function attachBibtex(
  ctx: AppContext,
  entries: CheckedEntry[],
  budget: number,
  works: Map<string, Candidate>,
): Promise<string[]> {
  const notices: string[] = [];
  const wanted = [
    ...new Set(
      entries.flatMap((entry) =>
        entry.id && /^(arxiv|nber):/.test(entry.id) ? [entry.id.replace(/^(arxiv|nber):/, "")] : [],
      ),
    ),
  ];
  const { found } = wanted.length > 0 ? await lookupRecords(ctx, wanted) : { found: [] };
  const shortened = found.map((record) => citedAuthors(record));
  const keys = assignKeys(shortened);
  const bibtexById = new Map(shortened.map((record, i) => [record.id, toBibtex(record, keys[i]!)]));
  // Works outside the mirrors: written from what Crossref holds of them.
  for (const [id, work] of works) bibtexById.set(id, workToBibtex(work));
  let used = 0;
  let omitted = 0;
  for (const entry of entries) {
    const id = entry.id?.replace(/^(arxiv|nber):/, "");
    const bibtex = id ? bibtexById.get(id) : undefined;
    if (!bibtex) continue;
    const cost = estimateTokens(bibtex) * 2;
    if (used + cost > budget) {
      omitted++;
      continue;
    }
    entry.bibtex = bibtex;
    used += cost;
  }
  if (omitted > 0)
    notices.push(
      `BibTeX left out for ${omitted} entries to keep the answer within its token budget: pass their ` +
        `IDs to papers_export_citations, or raise max_tokens.`,
    );
  return notices;
}
