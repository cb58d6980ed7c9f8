// papers_export_citations behind the tool: up to 50 arXiv and NBER IDs, mixed, looked up where
// our other tools look them up (the arXiv mirror, cache, API; the NBER info cache, mirror, page),
// written as one BibTeX, RIS or CSL-JSON document. A miss is reported beside the entries.
import { PapersError } from "../../errors";
import { getCachedInfo } from "../../store/nber-cache";
import { mirrorPaper } from "../../store/nber-mirror";
import { findPapers, type NotFound } from "../arxiv/lookup";
import { parseArxivId } from "../arxiv/ids";
import type { ServedPaper } from "../arxiv/paper";
import { getNberPaperInfo } from "../nber/info";
import { parseNberId, type NberId } from "../nber/ids";
import { paperUrl, PUBLIC_NBER, type NberPaperInfo } from "../nber/paper";
import { toBibtex } from "./bibtex";
import { toCsl } from "./csl";
import { assignKeys } from "./keys";
import { estimateTokens } from "../text/tokens";
import { citedAuthors, fromArxiv, fromNber, type CitationRecord } from "./record";
import { toRis } from "./ris";
import type { AppContext } from "../../context";

export const EXPORT_MAX_IDS = 50;
export type CitationFormat = "bibtex" | "ris" | "csl-json";

export interface ExportedEntry {
  id: string;
  key: string;
  kind: "arxiv" | "nber";
  title: string;
  source: string;
}

export interface ExportMiss {
  id: string;
  reason: string;
  detail: string;
}

export interface ExportResult {
  format: CitationFormat;
  entries: ExportedEntry[];
  text: string;
  not_found: ExportMiss[];
  /** Found, but left for the next call to keep this answer within EXPORT_TOKEN_BUDGET. */
  remaining_ids: string[];
  /** What was cut to stay within the budget, and where the rest is. */
  notices: string[];
}

/** No export answer is larger than this (estimated tokens; the text is sent once). */
export const EXPORT_TOKEN_BUDGET = 20_000;
/** The answer's own fields and the entries' summaries beside the text. */
const EXPORT_OVERHEAD_TOKENS = 500;
const ENTRY_OVERHEAD_TOKENS = 60;

export async function exportCitations(
  ctx: AppContext,
  ids: readonly string[],
  format: CitationFormat,
  { fullAuthors = false }: { fullAuthors?: boolean } = {},
): Promise<ExportResult> {
  const looked = await lookupRecords(ctx, ids);
  const records = { ...looked, found: looked.found.map((record) => citedAuthors(record, fullAuthors)) };
  const keys = assignKeys(records.found);
  const write = (record: CitationRecord, key: string) =>
    format === "csl-json"
      ? JSON.stringify(toCsl(record, key), null, 2)
      : format === "bibtex"
        ? toBibtex(record, key)
        : toRis(record, key);
  const costOf = (piece: string) => estimateTokens(JSON.stringify(piece)) + ENTRY_OVERHEAD_TOKENS;
  const pieces = records.found.map((record, i) => write(record, keys[i]!));
  const notices: string[] = [];
  // Entries in order while the answer stays within its budget; the first is always given, and a
  // first entry that alone passes it (a whole 2,831-name list) lists the authors that fit.
  const room = EXPORT_TOKEN_BUDGET - EXPORT_OVERHEAD_TOKENS;
  const first = records.found[0];
  if (first && costOf(pieces[0]!) > room) {
    const cut = { ...first, authors: first.authors.slice(0, fittingAuthors(first, costOf(pieces[0]!), room)) };
    records.found[0] = { ...cut, moreAuthors: true };
    pieces[0] = write(records.found[0], keys[0]!);
    notices.push(
      `${first.id} lists its first ${cut.authors.length} of ${first.authors.length} authors and ` +
        `"others", to keep this answer within ${EXPORT_TOKEN_BUDGET.toLocaleString("en-US")} tokens: ` +
        `arxiv_get_metadata with full_authors gives the whole list.`,
    );
  }
  let kept = 0;
  let used = EXPORT_OVERHEAD_TOKENS;
  for (const piece of pieces) {
    const cost = costOf(piece);
    if (kept > 0 && used + cost > EXPORT_TOKEN_BUDGET) break;
    used += cost;
    kept++;
  }
  const found = records.found.slice(0, kept);
  const text =
    format === "csl-json" ? `[\n${pieces.slice(0, kept).join(",\n")}\n]` : `${pieces.slice(0, kept).join("\n\n")}\n`;
  return {
    format,
    entries: found.map((record, i) => ({
      id: record.id,
      key: keys[i]!,
      kind: record.kind,
      title: record.title,
      source: record.source,
    })),
    text: found.length === 0 ? "" : text,
    not_found: records.missed,
    remaining_ids: records.found.slice(kept).map((record) => record.id),
    notices,
  };
}

/** How many of a record's authors fit in `room` tokens, by their average cost in an entry of `cost`. */
function fittingAuthors(record: CitationRecord, cost: number, room: number): number {
  return Math.max(1, Math.floor(record.authors.length * (room / cost) * 0.9));
}

/** The citation records of the IDs, in input order, and a typed miss for each that has none. */
export async function lookupRecords(
  ctx: AppContext,
  ids: readonly string[],
): Promise<{ found: CitationRecord[]; missed: ExportMiss[] }> {
  const slots: ({ record: CitationRecord } | { miss: ExportMiss } | null)[] = ids.map(() => null);
  const arxiv: { index: number; input: string }[] = [];
  const nber: { index: number; id: NberId }[] = [];
  for (const [index, input] of ids.entries()) {
    const parsed = parseNberId(input);
    if (parseArxivId(input).ok) arxiv.push({ index, input });
    else if (parsed.ok) nber.push({ index, id: parsed.id });
    else {
      slots[index] = {
        miss: {
          id: input,
          reason: "invalid_id",
          detail: `${JSON.stringify(input.slice(0, 80))} is neither an arXiv ID (2401.12345, hep-th/9901001) nor an NBER one (w25000).`,
        },
      };
    }
  }

  const [arxivFound, nberFound] = await Promise.all([
    arxiv.length === 0
      ? undefined
      : findPapers(
          ctx,
          arxiv.map((entry) => entry.input),
        ),
    Promise.all(nber.map(async ({ id }) => nberRecord(ctx, id))),
  ]);
  if (arxivFound) {
    const byInput = new Map(arxivFound.papers.map((paper) => [paper.input, paper]));
    const missByInput = new Map(arxivFound.not_found.map((miss: NotFound) => [miss.id, miss]));
    const seen = new Set<string>();
    for (const { index, input } of arxiv) {
      const paper = byInput.get(input);
      if (paper) {
        const record = fromArxiv(paper, paper.pinned, arxivSource(paper));
        if (seen.has(record.id)) continue;
        seen.add(record.id);
        slots[index] = { record };
      } else {
        const miss = missByInput.get(input);
        if (miss) slots[index] = { miss: { id: input, reason: miss.reason, detail: miss.detail } };
      }
    }
  }
  const seenNber = new Set<string>();
  nber.forEach(({ index, id }, i) => {
    const outcome = nberFound[i]!;
    if ("record" in outcome) {
      if (seenNber.has(id.id)) return;
      seenNber.add(id.id);
    }
    slots[index] = "record" in outcome ? outcome : { miss: { id: ids[index]!, ...outcome.miss } };
  });
  const found: CitationRecord[] = [];
  const missed: ExportMiss[] = [];
  for (const slot of slots) {
    if (slot && "record" in slot) found.push(slot.record);
    else if (slot) missed.push(slot.miss);
  }
  return { found, missed };
}

function arxivSource(paper: ServedPaper): string {
  if (paper.served_from === "mirror") return "arXiv metadata mirror (OAI-PMH)";
  if (paper.served_from === "cache") return `arXiv API, cached ${paper.cache_age_seconds ?? 0} s ago`;
  return "arXiv API";
}

/** The NBER info cache, then the NBER mirror, then NBER's paper page. */
async function nberRecord(
  ctx: AppContext,
  id: NberId,
): Promise<{ record: CitationRecord } | { miss: Omit<ExportMiss, "id"> }> {
  const config = ctx.config;
  const cached = await getCachedInfo<NberPaperInfo>(ctx.env.DB, id.id, config.NBER_INFO_CACHE_TTL_DAYS);
  if (cached) return { record: fromNber(cached.value, `NBER paper page, cached ${cached.cachedAt}`) };
  const held = await mirrorPaper(ctx.env.DB, id.id);
  if (held) {
    const info: NberPaperInfo = {
      ...held,
      url: paperUrl(id.id),
      pdf_url: `${PUBLIC_NBER}/papers/${id.id}.pdf`,
      doi: id.series === "w" ? `10.3386/${id.id}` : null,
    };
    return { record: fromNber(info, "NBER metadata mirror") };
  }
  try {
    const info = await getNberPaperInfo(ctx, id.id, { includeAll: true, refresh: false });
    return { record: fromNber(info, "NBER paper page") };
  } catch (error) {
    if (!(error instanceof PapersError)) throw error;
    return {
      miss: { reason: error.reason === "no_match" ? "not_in_nber" : "live_lookup_failed", detail: error.message },
    };
  }
}
