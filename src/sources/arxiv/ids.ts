// The one arXiv ID parser. Accepts every spelling people paste: new-style (2401.12345, 0704.0001),
// legacy (hep-th/9901001, math.AG/0601001), with or without vN, an "arXiv:" prefix, and arxiv.org
// abs/pdf/html URLs. Returns the canonical ID or a reason it is not one; never throws.
import { LEGACY_ID_ARCHIVES } from "./categories";

export interface ArxivId {
  /** Canonical ID without version: "2401.12345" or "hep-th/9901001". */
  base: string;
  /** Requested version, when the input named one. */
  version?: number;
  style: "new" | "legacy";
}

export type ParsedId = { ok: true; id: ArxivId } | { ok: false; input: string; problem: string };

const MAX_INPUT = 300;
const NEW_STYLE = /^(\d{2})(\d{2})\.(\d{4,5})(?:v(\d{1,4}))?$/;
const LEGACY = /^([a-z][a-z-]*)(?:\.([a-z]{2,}(?:-[a-z]{2,})?))?\/(\d{2})(\d{2})(\d{3})(?:v(\d{1,4}))?$/i;
const URL_FORM =
  /^(?:https?:\/\/)?(?:www\.|export\.)?(?:arxiv\.org|ar5iv\.labs\.arxiv\.org|ar5iv\.org)\/(?:abs|pdf|html|format)\/(.+)$/i;

/** "2401.12345v2" / "hep-th/9901001" : the ID as arXiv writes it. */
export function formatId(id: ArxivId, withVersion = true): string {
  return withVersion && id.version !== undefined ? `${id.base}v${id.version}` : id.base;
}

function currentYymm(now = new Date()): number {
  return (now.getUTCFullYear() % 100) * 100 + now.getUTCMonth() + 1;
}

function fail(input: string, problem: string): ParsedId {
  return { ok: false, input: input.slice(0, 120), problem };
}

export function parseArxivId(raw: unknown): ParsedId {
  if (typeof raw !== "string") return fail(String(raw), "not a string");
  if (raw.length > MAX_INPUT) return fail(raw, `longer than ${MAX_INPUT} characters`);
  let text = raw.trim();
  if (text === "") return fail(raw, "empty");
  // Control characters never belong in an ID (and must not reach a URL).
  if (/[\u0000-\u001f\u007f]/.test(text)) return fail(raw, "contains control characters");

  const url = URL_FORM.exec(text);
  if (url) {
    // Drop query, fragment, trailing slashes and a .pdf suffix: arxiv.org/pdf/2401.12345v2.pdf/
    text = url[1]!
      .replace(/[?#].*$/, "")
      .replace(/\/+$/, "")
      .replace(/\.pdf$/i, "");
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^[\w.-]+\.(?:com|org|net|edu|io)\//i.test(text)) {
    return fail(raw, "a URL, but not an arxiv.org abs, pdf or html link");
  }
  // A bare ID pasted from a URL keeps its trailing slash (physics/0303098/): it is the paper.
  text = text.replace(/^arxiv:\s*/i, "").replace(/\/+$/, "");

  const modern = NEW_STYLE.exec(text);
  if (modern) {
    const [, yy, mm, number, version] = modern;
    const yymm = Number(yy + mm!);
    const month = Number(mm);
    if (month < 1 || month > 12) return fail(raw, `month ${mm} does not exist`);
    if (yymm < 704) return fail(raw, "new-style IDs start in April 2007 (0704); older papers use archive/YYMMNNN");
    if (yymm > currentYymm()) return fail(raw, `${yy}${mm} is a month in the future`);
    if (number!.length === 4 && yymm > 1412)
      return fail(raw, "from 2015 (1501) on, IDs have five digits after the dot");
    if (number!.length === 5 && yymm < 1501) return fail(raw, "before 2015, IDs have four digits after the dot");
    return ok({ base: `${yy}${mm}.${number}`, style: "new" }, version, raw);
  }

  const legacy = LEGACY.exec(text);
  if (legacy) {
    const [, archiveRaw, , yy, mm, number, version] = legacy;
    const archive = archiveRaw!.toLowerCase();
    if (!LEGACY_ID_ARCHIVES.has(archive))
      return fail(raw, `"${archive}" is not an arXiv archive that issued old-style IDs`);
    const month = Number(mm);
    if (month < 1 || month > 12) return fail(raw, `month ${mm} does not exist`);
    const year = Number(yy) >= 91 ? 1900 + Number(yy) : 2000 + Number(yy);
    const yyyymm = year * 100 + month;
    if (yyyymm < 199108 || yyyymm > 200703) return fail(raw, "old-style IDs run from 9108 to 0703");
    if (number === "000") return fail(raw, "paper numbers start at 001");
    // The subject class (math.AG/...) is not part of the ID: math.AG/0601001 is math/0601001.
    return ok({ base: `${archive}/${yy}${mm}${number}`, style: "legacy" }, version, raw);
  }
  return fail(raw, "not an arXiv ID (expected e.g. 2401.12345, 2401.12345v2, hep-th/9901001 or an arxiv.org link)");
}

function ok(id: Omit<ArxivId, "version">, version: string | undefined, raw: string): ParsedId {
  if (version === undefined) return { ok: true, id };
  const n = Number(version);
  if (n < 1) return fail(raw, "versions start at v1");
  return { ok: true, id: { ...id, version: n } };
}
