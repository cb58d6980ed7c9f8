// Personal names as the formats need them (family and given parts), from the single display
// strings arXiv and NBER give ("Ashish Vaswani", "Jan van der Berg", "Smith, John", "ATLAS
// Collaboration"). Pure.

export interface PersonName {
  family: string;
  given: string;
  /** Jr., III */
  suffix?: string;
  /** A collaboration or organisation: one literal name, never split. */
  literal?: string;
}

const PARTICLES = new Set([
  "van",
  "von",
  "der",
  "den",
  "de",
  "del",
  "della",
  "di",
  "da",
  "dos",
  "du",
  "la",
  "le",
  "ter",
  "ten",
  "zu",
  "af",
  "al",
  "bin",
  "ibn",
]);
const SUFFIXES = /^(jr\.?|sr\.?|ii|iii|iv)$/i;
const ORGANISATION =
  /\b(collaboration|consortium|team|group|collab\.|project|survey|observatory|association|institute|committee|initiative|office)\b/i;

export function splitName(raw: string): PersonName {
  const name = raw.replace(/\s+/g, " ").trim();
  if (name === "") return { family: "", given: "" };
  if (ORGANISATION.test(name)) return { family: name, given: "", literal: name };
  if (name.includes(",")) {
    const [family, ...rest] = name.split(",");
    return { family: family!.trim(), given: rest.join(",").trim() };
  }
  const words = name.split(" ");
  let end = words.length;
  if (end > 2 && SUFFIXES.test(words[end - 1]!)) end--; // "John Smith Jr." -> Smith
  let start = end - 1;
  // Lower-case particles before the last word belong to the family name: "van der Berg".
  while (start > 1 && PARTICLES.has(words[start - 1]!)) start--;
  const suffix = words.slice(end).join(" ");
  return {
    family: words.slice(start, end).join(" "),
    given: words.slice(0, start).join(" "),
    ...(suffix ? { suffix } : {}),
  };
}

/** ASCII letters of a surname for keys and matching: "Müller" -> "muller", "van der Berg" -> "berg". */
export function surnameKey(name: PersonName): string {
  const family =
    (name.literal ?? name.family)
      .split(" ")
      .filter((word) => !PARTICLES.has(word))
      .pop() ?? "";
  return asciiFold(family).replace(/[^a-z]/g, "");
}

export function asciiFold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/\\["'`^~=.uvHckbdrt]\{?([a-zA-Z])\}?/g, "$1") // TeX accents: \"o, \'{e}
    .replace(/ß/g, "ss")
    .replace(/[øØ]/g, "o")
    .replace(/[łŁ]/g, "l")
    .toLowerCase();
}
