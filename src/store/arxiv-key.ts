// The mirror's primary key, computed from an arXiv ID so that key order is submission order:
//   key = month index * 1,000,000 + position within the month
// month index = year * 12 + (month - 1) of the ID's YYMM. Within a month, old-style IDs
// (archive/YYMMNNN) take archive index * 1,000 + NNN, and new-style IDs (YYMM.NNNNN) take
// 100,000 + number, after every old-style one (old IDs ended in 0703, new began in 0704 anyway).
// The archive list is frozen: keys are stored, so it may only ever be appended to.
const LEGACY_ARCHIVES = [
  "acc-phys",
  "adap-org",
  "alg-geom",
  "ao-sci",
  "astro-ph",
  "atom-ph",
  "bayes-an",
  "chao-dyn",
  "chem-ph",
  "cmp-lg",
  "comp-gas",
  "cond-mat",
  "cs",
  "dg-ga",
  "funct-an",
  "gr-qc",
  "hep-ex",
  "hep-lat",
  "hep-ph",
  "hep-th",
  "math",
  "math-ph",
  "mtrl-th",
  "nlin",
  "nucl-ex",
  "nucl-th",
  "patt-sol",
  "physics",
  "plasm-ph",
  "q-alg",
  "q-bio",
  "quant-ph",
  "solv-int",
  "supr-con",
] as const;
const ARCHIVE_INDEX = new Map<string, number>(LEGACY_ARCHIVES.map((archive, index) => [archive, index + 1]));

const MONTH = 1_000_000;
const NEW_STYLE_OFFSET = 100_000;

function monthIndex(yy: number, mm: number): number {
  const year = yy >= 91 ? 1900 + yy : 2000 + yy;
  return year * 12 + (mm - 1);
}

/** The key of a canonical base ID (as parseArxivId gives it: 2401.12345, hep-th/9901001). */
export function paperKey(baseId: string): number {
  const slash = baseId.indexOf("/");
  if (slash < 0) {
    const yy = Number(baseId.slice(0, 2));
    const mm = Number(baseId.slice(2, 4));
    return monthIndex(yy, mm) * MONTH + NEW_STYLE_OFFSET + Number(baseId.slice(5));
  }
  const archive = ARCHIVE_INDEX.get(baseId.slice(0, slash));
  if (archive === undefined) throw new Error(`paperKey: unknown old-style archive in ${baseId}`);
  const digits = baseId.slice(slash + 1);
  return (
    monthIndex(Number(digits.slice(0, 2)), Number(digits.slice(2, 4))) * MONTH +
    archive * 1000 +
    Number(digits.slice(4))
  );
}

/** The first key of the month holding this UTC date (for submitted-date windows). */
export function monthStartKey(date: Date): number {
  return (date.getUTCFullYear() * 12 + date.getUTCMonth()) * MONTH;
}

/** The last possible key of the month holding this UTC date. */
export function monthEndKey(date: Date): number {
  return monthStartKey(date) + MONTH - 1;
}
