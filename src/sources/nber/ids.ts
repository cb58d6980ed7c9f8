// NBER paper IDs: w25000, W25000, 25000, and nber.org links (/papers/w25000, its .pdf, the
// /system/files/working_papers/w25000/w25000.pdf path). Historical (h) and technical (t) series
// too. One parser; never throws; the canonical form is what R2 keys and URLs are built from.

export interface NberId {
  series: "w" | "h" | "t";
  number: number;
  /** Canonical: series letter + number, zero-padded to four digits (w0001, w25000). */
  id: string;
}

export type ParsedNberId = { ok: true; id: NberId } | { ok: false; input: string; problem: string };

const MAX_NUMBER = 99_999;
const URL_FORM =
  /^(?:https?:\/\/)?(?:www\.)?nber\.org\/(?:papers\/|system\/files\/working_papers\/[wht]\d+\/)([^/?#]+?)(?:\.pdf)?\/?(?:[?#].*)?$/i;

export function nberId(series: NberId["series"], number: number): NberId {
  return { series, number, id: `${series}${String(number).padStart(4, "0")}` };
}

export function parseNberId(raw: unknown): ParsedNberId {
  if (typeof raw !== "string") return { ok: false, input: String(raw).slice(0, 80), problem: "not a string" };
  const fail = (problem: string): ParsedNberId => ({ ok: false, input: raw.slice(0, 80), problem });
  if (raw.length > 300) return fail("longer than 300 characters");
  let text = raw.trim();
  if (text === "") return fail("empty");
  if (/[\u0000-\u001f\u007f]/.test(text)) return fail("contains control characters");
  const url = URL_FORM.exec(text);
  if (url) text = url[1]!;
  else if (/[/\\:]|\.\./.test(text)) return fail("not an NBER paper ID or nber.org paper link");
  const match = /^([wht]?)(\d{1,6})$/i.exec(text);
  if (!match) return fail("not an NBER paper ID (expected e.g. w25000, 25000 or https://www.nber.org/papers/w25000)");
  const number = Number(match[2]);
  if (number < 1 || number > MAX_NUMBER) return fail(`paper numbers run from 1 to ${MAX_NUMBER}`);
  const series = (match[1]!.toLowerCase() || "w") as NberId["series"];
  return { ok: true, id: nberId(series, number) };
}
