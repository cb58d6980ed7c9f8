// Citation keys: surname + year + first significant title word (vaswani2017attention), unique in
// one answer. Clashing keys get suffixes b, c, ... in ID order, so a key does not depend on the
// order the IDs were asked in.
import { asciiFold, surnameKey } from "./names";
import type { CitationRecord } from "./record";

const MINOR_WORDS = new Set([
  "a",
  "an",
  "the",
  "on",
  "of",
  "in",
  "for",
  "to",
  "and",
  "with",
  "from",
  "at",
  "by",
  "is",
  "are",
  "via",
  "towards",
  "toward",
  "what",
  "how",
  "why",
  "do",
  "does",
  "can",
]);

export function baseKey(record: CitationRecord): string {
  const first = record.authors[0];
  const surname = (first && surnameKey(first)) || (record.kind === "nber" ? "nber" : "arxiv");
  const words = asciiFold(plainTitle(record.title))
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const word = words.find((candidate) => !MINOR_WORDS.has(candidate) && /[a-z]/.test(candidate)) ?? words[0] ?? "";
  return `${surname}${record.year ?? ""}${word}`;
}

/** The record's key for each record, in the records' order. */
export function assignKeys(records: readonly CitationRecord[]): string[] {
  const keys = records.map(baseKey);
  const groups = new Map<string, number[]>();
  for (const [index, key] of keys.entries()) groups.set(key, [...(groups.get(key) ?? []), index]);
  for (const [key, indexes] of groups) {
    if (indexes.length < 2) continue;
    const byId = [...indexes].sort((a, b) => (records[a]!.id < records[b]!.id ? -1 : 1));
    for (const [rank, index] of byId.entries()) keys[index] = rank === 0 ? key : `${key}${suffix(rank)}`;
  }
  return keys;
}

/** 1 -> b, 2 -> c, ..., 25 -> z, 26 -> ba. */
function suffix(rank: number): string {
  let out = "";
  let n = rank;
  do {
    out = String.fromCharCode(97 + (n % 26)) + out;
    n = Math.floor(n / 26);
  } while (n > 0);
  return out;
}

/** A TeX title without maths, commands and braces, for keys and comparisons. */
export function plainTitle(title: string): string {
  return title
    .replace(/\$[^$]*\$/g, " ")
    .replace(/\\[a-zA-Z]+\*?/g, " ")
    .replace(/\\(.)/g, "$1")
    .replace(/[{}]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}
