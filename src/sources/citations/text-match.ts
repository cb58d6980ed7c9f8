// Checks a candidate paper against a reference's own text, whatever its style: is the paper's
// title inside the reference (tolerant of case, punctuation, TeX, diacritics, ligatures, Greek
// letters, line-break hyphenation "infor- mation", U.S./US, &/and), do its authors' surnames
// appear in what is left, and does a year there agree. Pure.
import { STOPWORDS } from "../../search/stopwords";
import { words as indexWords } from "../../search/tokenize";
import { asciiFold, splitName } from "./names";
import { noisyTitle } from "./noisy-title";

const GREEK: Record<string, string> = {
  α: "alpha",
  β: "beta",
  γ: "gamma",
  δ: "delta",
  ε: "epsilon",
  ϵ: "epsilon",
  ζ: "zeta",
  η: "eta",
  θ: "theta",
  ϑ: "theta",
  ι: "iota",
  κ: "kappa",
  λ: "lambda",
  μ: "mu",
  ν: "nu",
  ξ: "xi",
  π: "pi",
  ρ: "rho",
  σ: "sigma",
  ς: "sigma",
  τ: "tau",
  υ: "upsilon",
  φ: "phi",
  ϕ: "phi",
  χ: "chi",
  ψ: "psi",
  ω: "omega",
  Γ: "gamma",
  Δ: "delta",
  Θ: "theta",
  Λ: "lambda",
  Ξ: "xi",
  Π: "pi",
  Σ: "sigma",
  Υ: "upsilon",
  Φ: "phi",
  Ψ: "psi",
  Ω: "omega",
};
const GREEK_NAMES = new Set(Object.values(GREEK));
const GREEK_CHARS = new RegExp(`[${Object.keys(GREEK).join("")}]`, "g");

/** Greek letters (as characters or TeX commands) spelled out, as the index holds a title's TeX ("\\pi^0" -> "pi 0"). */
export function spellGreek(text: string): string {
  return text
    .replace(/\\([a-zA-Z]+)/g, (whole, name: string) => (GREEK_NAMES.has(name.toLowerCase()) ? ` ${name} ` : whole))
    .replace(GREEK_CHARS, (char) => ` ${GREEK[char]} `);
}

/**
 * Text as words for matching: TeX commands to their letters (Greek names kept, other commands
 * dropped), Greek letters to names, & to "and", ligatures and diacritics folded, lower case;
 * every other character a separator.
 */
export function matchText(raw: string): string {
  const text = raw
    // TeX accents first (\v{S}r\'amek is Šrámek), then other commands.
    .replace(/\\(?:["'`^~=.]|[uvHckbdrt](?![a-zA-Z]))\s*\{?\\?([a-zA-Z])\}?/g, "$1")
    .replace(/\\([a-zA-Z]+)\s*/g, (_, name: string) => (GREEK_NAMES.has(name.toLowerCase()) ? ` ${name} ` : " "))
    .replace(/\\(.)/g, "$1")
    .replace(GREEK_CHARS, (char) => ` ${GREEK[char]} `)
    .replace(/&|\band\b/gi, " and ");
  return asciiFold(text).replace(/[^a-z0-9]+/g, " ");
}

/** The text with every separator gone ("U.S." = "US", "infor- mation" = "information", "1913-1960" = "19131960"). */
export function compact(raw: string): string {
  return matchText(raw).replace(/ /g, "");
}

export interface TitleEvidence {
  /** exact: the whole title inside the text; close: nearly all its words in order; none. */
  kind: "exact" | "close" | "none";
  /** Share of the title's words found in the text in order. */
  coverage: number;
  /** The text with the title's span removed (where authors, year and venue are). */
  rest: string;
  /** Words in the title. */
  words: number;
  /**
   * The title runs on past the record's: the words after it continue it, with no punctuation
   * between ("... scientific literature of the future, a survey"). A title that merely contains
   * the record's is another title.
   */
  extended?: boolean;
}

/** Where a candidate's title stands in a reference. */
export function titleEvidence(reference: string, title: string): TitleEvidence {
  const refWords = matchText(reference).split(" ").filter(Boolean);
  const titleWords = matchText(title).split(" ").filter(Boolean);
  const needle = titleWords.join("");
  if (needle.length === 0) return { kind: "none", coverage: 0, rest: reference, words: 0 };
  // The compact text with, for each character, the word it came from: the title's span becomes words to drop.
  let joined = "";
  const wordAt: number[] = [];
  refWords.forEach((word, index) => {
    joined += word;
    for (let k = 0; k < word.length; k++) wordAt.push(index);
  });
  const at = findAtWordStart(joined, needle, wordAt);
  if (at >= 0) {
    const first = wordAt[at]!;
    const last = wordAt[at + needle.length - 1]!;
    const rest = [...refWords.slice(0, first), ...refWords.slice(last + 1)].join(" ");
    if (runsOn(reference, refWords, last))
      return { kind: "close", coverage: 1, rest, words: titleWords.length, extended: true };
    return { kind: "exact", coverage: 1, rest, words: titleWords.length };
  }
  // A reference may cite the main title alone ("Title" for "Title: A Subtitle"): close, when the main title says enough.
  const main = /^(.{15,}?)(?::|\?|\s[-–—]\s)\s*\S/.exec(title)?.[1];
  const mainWords = main ? matchText(main).split(" ").filter(Boolean) : [];
  if (mainWords.length >= 3) {
    const mainAt = findAtWordStart(joined, mainWords.join(""), wordAt);
    if (mainAt >= 0) {
      const first = wordAt[mainAt]!;
      const last = wordAt[mainAt + mainWords.join("").length - 1]!;
      const rest = [...refWords.slice(0, first), ...refWords.slice(last + 1)].join(" ");
      return { kind: "close", coverage: mainWords.length / titleWords.length, rest, words: titleWords.length };
    }
  }
  const { covered, span } = inOrder(titleWords, refWords);
  const coverage = covered / titleWords.length;
  const rest = span ? [...refWords.slice(0, span[0]), ...refWords.slice(span[1] + 1)].join(" ") : refWords.join(" ");
  // Nearly all its words in order; or all but one word of four or more (a word dropped in copying).
  if ((coverage >= 0.85 && titleWords.length >= 5) || (titleWords.length >= 4 && covered === titleWords.length - 1))
    return { kind: "close", coverage, rest, words: titleWords.length };
  // Through noise (OCR, an ellipsis, a typo): close at best; the title's words that stand whole leave the rest.
  const noisy = noisyTitle(joined, wordAt, needle, reference, compact, coverage);
  if (noisy) {
    const own = new Set(titleWords);
    const outside = refWords.filter((word) => !own.has(word)).join(" ");
    return { kind: "close", coverage: noisy.coverage, rest: outside, words: titleWords.length };
  }
  return { kind: "none", coverage, rest, words: titleWords.length };
}

/** Words that may follow a title with no punctuation between: where it appeared, not more of its words. */
const AFTER_TITLE = new Set(
  "in arxiv preprint proceedings proc journal vol volume pp pages doi url http https available accepted submitted to appear forthcoming".split(
    " ",
  ),
);

/**
 * Does the text go on with more title after the word at `last` (the record's title's end)? Only
 * when the raw text reads as the same words (so each word's punctuation is known): the title's
 * last word has no punctuation after it, and the next is a lower-case word that is not a venue's
 * ("... literature of the future").
 */
function runsOn(reference: string, refWords: string[], last: number): boolean {
  if (last >= refWords.length - 1) return false;
  const tokens = reference.split(/\s+/).filter(Boolean);
  const perToken = tokens.map((token) => matchText(token).split(" ").filter(Boolean));
  if (perToken.flat().length !== refWords.length) return false;
  let index = 0;
  for (const [t, words] of perToken.entries()) {
    if (index + words.length - 1 < last) {
      index += words.length;
      continue;
    }
    // The title ends inside this token: a word of it follows in the same token ("literature-of").
    if (index + words.length - 1 > last) return false;
    const token = tokens[t]!;
    const next = tokens[t + 1];
    if (!next || /[.,;:?!"”’)\]}]$/.test(token)) return false;
    // A word that is no venue's or apparatus's goes on with the title, in any case ("... Need For Vision Transformers");
    // a venue written with no punctuation before it ("... need NeurIPS 2017", "Deep learning Nature 521") is
    // followed by its number before the next punctuation.
    const word = matchText(next).trim();
    if (!/^\p{L}/u.test(next) || AFTER_TITLE.has(word) || BIBLIOGRAPHIC_WORDS.has(word)) return false;
    for (const after of tokens.slice(t + 1, t + 6)) {
      if (/^\(?\d/.test(after)) return false;
      if (/[.,;:?!"”’)\]}]$/.test(after)) break;
    }
    return true;
  }
  return false;
}

/** The first place the needle starts at the start of a word of the text (so "us" is not found inside "focus"). */
function findAtWordStart(joined: string, needle: string, wordAt: number[]): number {
  for (let at = joined.indexOf(needle); at >= 0; at = joined.indexOf(needle, at + 1)) {
    const startsWord = at === 0 || wordAt[at - 1] !== wordAt[at];
    const end = at + needle.length;
    const endsWord = end === joined.length || wordAt[end] !== wordAt[end - 1];
    if (startsWord && endsWord) return at;
  }
  return -1;
}

/** How many of the title's words appear in the text in order (a greedy walk within a window), and their span. */
function inOrder(titleWords: string[], refWords: string[]): { covered: number; span: [number, number] | null } {
  let best = { covered: 0, span: null as [number, number] | null };
  const firstWords = new Set(titleWords.slice(0, 3));
  for (let start = 0; start < refWords.length; start++) {
    if (!firstWords.has(refWords[start]!)) continue;
    let t = titleWords.indexOf(refWords[start]!);
    let covered = 1;
    let last = start;
    let r = start + 1;
    for (t++; t < titleWords.length && r < refWords.length && r - last <= 3; ) {
      if (refWords[r] === titleWords[t]) {
        covered++;
        last = r;
        t++;
        r++;
      } else if (titleWords.indexOf(refWords[r]!, t) > t && titleWords.indexOf(refWords[r]!, t) - t <= 2) {
        t = titleWords.indexOf(refWords[r]!, t);
      } else r++;
    }
    if (covered > best.covered) best = { covered, span: [start, last] };
  }
  return best;
}

/** Words of a reference's venue and bibliographic apparatus: neither names nor a title's words. */
export const BIBLIOGRAPHIC_WORDS: ReadonlySet<string> = new Set(
  (
    "et al eds ed editor editors vol volume no number pp page pages journal proceedings proc conference conf " +
    "international symposium workshop annual review letters letter transactions trans advances physical physics " +
    "phys rev lett nucl astrophys astron mon not roy soc class quant grav gen rel math press university working " +
    "paper papers series national bureau economic research nber arxiv preprint technical report tech available " +
    "online retrieved accessed doi url http https www org com abs pdf chapter book thesis dissertation phd"
  ).split(" "),
);

// Words of a reference that are not names: the bibliographic words, venues' words, months, common short words.
const NOT_NAMES = new Set([
  ...BIBLIOGRAPHIC_WORDS,
  ...(
    "in and of the on for to a an at by with from ms " +
    "january february march april may june july august september october november december " +
    "jan feb mar apr jun jul aug sep sept oct nov dec quarterly american economics economy econometrica " +
    "monthly notices royal astronomical society astrophysical astronomy astrophysics institute ieee acm " +
    "neural information processing systems learning machine lecture notes computer mathematical mathematics " +
    "statistics statistical quantum high energy nuclear theory theoretical applied mechanics " +
    "cambridge mit oxford springer elsevier wiley new york london berlin cited print epub see also cf eg ie " +
    "ibid op cit forthcoming submitted unpublished manuscript mimeo draft"
  ).split(" "),
]);

export interface AuthorEvidence {
  /** agree: the first author's surname is there, or two of the first five; disagree: names are there, none of theirs; absent: no names. */
  kind: "agree" | "disagree" | "absent";
  matched: number;
  checked: number;
  /** Capitalised words outside the title that may be names. */
  names: number;
}

/** Do the candidate's authors appear in the rest of the reference (the text without the title)? */
export function authorEvidence(rest: string, authors: readonly string[], originalRest?: string): AuthorEvidence {
  const restWords = rest.split(" ").filter(Boolean);
  const present = new Set(restWords);
  const checked = authors.slice(0, 5);
  const surnameFound = (name: string): boolean => {
    const person = splitName(name);
    const family = matchText(person.literal ?? person.family)
      .split(" ")
      .filter((word) => word.length >= 2 && !NOT_NAMES.has(word) && word !== "collaboration" && word !== "the");
    if (family.length === 0) return false;
    // "van der Berg" is found as "berg", "Garcia-Perez" as its words or "garciaperez".
    return family.every((word) => present.has(word)) || present.has(family.join("")) || present.has(family.at(-1)!);
  };
  const found = checked.map(surnameFound);
  const matched = found.filter(Boolean).length;
  if (found[0] || matched >= 2 || (matched === 1 && checked.length === 1))
    return { kind: "agree", matched, checked: checked.length, names: 0 };
  // Farther down a long list (a reference may start "ATLAS Collaboration, G. Aad, ...").
  if (authors.length > 5 && authors.slice(5, 40).some(surnameFound))
    return { kind: "agree", matched: matched + 1, checked: checked.length, names: 0 };
  const names = namesIn(originalRest ?? rest);
  return { kind: names > 0 ? "disagree" : "absent", matched, checked: checked.length, names };
}

/** Words in a text that may be surnames: capitalised words that are not bibliographic or venue words. */
function namesIn(text: string): number {
  let count = 0;
  for (const word of text.split(/[^\p{L}'’-]+/u)) {
    if (word.length < 2) continue;
    const folded = matchText(word).trim();
    if (!folded || NOT_NAMES.has(folded)) continue;
    if (/^\p{Lu}[\p{Ll}'’-]+$/u.test(word) || /^\p{Lu}{2,}$/u.test(word)) count++;
  }
  return count;
}

const YEAR = /(?<![\d.])(1[89]\d{2}|20\d{2})(?![\d])/g;

export interface YearEvidence {
  kind: "agree" | "close" | "disagree" | "absent";
  /** The year the reference gives that is nearest the record's. */
  cited: number | null;
}

/** Does a year in the text agree with the paper's (within one: arXiv's is the first version's, a journal's may be later)? */
export function yearEvidence(rest: string, year: number | null, tolerance = 1): YearEvidence {
  const years = [...rest.matchAll(YEAR)].map((match) => Number(match[1]));
  if (years.length === 0 || year === null) return { kind: "absent", cited: years[0] ?? null };
  const nearest = years.reduce((best, y) => (Math.abs(y - year) < Math.abs(best - year) ? y : best));
  const gap = Math.abs(nearest - year);
  return { kind: gap <= tolerance ? "agree" : gap <= 3 ? "close" : "disagree", cited: nearest };
}

const INITIALS = /^(?:\p{Lu}\.?-?){1,3}\.?$/u;

/**
 * Words of a text written as names: next to initials ("B. Abbott", "Abbott B", "Abbott, B."),
 * or before "et al". Folded as matchText folds them.
 */
export function nameWords(text: string): Set<string> {
  const tokens = text.split(/\s+|(?<=,)/).map((token) => token.replace(/[,;:()[\]]+$/g, "").replace(/^[([]+/, ""));
  const names = new Set<string>();
  tokens.forEach((token, index) => {
    if (!/^\p{Lu}[\p{L}'’-]+$/u.test(token) || INITIALS.test(token)) return;
    const before = tokens[index - 1] ?? "";
    const after = tokens[index + 1] ?? "";
    if (INITIALS.test(before) || INITIALS.test(after) || /^et$/i.test(after) || /^(?:and|&)$/.test(before))
      for (const word of matchText(token).split(" ")) if (word) names.add(word);
  });
  return names;
}

/**
 * The words a reference is looked up by: folded index words, no stopwords, no bare numbers; a
 * word a PDF's line broke with a hyphen ("infor- mation") is also taken whole.
 */
export function contentWords(text: string): string[] {
  const seen = new Set<string>();
  const normal = spellGreek(text.normalize("NFKC"));
  const rejoined = [...normal.matchAll(/(\p{L}+)-\s+(\p{L}+)/gu)].map((match) => match[1]! + match[2]!);
  for (const word of [...indexWords(normal), ...indexWords(rejoined.join(" "))]) {
    if (word.length < 2 || /^\d+$/.test(word) || STOPWORDS.has(word)) continue;
    seen.add(word);
  }
  return [...seen];
}
