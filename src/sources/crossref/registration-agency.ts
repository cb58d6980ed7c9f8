// Which agency registered a DOI (doi.org's `/ra/` lookup), asked when Crossref answers 404 for a
// cited DOI: a DOI DataCite, JaLC, mEDRA or another agency registered (a dataset, software, an arXiv
// or Zenodo record) is real, though Crossref has no record of it. Only "DOI does not exist" makes
// it a DOI no one registered. Answers are cached in D1: an agency for 30 days, a DOI that does not
// exist for a day (it may be registered tomorrow).
import { PapersError } from "../../errors";
import { cacheGet, cacheWrite } from "../../store/cache";
import { coalesce } from "../../upstream/coalesce";
import { politeFetch, readTextCapped } from "../../upstream/fetch";
import type { AppContext } from "../../context";

const AGENCY_TTL_MS = 30 * 86_400_000;
const UNKNOWN_TTL_MS = 86_400_000;

/** The agency's name ("DataCite", "Crossref", "JaLC"...), or null when doi.org says the DOI does not exist. */
export async function registrationAgency(ctx: AppContext, doi: string, deadline?: number): Promise<string | null> {
  const key = `doi-ra:${doi.toLowerCase()}`;
  const cached = await cacheGet<{ agency: string | null }>(ctx.env.DB, key);
  if (cached) return cached.value.agency;
  return coalesce(key, async () => {
    // A DOI may hold "<", ">", "#" or "?" (old SICI DOIs): escaped, its slashes kept.
    const path = `/ra/${encodeURI(doi.trim().toWellFormed()).replace(/#/g, "%23").replace(/\?/g, "%3F")}`;
    const response = await politeFetch(ctx, "doi-ra", path, {
      headers: { accept: "application/json" },
      ...(deadline === undefined ? {} : { deadline }),
    });
    const text = await readTextCapped(response, 100_000, "doi.org");
    const agency = response.status === 404 ? null : readAgency(text);
    await cacheWrite(ctx, [{ key, value: { agency }, ttlMs: agency ? AGENCY_TTL_MS : UNKNOWN_TTL_MS }]);
    return agency;
  });
}

/** doi.org answers `[{"DOI": "...", "RA": "DataCite"}]`, or `[{"DOI": "...", "status": "DOI does not exist"}]`. */
function readAgency(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new PapersError("upstream_malformed", "doi.org answered something that is not JSON.", {
      retryable: true,
      recovery: "Retry later.",
      cause: error,
    });
  }
  const first = Array.isArray(body) ? (body[0] as { RA?: unknown; status?: unknown } | undefined) : undefined;
  if (typeof first?.RA === "string" && first.RA.trim()) return first.RA.trim();
  if (typeof first?.status === "string") return null;
  throw new PapersError("upstream_malformed", "doi.org's registration-agency answer names no agency and no status.", {
    retryable: true,
    recovery: "Retry later.",
  });
}
