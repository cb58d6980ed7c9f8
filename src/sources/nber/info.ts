// nber_get_paper_info: the info cache (TTL from config), else the paper page; the mirror's
// record when NBER cannot be asked. Every lookup is logged, hit or miss.
import { PapersError } from "../../errors";
import { getCachedInfo, putCachedInfo } from "../../store/nber-cache";
import { logInfo } from "../../store/nber-logs";
import { mirrorPaper, upsertMirror } from "../../store/nber-mirror";
import { parseNberId, type NberId } from "./ids";
import { fetchPaperPage } from "./page";
import { paperUrl, PUBLIC_NBER, type NberPaperInfo } from "./paper";
import { fromCache } from "../served-from";
import type { AppContext } from "../../context";

export type ServedInfo = NberPaperInfo & {
  served_from: "cache" | "live" | "mirror";
  cached_at?: string;
  cache_age_seconds?: number;
  notices: string[];
};

export function requireNberId(paperId: string): NberId {
  const parsed = parseNberId(paperId);
  if (!parsed.ok) {
    throw new PapersError("invalid_id", `${JSON.stringify(parsed.input)} is ${parsed.problem}.`, {
      recovery: "Use an NBER working paper ID like w25000 (or 25000), or a https://www.nber.org/papers/w25000 link.",
    });
  }
  return parsed.id;
}

/** The fields include_all adds; without it the answer is the core record. */
function trim(info: NberPaperInfo, includeAll: boolean): NberPaperInfo {
  if (includeAll) return info;
  const { topics: _t, programs: _p, jel_codes: _j, published_version: _v, ...core } = info;
  return core;
}

export async function getNberPaperInfo(
  ctx: AppContext,
  paperId: string,
  options: { includeAll: boolean; refresh: boolean },
): Promise<ServedInfo> {
  const id = requireNberId(paperId);
  const config = ctx.config;
  try {
    if (!options.refresh) {
      const cached = await getCachedInfo<NberPaperInfo>(ctx.env.DB, id.id, config.NBER_INFO_CACHE_TTL_DAYS);
      if (cached) {
        ctx.waitUntil(logInfo(ctx.env.DB, { paperId: id.id, servedFrom: "cache" }));
        return { ...trim(cached.value, options.includeAll), ...fromCache(cached.cachedAt), notices: [] };
      }
    }
    let info: NberPaperInfo | undefined;
    try {
      info = await fetchPaperPage(ctx, id);
    } catch (error) {
      const fallback =
        error instanceof PapersError && error.reason !== "upstream_malformed"
          ? await mirrorPaper(ctx.env.DB, id.id)
          : undefined;
      if (!fallback || !(error instanceof PapersError)) throw error;
      await logInfo(ctx.env.DB, { paperId: id.id, servedFrom: "mirror" });
      return {
        ...fallback,
        url: paperUrl(id.id),
        pdf_url: `${PUBLIC_NBER}/papers/${id.id}.pdf`,
        doi: null,
        served_from: "mirror",
        notices: [
          `NBER could not be asked (${error.reason}); this is the mirror's record, without the page's extra fields.`,
        ],
      };
    }
    if (!info) {
      throw new PapersError("no_match", `NBER has no paper ${id.id}.`, {
        recovery: "Check the number, or find the paper with nber_search_papers.",
      });
    }
    await putCachedInfo(ctx.env.DB, id.id, info);
    await upsertMirror(ctx.env.DB, [{ ...info, source: "page" }]);
    await logInfo(ctx.env.DB, { paperId: id.id, servedFrom: "live" });
    return { ...trim(info, options.includeAll), served_from: "live", notices: [] };
  } catch (error) {
    await logInfo(ctx.env.DB, {
      paperId: id.id,
      servedFrom: null,
      error: error instanceof PapersError ? error.reason : "internal_error",
    });
    throw error;
  }
}
