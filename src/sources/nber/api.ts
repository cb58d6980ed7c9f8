// NBER's search API (JSON), through the NBER gate. Shapes as documented (no recordings exist):
// { totalResults, results: [{ url: "/papers/wNNNNN", title, authors: ["<a ...>Name</a>"], displaydate: "January
// 2024", abstract: "<p>...</p>" }] }
import { decodeHTML } from "entities";
import { z } from "zod";
import { PapersError } from "../../errors";
import { cacheGet, cacheWrite } from "../../store/cache";
import { coalesce } from "../../upstream/coalesce";
import { politeFetch, readTextCapped } from "../../upstream/fetch";
import { parseNberId } from "./ids";
import { paperUrl, plainText, type NberPaper } from "./paper";
import type { AppContext } from "../../context";

const SEARCH_PATH = "/api/v1/working_page_listing/contentType/working_paper/_/_/search";
const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

const resultSchema = z.object({
  url: z.string(),
  title: z.string().default(""),
  authors: z.array(z.string()).default([]),
  displaydate: z.string().nullish(),
  abstract: z.string().nullish(),
});
const responseSchema = z.object({ totalResults: z.coerce.number().int().min(0), results: z.array(z.unknown()) });

export interface NberSearchParams {
  query?: string;
  startDate?: string;
  endDate?: string;
  page: number;
  perPage: 20 | 50 | 100;
  /** Newest first (the cron refresh walks the listing this way). */
  newestFirst?: boolean;
}

/** "February 2025" -> "2025-02"; anything else -> null. */
export function displayDateToMonth(display: string | null | undefined): string | null {
  const match = /^([a-z]+)\s+(\d{4})$/i.exec((display ?? "").trim());
  const month = match ? MONTHS.indexOf(match[1]!.toLowerCase()) : -1;
  return match && month >= 0 ? `${match[2]}-${String(month + 1).padStart(2, "0")}` : null;
}

export interface NberSearchAnswer {
  total: number;
  papers: NberPaper[];
  /** When the answer came from the D1 cache: when NBER gave it. */
  cachedAt?: string;
}

export async function searchNberApi(
  ctx: AppContext,
  params: NberSearchParams,
  deadline?: number,
): Promise<NberSearchAnswer> {
  const query = new URLSearchParams({ page: String(params.page), perPage: String(params.perPage) });
  if (params.query) query.set("q", params.query);
  if (params.startDate) query.set("startDate", params.startDate);
  if (params.endDate) query.set("endDate", params.endDate);
  if (params.newestFirst) query.set("sortBy", "public_date");
  // Under load many clients ask NBER the same search at once: one request, queued on the NBER
  // gate once, answers them all; the answer is then reused for NBER_SEARCH_CACHE_TTL_SECONDS.
  const path = `${SEARCH_PATH}?${query}`;
  const key = `nber:search:${path}`;
  const ttlSeconds = ctx.config.NBER_SEARCH_CACHE_TTL_SECONDS;
  const hit =
    ttlSeconds > 0 && !params.newestFirst
      ? await cacheGet<{ total: number; papers: NberPaper[] }>(ctx.env.DB, key)
      : undefined;
  if (hit) return { ...hit.value, cachedAt: new Date(hit.fetchedAt).toISOString() };
  const answer = await coalesce(key, async () => {
    const response = await politeFetch(ctx, "nber", path, {
      retries: 2,
      passStatuses: [],
      headers: { accept: "application/json" },
      ...(deadline === undefined ? {} : { deadline }),
    });
    const parsed = parseSearchBody(await readTextCapped(response, 5_000_000, "NBER's search API"));
    // The listing walk (newest first) wants what NBER has now; searches are what users repeat.
    if (ttlSeconds > 0 && !params.newestFirst)
      await cacheWrite(ctx, [{ key, value: parsed, ttlMs: ttlSeconds * 1000 }]);
    return parsed;
  });
  return answer;
}

function parseSearchBody(body: string): { total: number; papers: NberPaper[] } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw malformed("not JSON");
  }
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) throw malformed("no totalResults/results");
  const papers: NberPaper[] = [];
  for (const raw of parsed.data.results) {
    const result = resultSchema.safeParse(raw);
    if (!result.success) continue;
    const id = parseNberId(result.data.url.replace(/^\/papers\//, ""));
    if (!id.ok) continue; // not a working paper (a chapter, a digest): skip it
    const abstract = result.data.abstract ? plainText(result.data.abstract, decodeHTML) : "";
    papers.push({
      id: id.id.id,
      title: plainText(result.data.title, decodeHTML),
      authors: result.data.authors.map((author) => plainText(author, decodeHTML)).filter(Boolean),
      date: displayDateToMonth(result.data.displaydate),
      abstract: abstract === "" ? null : abstract,
      url: paperUrl(id.id.id),
    });
  }
  return { total: parsed.data.totalResults, papers };
}

function malformed(what: string): PapersError {
  return new PapersError("upstream_malformed", `NBER's search API answered something unexpected (${what}).`, {
    retryable: true,
    recovery: "Retry later; the mirror answers searches within its date range meanwhile.",
  });
}
