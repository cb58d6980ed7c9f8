// The resolver's last steps, for a reference no mirror paper verifies: Crossref, which registers
// the DOIs of most journal articles, books and proceedings (a DOI in the text is looked up
// exactly; otherwise the whole text goes to query.bibliographic); then, when none of Crossref's
// works verifies, OpenAlex (its key configured): a title search, one list call of the day's
// allowance. OpenAlex holds what Crossref does not: conference papers without a DOI (ICLR, ICML,
// NeurIPS). When Crossref failed, OpenAlex stands in only for a failure of Crossref's own (an
// answer of its, or a request sent and timed out), at most OPENALEX_FALLBACKS_PER_CALL times a
// call; never for our own gate's refusal, the call's time or its budget. Every work either
// proposes is checked against the text like a mirror paper (title inside it, authors, year; or its
// journal reference with an author). A source that cannot be reached is reported as unchecked,
// with the reason and when to retry, so that no_match is never said of a source that was not asked.
import { CallBudgetSpent } from "../../call-budget";
import { PapersError } from "../../errors";
import { describeJournalRef, journalKey, type JournalRef, sameArticle } from "../../search/journal-ref";
import { registrationAgency } from "../crossref/registration-agency";
import { crossrefCandidates, crossrefWork } from "../crossref/works";
import type { ExternalWork } from "../external-work";
import { openAlexTitleSearch } from "../openalex/reference-search";
import type { Found } from "./resolve-candidates";
import { titleEvidence } from "./text-match";
import { GateRefusal } from "../../upstream/fetch";
import type { AppContext, CallScope } from "../../context";

/** A source that was to be asked and could not be: the answer says so instead of no_match. */
export interface Unchecked {
  /** doi-ra: doi.org's registration-agency lookup (a DOI Crossref lacks could not be placed, or another agency holds its record). */
  source: "arxiv" | "nber" | "crossref" | "openalex" | "doi-ra";
  reason: string;
  retry_after_ms: number | null;
}

/**
 * What one source's lookup came back with: the works it found, what it tried, what it could not
 * ask (and why), and the cited DOIs it answered "no such DOI" for. Each lookup returns its own, so
 * that a failure cannot be lost in a list another lookup fills.
 */
export interface SourceLookup {
  found: Found[];
  tried: string[];
  unchecked: Unchecked[];
  absentDois: string[];
}

const emptyLookup = (): SourceLookup => ({ found: [], tried: [], unchecked: [], absentDois: [] });

export interface ExternalQuery {
  /** The reference's text without its identifiers. */
  plain: string;
  /** Journal DOIs the text cites that no mirror paper carries. */
  dois: readonly string[];
  /** Journal references read from the text. */
  journalRefs: readonly JournalRef[];
  /** Epoch ms by which the lookups must be over (a bibliography's time budget). */
  deadline?: number;
  /** The title read from the reference, for OpenAlex's title search. */
  title?: string;
}

/** Crossref's lookup, and the error that stopped it (null: it answered, or was not to be asked). */
export interface CrossrefLookup extends SourceLookup {
  failure: PapersError | null;
}

/**
 * OpenAlex stands in for Crossref's own failures at most this often in one call: with Crossref down,
 * a 200-entry bibliography spends 10 of the day's OpenAlex list calls, not 200.
 */
export const OPENALEX_FALLBACKS_PER_CALL = 10;

/** Fallbacks taken per call (the scope lives as long as its call). */
const fallbacksTaken = new WeakMap<CallScope, number>();

export async function lookupCrossref(ctx: AppContext, query: ExternalQuery): Promise<CrossrefLookup> {
  const lookup: CrossrefLookup = { ...emptyLookup(), failure: null };
  const { found, tried, unchecked } = lookup;
  if (!ctx.config.CROSSREF_ENABLED) {
    tried.push("Crossref: not asked (CROSSREF_ENABLED=false)");
    // Not asked is not "not there": the answer cannot be not_found while Crossref may hold the work.
    unchecked.push({ source: "crossref", reason: "not_configured", retry_after_ms: null });
    return lookup;
  }
  try {
    for (const doi of query.dois.slice(0, 2)) {
      const work = await crossrefWork(ctx, doi, query.deadline);
      if (work) tried.push(`Crossref DOI ${doi}: found`);
      else await lookupAgency(ctx, doi, query.deadline, lookup);
      if (work)
        found.push({ ...fromWork("crossref", work, `Crossref work ${doi}`, query.journalRefs), exact: `DOI ${doi}` });
    }
    // A DOI with a typo names another work: when the text gives a title that is not the DOI's work's, the
    // reference's own work is looked for by its words too.
    const byDoi = found.filter((c) => c.source === "crossref" && c.exact);
    if (byDoi.length > 0 && (!query.title || byDoi.some((c) => titleEvidence(query.plain, c.title).kind !== "none")))
      return lookup;
    const works = await crossrefCandidates(ctx, query.plain, query.deadline);
    for (const work of works)
      found.push(fromWork("crossref", work, "Crossref's candidates for the reference", query.journalRefs));
    tried.push(`Crossref (query.bibliographic): ${works.length} candidates`);
  } catch (error) {
    if (!(error instanceof PapersError)) throw error;
    lookup.failure = error;
    unchecked.push({ source: "crossref", reason: error.reason, retry_after_ms: error.retryAfterMs ?? null });
    tried.push(
      `Crossref: unchecked (${error.reason}${error.retryAfterMs ? `, retry after ${Math.ceil(error.retryAfterMs / 1000)} s` : ""})`,
    );
  }
  return lookup;
}

/**
 * A cited DOI Crossref does not hold: another agency may have registered it (DataCite for datasets,
 * software, arXiv and Zenodo; JaLC; mEDRA). Only doi.org's "does not exist" makes it absent.
 */
async function lookupAgency(ctx: AppContext, doi: string, deadline: number | undefined, lookup: SourceLookup) {
  try {
    const agency = await registrationAgency(ctx, doi, deadline);
    if (agency === null) {
      lookup.tried.push(`DOI ${doi}: no such DOI (not in Crossref; doi.org: does not exist)`);
      lookup.absentDois.push(doi);
    } else {
      // A real DOI whose record another agency keeps (not read here): what it names cannot be checked.
      lookup.tried.push(`DOI ${doi}: registered at ${agency}, not in Crossref`);
      if (!/^crossref$/i.test(agency))
        lookup.unchecked.push({
          source: "doi-ra",
          reason: `registered_at_${agency.toLowerCase()}`,
          retry_after_ms: null,
        });
    }
  } catch (error) {
    if (!(error instanceof PapersError)) throw error;
    // Unknown either way: the DOI is neither vouched for nor called absent, and the entry cannot be verified.
    lookup.tried.push(`DOI ${doi}: not in Crossref; its registration agency could not be asked (${error.reason})`);
    lookup.unchecked.push({ source: "doi-ra", reason: error.reason, retry_after_ms: error.retryAfterMs ?? null });
  }
}

/**
 * OpenAlex's title search, when no work of Crossref's verifies (and a key is configured); after a
 * Crossref failure only when the failure was Crossref's own, within the call's fallbacks.
 */
export async function lookupOpenAlex(
  ctx: AppContext,
  query: ExternalQuery,
  crossref: CrossrefLookup,
): Promise<SourceLookup> {
  const lookup = emptyLookup();
  const { found, tried, unchecked } = lookup;
  if (!ctx.config.OPENALEX_RESOLVE_ENABLED || !ctx.config.OPENALEX_API_KEY) {
    tried.push("OpenAlex: not asked (OPENALEX_RESOLVE_ENABLED=false or no OPENALEX_API_KEY)");
    unchecked.push({ source: "openalex", reason: "not_configured", retry_after_ms: null });
    return lookup;
  }
  const title = query.title
    // "," and "|" are OpenAlex's filter syntax; a colon inside the value is read as text.
    ?.replace(/[,|]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  // Two words are a title ("Multi-Swap k-Means++"); one is not enough to search by.
  if (!title || title.split(" ").length < 2 || title.replace(/[^\p{L}\p{N}]/gu, "").length < 8) {
    tried.push("OpenAlex: not asked (no title could be read from the reference)");
    return lookup;
  }
  const notAsked = reasonNotToAsk(ctx, query, crossref.failure);
  if (notAsked) {
    tried.push(`OpenAlex: not asked (${notAsked.why})`);
    unchecked.push({ source: "openalex", reason: notAsked.reason, retry_after_ms: notAsked.retryAfterMs });
    return lookup;
  }
  try {
    const works = await openAlexTitleSearch(ctx, title, query.deadline);
    for (const work of works) found.push(fromWork("openalex", work, "OpenAlex's title search", query.journalRefs));
    tried.push(`OpenAlex (title search): ${works.length} candidates`);
  } catch (error) {
    if (!(error instanceof PapersError)) throw error;
    unchecked.push({ source: "openalex", reason: error.reason, retry_after_ms: error.retryAfterMs ?? null });
    tried.push(`OpenAlex: unchecked (${error.reason})`);
  }
  return lookup;
}

/**
 * Why OpenAlex is not to be asked now, if it is not: the call's time is up; Crossref was not asked
 * because of us (our gate's queue or the client's share of it, the call's time or budget), which
 * OpenAlex cannot mend; or the call's fallbacks for Crossref's own failures are used up.
 */
function reasonNotToAsk(
  ctx: AppContext,
  query: ExternalQuery,
  failure: PapersError | null,
): { why: string; reason: string; retryAfterMs: number | null } | null {
  const deadline = Math.min(
    query.deadline ?? Number.POSITIVE_INFINITY,
    ctx.call?.budget.deadline ?? Number.POSITIVE_INFINITY,
  );
  if (Date.now() >= deadline) return { why: "this call's time is up", reason: "timeout", retryAfterMs: null };
  if (!failure) return null;
  if (!crossrefItselfFailed(failure))
    return {
      why: `Crossref was not asked: ${failure.reason}, on this server's side`,
      reason: failure.reason,
      retryAfterMs: failure.retryAfterMs ?? null,
    };
  const call = ctx.call;
  if (!call) return null;
  const taken = fallbacksTaken.get(call) ?? 0;
  if (taken >= OPENALEX_FALLBACKS_PER_CALL)
    return {
      why: `this call has stood OpenAlex in for Crossref's failures ${OPENALEX_FALLBACKS_PER_CALL} times already`,
      reason: "fallback_limit",
      retryAfterMs: failure.retryAfterMs ?? null,
    };
  fallbacksTaken.set(call, taken + 1);
  return null;
}

/**
 * A failure of Crossref's own: it answered 5xx, 429 or something unreadable, or a request sent to
 * it timed out; a cooldown of our gate follows its 429. Not: our gate's refusal (queue full, the
 * client's share), the call's time running out before sending, or the call's budget.
 */
function crossrefItselfFailed(error: PapersError): boolean {
  if (error instanceof CallBudgetSpent) return false;
  if (error instanceof GateRefusal) return error.kind === "cooldown";
  return true;
}

/** A Crossref or OpenAlex work as a candidate, with the journal reference in the text that names it. */
function fromWork(
  source: "crossref" | "openalex",
  work: ExternalWork,
  how: string,
  cited: readonly JournalRef[],
): Found {
  const journal = cited.find((ref) => sameWorkArticle(ref, work));
  return {
    source,
    id: work.doi,
    title: work.title,
    authors: work.authors,
    year: work.year,
    ...(work.years && work.years.length > 1 ? { years: work.years } : {}),
    ...(work.people && work.people.length > 0 ? { people: work.people } : {}),
    // OpenAlex names a work without a DOI by its own address: an ID, not a DOI.
    doi: /^10\./.test(work.doi) ? work.doi : null,
    version: null,
    how,
    ...(journal ? { journal: describeJournalRef(journal) } : {}),
    venue: {
      type: work.type,
      container: work.container,
      ...(work.containers && work.containers.length > 1 ? { containers: work.containers } : {}),
      volume: work.volume,
      issue: work.issue,
      page: work.page,
      publisher: work.publisher,
    },
  };
}

/** Does a journal reference in the text name this work (journal, volume and first page)? */
export function sameWorkArticle(ref: JournalRef, work: ExternalWork): boolean {
  if (!work.volume || !work.page) return false;
  const page = work.page
    .split("-")[0]!
    .replace(/^0+(?=[0-9A-Za-z])/, "")
    .toUpperCase();
  const volume = work.volume.replace(/^0+(?=\d)/, "");
  return [work.container_short, work.container].some(
    (name) =>
      name !== null &&
      sameArticle(ref, { ...ref, key: journalKey(name), volume, page, journal: name, volume_written: volume }),
  );
}
