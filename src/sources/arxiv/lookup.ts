// Metadata by ID for tools and resources: parse every spelling, look up, and say exactly why
// each miss missed. Throws only when nothing at all can be answered.
import { arxivReaders } from "../../store/arxiv-shards";
import { PapersError } from "../../errors";
import { mirrorLookup } from "../../store/arxiv-mirror-lookup";
import { mirrorLikelyReady, mirrorStateOf } from "../../store/arxiv-mirror-state";
import { lookupArxivIds, type LookupOutcome } from "./api";
import { rowToPaper } from "./mirror";
import { formatId, parseArxivId, type ArxivId } from "./ids";
import type { ServedPaper } from "./paper";
import type { AppContext } from "../../context";

export const LOOKUP_BATCH = 10;

export type NotFoundReason =
  | "not_in_arxiv"
  | "version_not_served"
  | "live_lookup_failed"
  | "invalid_id"
  | "version_not_in_mirror"
  | "not_yet_harvested";

export interface NotFound {
  id: string;
  reason: NotFoundReason;
  detail: string;
  latest_version?: string;
}

export interface MetadataResult {
  papers: ServedPaper[];
  not_found: NotFound[];
  remaining_ids: string[];
}

export async function getMetadata(ctx: AppContext, inputs: readonly string[]): Promise<MetadataResult> {
  const batch = inputs.slice(0, LOOKUP_BATCH);
  const { papers, not_found: notFound, liveFailure } = await findPapers(ctx, batch);
  if (papers.length === 0) {
    if (notFound.every((miss) => miss.reason === "invalid_id")) {
      const first = parseArxivId(batch[0]);
      throw new PapersError(
        "invalid_id",
        `No well-formed arXiv ID among ${batch.length} given${first.ok ? "" : `: ${JSON.stringify(first.input)} is ${first.problem}`}.`,
        {
          recovery:
            "Use IDs like 2401.12345, 2401.12345v2, hep-th/9901001, arXiv:2401.12345 or an arxiv.org/abs/... link.",
        },
      );
    }
    // Nothing answered because arXiv could not be asked: pass its error on (rate_limited with
    // retry_after_ms is what the agent needs), not a misleading "no match".
    if (liveFailure && notFound.every((miss) => miss.reason === "live_lookup_failed" || miss.reason === "invalid_id"))
      throw liveFailure;
    throw allMissed(notFound);
  }
  return {
    papers: papers.map(({ input: _input, pinned: _pinned, ...paper }) => paper),
    not_found: notFound,
    remaining_ids: inputs.slice(LOOKUP_BATCH),
  };
}

export interface FoundPapers {
  /** In input order, one per distinct paper; `input` is the spelling it was asked by. */
  papers: (ServedPaper & { input: string; pinned: boolean })[];
  not_found: NotFound[];
  /** The error of arXiv's API when a live lookup failed (rate limited, down). */
  liveFailure?: PapersError;
}

/** Every input looked up (mirror, cache, arXiv), each miss with its reason; never throws for misses. */
export async function findPapers(ctx: AppContext, inputs: readonly string[]): Promise<FoundPapers> {
  const parsed = inputs.map((input) => ({ input, parsed: parseArxivId(input) }));
  const valid = new Map<string, ArxivId>();
  for (const { parsed: p } of parsed) if (p.ok) valid.set(formatId(p.id), p.id);
  const outcomes = valid.size === 0 ? new Map<string, Outcome>() : await lookupWithMirror(ctx, [...valid.values()]);
  const papers: FoundPapers["papers"] = [];
  const notFound: NotFound[] = [];
  const seen = new Set<string>();
  let liveFailure: PapersError | undefined;
  for (const { input, parsed: p } of parsed) {
    if (!p.ok) {
      notFound.push({ id: input, reason: "invalid_id", detail: `${JSON.stringify(p.input)} is ${p.problem}.` });
      continue;
    }
    const key = formatId(p.id);
    if (seen.has(key)) continue; // the same paper twice: answer once
    seen.add(key);
    const outcome = outcomes.get(key)!;
    if (outcome.kind === "found")
      papers.push({ ...outcome.paper, ...outcome.source, input, pinned: p.id.version !== undefined });
    else notFound.push(describeMiss(input, p.id, outcome));
    if (outcome.kind === "live_lookup_failed") liveFailure = outcome.error;
  }
  return { papers, not_found: notFound, ...(liveFailure ? { liveFailure } : {}) };
}

type Outcome =
  | LookupOutcome
  | { kind: "version_not_in_mirror"; held: number }
  | { kind: "not_in_mirror"; harvestedTo: string | null }
  | { kind: "not_yet_harvested"; description: string };

/**
 * A whole mirror first (one query for the whole batch), then the cache and arXiv's API for what
 * it does not hold: IDs it lacks, and versions other than the latest it keeps. With
 * ARXIV_MIRROR_FALLBACK_LIVE=false those come back as misses instead.
 * A partial mirror (its first harvest under way) is asked only when arXiv cannot answer, and
 * never says "not in arXiv" for a paper it has not reached.
 */
async function lookupWithMirror(ctx: AppContext, ids: ArxivId[]): Promise<Map<string, Outcome>> {
  const config = ctx.config;
  if (!config.ARXIV_MIRROR_ENABLED) return lookupArxivIds(ctx, ids);
  // The state and the lookup in one round: the lookup is used unless the mirror turns out not to be whole.
  const early = mirrorLikelyReady(ctx.env.DB);
  const lookupAll = () =>
    mirrorLookup(
      arxivReaders(ctx),
      ids.map((id) => id.base),
    );
  const lookup = early ? lookupAll() : undefined;
  lookup?.catch(() => {});
  const state = await mirrorStateOf(ctx);
  if (state.ready)
    return lookupWholeMirror(ctx, ids, state.lastDatestamp, config.ARXIV_MIRROR_FALLBACK_LIVE, lookup ?? lookupAll());
  if (!state.partial) return lookupArxivIds(ctx, ids);
  const outcomes = new Map<string, Outcome>(config.ARXIV_MIRROR_FALLBACK_LIVE ? await lookupArxivIds(ctx, ids) : []);
  const unanswered = ids.filter((id) => {
    const outcome = outcomes.get(formatId(id));
    return outcome === undefined || outcome.kind === "live_lookup_failed";
  });
  if (unanswered.length === 0) return outcomes;
  const held = await (lookup ?? lookupAll());
  for (const id of unanswered) {
    const row = held.get(id.base);
    const paper = row && rowToPaper(row);
    if (paper && (id.version === undefined || id.version === paper.version)) {
      outcomes.set(formatId(id), { kind: "found", paper, source: { served_from: "mirror" } });
    } else if (!outcomes.has(formatId(id))) {
      outcomes.set(formatId(id), { kind: "not_yet_harvested", description: state.partial.description });
    }
  }
  return outcomes;
}

async function lookupWholeMirror(
  ctx: AppContext,
  ids: ArxivId[],
  harvestedTo: string | null,
  fallbackLive: boolean,
  lookup: ReturnType<typeof mirrorLookup>,
): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  const held = await lookup;
  const rest: ArxivId[] = [];
  for (const id of ids) {
    const row = held.get(id.base);
    const paper = row && rowToPaper(row);
    if (paper && (id.version === undefined || id.version === paper.version)) {
      outcomes.set(formatId(id), { kind: "found", paper, source: { served_from: "mirror" } });
    } else if (fallbackLive) {
      rest.push(id);
    } else if (paper) {
      outcomes.set(formatId(id), { kind: "version_not_in_mirror", held: paper.version });
    } else {
      outcomes.set(formatId(id), { kind: "not_in_mirror", harvestedTo });
    }
  }
  if (rest.length > 0) for (const [key, outcome] of await lookupArxivIds(ctx, rest)) outcomes.set(key, outcome);
  return outcomes;
}

function describeMiss(input: string, id: ArxivId, outcome: Exclude<Outcome, { kind: "found" }>): NotFound {
  switch (outcome.kind) {
    case "version_not_in_mirror":
      return {
        id: input,
        reason: "version_not_in_mirror",
        latest_version: `${id.base}v${outcome.held}`,
        detail:
          `The mirror keeps only the latest version it harvested (${id.base}v${outcome.held}), ` +
          `and live lookups are off. Ask for ${id.base} without a version.`,
      };
    case "not_yet_harvested":
      return {
        id: input,
        reason: "not_yet_harvested",
        detail:
          `${outcome.description}; ${id.base} is not in it yet, and arXiv's API was not asked ` +
          `or could not answer. Ask again later, or with live lookups on.`,
      };
    case "not_in_mirror":
      return {
        id: input,
        reason: "not_in_arxiv",
        detail: `The mirror (harvested up to ${outcome.harvestedTo ?? "never"}) has no paper ${id.base}, and live lookups are off.`,
      };
    case "not_in_arxiv":
      return {
        id: input,
        reason: "not_in_arxiv",
        detail:
          id.version === undefined
            ? `arXiv has no paper ${id.base}.`
            : `arXiv has no ${formatId(id)} (the paper or that version does not exist).`,
      };
    case "version_not_served": {
      const latest = outcome.latest.id;
      return {
        id: input,
        reason: "version_not_served",
        latest_version: latest,
        detail:
          `arXiv's API does not serve superseded versions of pre-2007 papers; the latest is ` +
          `${latest}. Ask for ${id.base}, or read this version's PDF at https://arxiv.org/pdf/${formatId(id)}.`,
      };
    }
    case "live_lookup_failed":
      return { id: input, reason: "live_lookup_failed", detail: `${outcome.error.reason}: ${outcome.error.message}` };
  }
}

function allMissed(notFound: NotFound[]): PapersError {
  const reasons = new Set(notFound.map((miss) => miss.reason));
  const details = notFound.map((miss) => `${miss.id}: ${miss.detail}`).join(" ");
  if (reasons.size === 1 && reasons.has("version_not_served")) {
    return new PapersError("version_not_served", details, {
      recovery: "Ask for the IDs without a version to get the latest versions.",
    });
  }
  return new PapersError("no_match", `None of the IDs matched a paper. ${details}`, {
    recovery:
      "Check the IDs (arXiv IDs look like 2401.12345 or hep-th/9901001); search with arxiv_search_papers if you only know the title.",
  });
}
