// The reference set (issue 31): real references to papers of the bundled sample written in 15
// styles, fabricated references made of real names and real title words, and near misses, each
// with the answer it must get. Deterministic (a seeded generator over data/arxiv-sample and
// data/nberwp); bench-made, not recorded: the styles follow their published rules (APA 7,
// Chicago author-date, MLA 9, IEEE, Harvard, Vancouver/ICMJE, Nature, AMA 11, ACS, the AER's
// author-year style with and without quotes, BibTeX, RIS) as a reference manager writes them.
// `npm run bench:references` runs it whole; test/tools/papers-resolve-reference.test.ts a sample.
import { type JournalRef, parseJournalRefs } from "../../src/search/journal-ref.ts";
import { splitName } from "../../src/sources/citations/names.ts";
import type { MirrorRecord } from "../../src/store/arxiv-row.ts";
import { splitAuthors } from "../../src/store/arxiv-row.ts";
import { mulberry32 } from "../../test/support/random.ts";
import { loadSampleRecords } from "../arxiv/sample.ts";
import { loadNberRecords } from "../nber/build-seed.ts";
import { loadOutsideWorks } from "./outside-works.ts";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../test/fixtures");

export const STYLES = [
  "apa",
  "chicago",
  "mla",
  "ieee",
  "harvard",
  "vancouver",
  "nature",
  "ama",
  "acs",
  "econ-quoted",
  "econ-plain",
  "bibtex",
  "ris",
  "title-only",
  "pdf-noise",
] as const;
export type Style = (typeof STYLES)[number];
/**
 * How physics cites (APS, INSPIRE, Elsevier, the astronomy journals): authors and a journal
 * reference, no title. Written for every sample paper whose journal reference is a journal's.
 */
export const PHYSICS_FORMS = ["aps", "inspire", "elsevier", "astro"] as const;
export type PhysicsForm = (typeof PHYSICS_FORMS)[number];
/** What OCR and copying do to a title (issue 42, item 4). */
export const NOISE_KINDS = ["ocr", "run-together", "hyphenation", "truncated", "typo", "dropped-word"] as const;
export type NoiseKind = (typeof NOISE_KINDS)[number];

/** The title with one kind of noise, or null when the title has nothing for it (too short, no letter to confuse). */
export function noisyTitle(title: string, kind: NoiseKind, random: () => number): string | null {
  const words = title.split(" ");
  const pick = (list: number[]) => list[Math.floor(random() * list.length)];
  switch (kind) {
    case "ocr": {
      // Two confusions at most, in different words: m -> rn, l -> I or 1, o -> 0.
      const out = words.slice();
      let made = 0;
      for (const i of words.map((_, k) => k).sort(() => random() - 0.5)) {
        if (made >= 2) break;
        const word = out[i]!;
        const swapped = /m/.test(word)
          ? word.replace("m", "rn")
          : /l/.test(word)
            ? word.replace("l", random() < 0.5 ? "I" : "1")
            : /o/.test(word.slice(1))
              ? word[0] + word.slice(1).replace("o", "0")
              : null;
        if (swapped) {
          out[i] = swapped;
          made++;
        }
      }
      return made > 0 ? out.join(" ") : null;
    }
    case "run-together": {
      const at = pick(words.slice(1).map((_, k) => k + 1));
      return at === undefined
        ? null
        : [...words.slice(0, at - 1), `${words[at - 1]}${words[at]}`, ...words.slice(at + 1)].join(" ");
    }
    case "hyphenation": {
      const at = pick(words.map((w, k) => (/^[\p{L}]{8,}$/u.test(w) ? k : -1)).filter((k) => k >= 0));
      if (at === undefined) return null;
      const word = words[at]!;
      const cut = 3 + Math.floor(random() * (word.length - 5));
      return [...words.slice(0, at), `${word.slice(0, cut)}- ${word.slice(cut)}`, ...words.slice(at + 1)].join(" ");
    }
    case "truncated":
      return words.length >= 6 ? `${words.slice(0, Math.ceil(words.length * 0.6)).join(" ")}...` : null;
    case "typo": {
      const at = pick(words.map((w, k) => (/^[\p{L}]{5,}$/u.test(w) ? k : -1)).filter((k) => k >= 0));
      if (at === undefined) return null;
      const word = words[at]!;
      const i = 1 + Math.floor(random() * (word.length - 2));
      return [
        ...words.slice(0, at),
        word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2),
        ...words.slice(at + 1),
      ].join(" ");
    }
    case "dropped-word": {
      if (words.length < 5) return null;
      const at = 1 + Math.floor(random() * (words.length - 1));
      return [...words.slice(0, at), ...words.slice(at + 1)].join(" ");
    }
  }
}

/** Economics journals NBER working papers are published in (for the hand-made journal versions). */
const ECON_JOURNALS = [
  "American Economic Review",
  "Quarterly Journal of Economics",
  "Journal of Political Economy",
  "Review of Economic Studies",
  "Journal of Finance",
  "Journal of Public Economics",
  "Journal of Labor Economics",
  "Econometrica",
];

/** The styles a work outside the mirrors is cited in (journal articles, as most bibliographies cite them). */
export const OUTSIDE_STYLES: readonly Style[] = ["apa", "ieee", "vancouver"];

/** A paper as the styles need it. */
export interface Work {
  source: "arxiv" | "nber" | "crossref";
  id: string;
  title: string;
  authors: string[];
  year: number;
  venue: string | null;
  doi: string | null;
}

export interface ReferenceCase {
  kind: "real" | "fabricated" | "near";
  style: Style | "physics" | "journal-version" | `noise-${NoiseKind}`;
  text: string;
  /** real: the paper it cites; fabricated: none. */
  expect:
    | {
        status: "match";
        source: "arxiv" | "nber" | "crossref";
        id: string /** other versions of the work (a preprint and its article) */;
        also?: string[];
      }
    | { status: "no_match" };
  /** near misses: what was changed, and the paper it was made from. */
  near?: { change: NearChange; from: string; other?: string };
}

export type NearChange =
  | "wrong-year"
  | "other-authors"
  | "arxiv-id-of-another-paper"
  | "nber-number-of-another-paper"
  | "arxiv-id-with-invented-title"
  | "journal-ref-of-another-paper"
  | "page-no-paper-has";

// ---- names and titles as the styles write them

const person = (name: string) => splitName(name);
const initialsOf = (given: string, dots = true) =>
  given
    .split(/\s+/)
    .filter(Boolean)
    .map((part) =>
      part
        .split("-")
        .map((piece) => (piece[0] ?? "").toUpperCase() + (dots ? "." : ""))
        .join("-"),
    )
    .join(dots ? " " : "");

/** "Vaswani, A." */
const familyInitials = (name: string, dots = true) => {
  const p = person(name);
  if (p.literal) return p.literal;
  const initials = initialsOf(p.given, dots);
  return initials ? `${p.family}, ${initials}` : p.family;
};
/** "A. Vaswani" */
const initialsFamily = (name: string) => {
  const p = person(name);
  if (p.literal) return p.literal;
  const initials = initialsOf(p.given);
  return initials ? `${initials} ${p.family}` : p.family;
};
/** "Vaswani A" (Vancouver, AMA) */
const familyBareInitials = (name: string) => {
  const p = person(name);
  if (p.literal) return p.literal;
  return `${p.family} ${initialsOf(p.given, false).replace(/-/g, "")}`.trim();
};
/** "Vaswani, Ashish" */
const familyGiven = (name: string) => {
  const p = person(name);
  if (p.literal) return p.literal;
  return p.given ? `${p.family}, ${p.given}` : p.family;
};
const givenFamily = (name: string) => name.replace(/\s+/g, " ").trim();

const joinAnd = (names: string[], and: string, serialComma = true) =>
  names.length <= 1
    ? (names[0] ?? "")
    : names.length === 2
      ? `${names[0]} ${and} ${names[1]}`
      : `${names.slice(0, -1).join(", ")}${serialComma ? "," : ""} ${and} ${names.at(-1)}`;

/** TeX in a title as a formatted reference prints it: maths to letters and symbols, commands dropped. */
export function detex(title: string): string {
  const symbols: Record<string, string> = {
    alpha: "α",
    beta: "β",
    gamma: "γ",
    delta: "δ",
    epsilon: "ε",
    mu: "μ",
    nu: "ν",
    pi: "π",
    sigma: "σ",
    tau: "τ",
    phi: "φ",
    psi: "ψ",
    omega: "ω",
    lambda: "λ",
    theta: "θ",
    rho: "ρ",
    chi: "χ",
    eta: "η",
    Gamma: "Γ",
    Delta: "Δ",
    Omega: "Ω",
    Lambda: "Λ",
    Sigma: "Σ",
    Phi: "Φ",
    Psi: "Ψ",
    to: "→",
    rightarrow: "→",
    pm: "±",
    times: "×",
    infty: "∞",
    sim: "∼",
    le: "≤",
    ge: "≥",
    leq: "≤",
    geq: "≥",
  };
  return title
    .replace(/\\(["'`^~=.])\{?([a-zA-Z])\}?/g, (_, accent: string, letter: string) => {
      const marks: Record<string, string> = {
        '"': "\u0308",
        "'": "\u0301",
        "`": "\u0300",
        "^": "\u0302",
        "~": "\u0303",
        "=": "\u0304",
        ".": "\u0307",
      };
      return (letter + (marks[accent] ?? "")).normalize("NFC");
    })
    .replace(/\\([a-zA-Z]+)\s*/g, (_, name: string) => symbols[name] ?? "")
    .replace(/[{}$]/g, "")
    .replace(/\^|_/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Sentence case as APA, Vancouver, Nature and Harvard print it (acronyms and capitals inside words kept). */
export function sentenceCase(title: string): string {
  let first = true;
  return title.replace(/[\p{L}][\p{L}'’-]*/gu, (word) => {
    const keep = first || /\p{Lu}.*\p{Lu}/u.test(word.slice(1)) || /^\p{Lu}{2,}/u.test(word);
    first = false;
    return keep ? word : word.toLowerCase();
  });
}

const endPunct = (text: string) => (/[.?!]$/.test(text) ? text : `${text}.`);
const noEnd = (text: string) => text.replace(/[.?!]+$/, "");

/** The venue line: a journal reference, NBER's series, or arXiv's preprint line (with its ID in some styles). */
function venueOf(work: Work, style: Style, withId: boolean): string {
  if (work.source === "nber") {
    const number = work.id.replace(/^w0*/, "");
    if (style === "econ-quoted" || style === "econ-plain" || withId) return `NBER Working Paper No. ${number}`;
    return "National Bureau of Economic Research Working Paper";
  }
  if (work.venue) return work.venue;
  if (work.source === "crossref") return "";
  return withId ? `arXiv preprint arXiv:${work.id}` : "arXiv preprint";
}

/** One reference to `work` in `style`. `withId` puts the arXiv ID or NBER number in the styles that print one. */
export function formatReference(work: Work, style: Style, withId: boolean, random: () => number): string {
  const authors = work.authors.length > 0 ? work.authors : ["Anonymous"];
  const plainTitle = detex(work.title);
  const venue = venueOf(work, style, withId);
  const y = work.year;
  switch (style) {
    case "apa": {
      const names = authors.map((a) => familyInitials(a));
      const list = names.length > 20 ? `${names.slice(0, 19).join(", ")}, ... ${names.at(-1)}` : joinAnd(names, "&");
      return `${list} (${y}). ${endPunct(sentenceCase(plainTitle))} ${endPunct(venue)}`;
    }
    case "chicago": {
      const names = authors
        .slice(0, authors.length > 10 ? 7 : 10)
        .map((a, i) => (i === 0 ? familyGiven(a) : givenFamily(a)));
      const list = authors.length > 10 ? `${names.join(", ")}, et al.` : joinAnd(names, "and");
      return `${endPunct(list)} ${y}. "${endPunct(plainTitle)}" ${endPunct(venue)}`;
    }
    case "mla": {
      const list =
        authors.length >= 3
          ? `${familyGiven(authors[0]!)}, et al.`
          : authors.length === 2
            ? `${familyGiven(authors[0]!)}, and ${givenFamily(authors[1]!)}.`
            : endPunct(familyGiven(authors[0]!));
      return `${list} "${endPunct(plainTitle)}" ${noEnd(venue)}, ${y}.`;
    }
    case "ieee": {
      const names = authors.map(initialsFamily);
      const list = names.length > 6 ? `${names[0]} et al.` : joinAnd(names, "and");
      return `${list}, "${noEnd(plainTitle)}," ${noEnd(venue)}, ${y}.`;
    }
    case "harvard": {
      const names = authors.map((a) => familyInitials(a));
      const list = names.length > 3 ? `${names[0]} et al.` : joinAnd(names, "and", false);
      return `${list} (${y}) '${noEnd(sentenceCase(plainTitle))}', ${endPunct(venue)}`;
    }
    case "vancouver": {
      const names = authors.map(familyBareInitials);
      const list = names.length > 6 ? `${names.slice(0, 6).join(", ")}, et al` : names.join(", ");
      return `${list}. ${endPunct(sentenceCase(plainTitle))} ${endPunct(venue)} ${y}.`;
    }
    case "nature": {
      const names = authors.map((a) => familyInitials(a));
      const list =
        names.length > 5
          ? `${names[0]} et al.`
          : names.length === 1
            ? names[0]!
            : `${names.slice(0, -1).join(", ")} & ${names.at(-1)}`;
      return `${list} ${endPunct(sentenceCase(plainTitle))} ${noEnd(venue)} (${y}).`;
    }
    case "ama": {
      const names = authors.map(familyBareInitials);
      const list = names.length > 6 ? `${names.slice(0, 3).join(", ")}, et al` : names.join(", ");
      return `${list}. ${endPunct(sentenceCase(plainTitle))} ${noEnd(venue)}. ${y}.`;
    }
    case "acs": {
      const names = authors.map((a) => familyInitials(a));
      const list = names.length > 10 ? `${names.slice(0, 10).join("; ")}; et al.` : names.join("; ");
      return `${list} ${endPunct(plainTitle)} ${noEnd(venue)} ${y}.`;
    }
    case "econ-quoted": {
      // The AER's rule: more than ten authors, the first and "et al."
      const names = authors.map((a, i) => (i === 0 ? familyGiven(a) : givenFamily(a)));
      const list = names.length > 10 ? `${names[0]} et al.` : joinAnd(names, "and", false);
      return `${list} (${y}), "${noEnd(plainTitle)}," ${endPunct(venue)}`;
    }
    case "econ-plain": {
      const names = authors.map((a, i) => (i === 0 ? familyGiven(a) : givenFamily(a)));
      const list = names.length > 10 ? `${names[0]} et al.` : joinAnd(names, "and");
      return `${endPunct(list)} ${y}. ${endPunct(plainTitle)} ${endPunct(venue)}`;
    }
    case "bibtex": {
      const key = `${person(authors[0]!)
        .family.toLowerCase()
        .replace(/[^a-z]/g, "")}${y}`;
      const fields = [
        `  author = {${authors.slice(0, 30).map(familyGiven).join(" and ")}${authors.length > 30 ? " and others" : ""}}`,
        `  title = {${work.title.replace(/\s+/g, " ")}}`,
        `  year = {${y}}`,
      ];
      if (work.source === "nber") {
        fields.push("  institution = {National Bureau of Economic Research}", "  type = {Working Paper}");
        if (withId) fields.push(`  number = {${work.id.replace(/^w0*/, "")}}`);
      } else if (work.venue) fields.push(`  journal = {${work.venue}}`);
      else if (withId) fields.push(`  eprint = {${work.id}}`, "  archivePrefix = {arXiv}");
      const type = work.source === "nber" ? "techreport" : work.venue ? "article" : "misc";
      return `@${type}{${key},\n${fields.join(",\n")}\n}`;
    }
    case "ris": {
      const lines = [`TY  - ${work.source === "nber" ? "RPRT" : work.venue ? "JOUR" : "GEN"}`];
      for (const a of authors.slice(0, 30)) lines.push(`AU  - ${familyGiven(a)}`);
      lines.push(`TI  - ${plainTitle}`, `PY  - ${y}`);
      if (work.source === "nber") {
        lines.push("PB  - National Bureau of Economic Research", "T2  - NBER Working Paper Series");
        if (withId) lines.push(`SN  - ${work.id.replace(/^w0*/, "")}`);
      } else if (work.venue) lines.push(`JO  - ${work.venue}`);
      lines.push("ER  - ");
      return lines.join("\n");
    }
    case "title-only":
      return plainTitle
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s]/gu, "")
        .replace(/\s+/g, " ")
        .trim();
    case "pdf-noise":
      return pdfNoise(formatReference(work, random() < 0.5 ? "ieee" : "apa", withId, random), random);
  }
}

/** What a PDF's text layer does to a reference: lines broken near 60 characters with hyphens inside words, ligatures, stray spaces. */
function pdfNoise(text: string, random: () => number): string {
  const ligated = text.replace(/fi/g, "ﬁ").replace(/fl/g, "ﬂ").replace(/ff/g, "ﬀ");
  let out = "";
  let line = 0;
  for (const word of ligated.split(" ")) {
    if (line + word.length > 60 && word.length >= 8 && random() < 0.6) {
      const cut = 3 + Math.floor(random() * (word.length - 5));
      out += `${word.slice(0, cut)}-\n${word.slice(cut)} `;
      line = word.length - cut;
    } else if (line + word.length > 60) {
      out += `\n${word} `;
      line = word.length;
    } else {
      out += `${word} `;
      line += word.length + 1;
    }
  }
  return out.replace(/ \n/g, "\n").trim();
}

/** A journal's name as printed: "Phys.Rev.D" -> "Phys. Rev. D". */
const printedJournal = (journal: string) =>
  journal
    .replace(/\.(?=\S)/g, ". ")
    .replace(/\s+/g, " ")
    .trim();

/** A reference without a title: authors and the journal reference, in one of physics' forms. */
export function formatPhysics(work: Work, ref: JournalRef, form: PhysicsForm, raw: string): string {
  const authors = work.authors.length > 0 ? work.authors : ["Anonymous"];
  const year = ref.year ?? work.year;
  const journal = printedJournal(ref.journal);
  const page = ref.pages.split("-")[0]!;
  // JHEP and JCAP are cited by issue and year: JHEP 07 (2007) 046.
  const issue = /^\d{4}-(\d{2})$/.exec(ref.volume)?.[1];
  const volume = issue ?? ref.volume_written;
  switch (form) {
    case "aps": {
      const names = authors.map(initialsFamily);
      const list = names.length > 3 ? `${names[0]} et al.` : joinAnd(names, "and", false);
      return issue
        ? `${list}, ${journal} ${volume} (${year}) ${page}.`
        : `${list}, ${journal} ${volume}, ${page} (${year}).`;
    }
    case "inspire": {
      const names = authors.map(initialsFamily);
      const list = names.length > 5 ? `${names[0]} et al.` : names.join(", ");
      return `${list}, ${raw.replace(/\s+/g, " ").split(";")[0]!.trim()}`;
    }
    case "elsevier": {
      const names = authors.map(initialsFamily);
      const list = names.length > 6 ? `${names.slice(0, 1).join(", ")}, et al.` : names.join(", ");
      return `${list}, ${journal} ${volume} (${year}) ${page}.`;
    }
    case "astro": {
      const names = authors.map((a) => familyInitials(a));
      const list = names.length > 3 ? `${names[0]}, et al.` : joinAnd(names, "&");
      return `${list} ${year}, ${journal}, ${volume}, ${page}`;
    }
  }
}

/** A sample paper's journal reference when it is one a physics reference could give (a journal's, parsed). */
export function journalRefOf(work: Work): JournalRef | null {
  return work.source === "arxiv" && work.venue ? (parseJournalRefs(work.venue)[0] ?? null) : null;
}

// ---- the works: the sample's arXiv papers and NBER papers

const yearOfUnix = (seconds: number) => new Date(seconds * 1000).getUTCFullYear();

export function arxivWork(record: MirrorRecord): Work {
  return {
    source: "arxiv",
    id: record.id,
    title: record.title.replace(/\s+/g, " ").trim(),
    authors: splitAuthors(record.authors).map((a) => a.name),
    year: yearOfUnix(record.versions[0]!),
    venue: record.journal_ref?.replace(/\s+/g, " ") ?? null,
    doi: record.doi,
  };
}

export function nberWork(record: { id: string; title: string; authors: string[]; date: string }): Work {
  return {
    source: "nber",
    id: record.id,
    title: record.title,
    authors: record.authors,
    year: Number(record.date.slice(0, 4)),
    venue: null,
    doi: `10.3386/${record.id}`,
  };
}

/** Is `top` ("source:id", or null for no_match) the answer the case must get? DOIs compare case-blind. */
export function isRightAnswer(c: ReferenceCase, top: string | null): boolean {
  if (c.expect.status === "no_match") return top === null;
  if (top === null) return false;
  const wanted = [c.expect.id, ...(c.expect.also ?? [])].map((id) =>
    `${c.expect.status === "match" ? c.expect.source : ""}:${id}`.toLowerCase(),
  );
  return wanted.includes(top.toLowerCase());
}

export interface ReferenceSet {
  works: Work[];
  cases: ReferenceCase[];
}

/** The whole set: `papers` works (60% arXiv, the many-author papers included), every style each, plus fabricated and near misses. */
export function buildReferenceSet({
  papers = 90,
  fabricated = 320,
  nearEach = 24,
  physicsFabricated = 100,
  seed = 31,
} = {}): ReferenceSet {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const arxivRecords = loadSampleRecords().filter((r) => r.title.trim().split(/\s+/).length >= 2);
  const nberRecords = loadNberRecords().filter((r) => r.authors.length > 0 && r.title.split(/\s+/).length >= 2);
  const arxivCount = Math.round(papers * 0.6);
  const many = ["1411.4413", "2103.11058", "1310.8286"];
  const chosenArxiv = new Map<string, MirrorRecord>();
  for (const id of many) {
    const record = arxivRecords.find((r) => r.id === id);
    if (record) chosenArxiv.set(id, record);
  }
  while (chosenArxiv.size < arxivCount) {
    const record = pick(arxivRecords);
    chosenArxiv.set(record.id, record);
  }
  const chosenNber = new Map<string, (typeof nberRecords)[number]>();
  while (chosenNber.size < papers - arxivCount) {
    const record = pick(nberRecords);
    chosenNber.set(record.id, record);
  }
  const works = [...[...chosenArxiv.values()].map(arxivWork), ...[...chosenNber.values()].map(nberWork)];
  const cases: ReferenceCase[] = [];
  for (const work of works)
    for (const style of STYLES) {
      // Half the references print the arXiv ID or NBER number where the style has a place for it.
      const withId = random() < 0.5 && !["title-only"].includes(style);
      cases.push({
        kind: "real",
        style,
        text: formatReference(work, style, withId, random),
        expect: { status: "match", source: work.source, id: work.id },
      });
    }

  // Physics references without a title, for every sample paper whose journal reference parses
  // (42 of the sample's 611 journal_ref fields are proceedings or books with no journal form).
  const physicsWorks = arxivRecords.map(arxivWork).flatMap((work) => {
    const ref = journalRefOf(work);
    return ref && work.authors.length > 0 ? [{ work, ref }] : [];
  });
  physicsWorks.forEach(({ work, ref }, i) => {
    cases.push({
      kind: "real",
      style: "physics",
      text: formatPhysics(work, ref, PHYSICS_FORMS[i % PHYSICS_FORMS.length]!, work.venue!),
      expect: { status: "match", source: "arxiv", id: work.id },
    });
  });
  // Fabricated physics references: a paper's real authors with another paper's journal reference,
  // and a paper's own authors and journal with a page no paper of that volume has.
  const held = new Set(physicsWorks.map(({ ref }) => `${ref.key}|${ref.volume}`));
  for (let i = 0; i < Math.min(physicsFabricated, physicsWorks.length); i++) {
    const { work, ref } = physicsWorks[(i * 37) % physicsWorks.length]!;
    const other = physicsWorks[(i * 37 + 11) % physicsWorks.length]!;
    const form = PHYSICS_FORMS[i % PHYSICS_FORMS.length]!;
    if (other.work.id !== work.id && other.ref.key !== ref.key)
      cases.push({
        kind: "near",
        style: "physics",
        text: formatPhysics(work, other.ref, form === "inspire" ? "aps" : form, ""),
        expect: { status: "no_match" },
        near: { change: "journal-ref-of-another-paper", from: `arxiv:${work.id}`, other: `arxiv:${other.work.id}` },
      });
    // A page past the paper's own: no sample paper of that journal and volume starts there.
    const page = /^\d+$/.test(ref.page) ? String(Number(ref.page) + 1 + (i % 5)) : null;
    if (
      page &&
      held.has(`${ref.key}|${ref.volume}`) &&
      !physicsWorks.some((p) => p.ref.key === ref.key && p.ref.volume === ref.volume && p.ref.page === page)
    )
      cases.push({
        kind: "near",
        style: "physics",
        text: formatPhysics(work, { ...ref, page, pages: page }, form === "inspire" ? "elsevier" : form, ""),
        expect: { status: "no_match" },
        near: { change: "page-no-paper-has", from: `arxiv:${work.id}` },
      });
  }

  // Noisy titles: each kind on every work's APA reference (its own generator: the cases above and
  // below stay as they were).
  const noiseRandom = mulberry32(seed + 42);
  for (const work of works)
    for (const kind of NOISE_KINDS) {
      const title = noisyTitle(detex(work.title), kind, noiseRandom);
      if (title)
        cases.push({
          kind: "real",
          style: `noise-${kind}`,
          text: formatReference({ ...work, title }, "apa", false, noiseRandom),
          expect: { status: "match", source: work.source, id: work.id },
        });
    }

  // Journal versions: every sample arXiv paper whose journal reference parses, cited as its
  // published article with its title (its own journal reference, the journal's year; half with
  // the journal DOI), and an NBER paper cited as a journal article
  // 1-3 years after the working paper. NBER's data holds no published versions: those venues are
  // hand-made (real journal names, made-up volume and pages), the paper's title and authors real.
  const journalRandom = mulberry32(seed + 77);
  physicsWorks.forEach(({ work, ref }, i) => {
    if (!ref.year) return;
    const doi = i % 2 === 0 && work.doi ? ` https://doi.org/${work.doi.split(/\s+/)[0]}` : "";
    cases.push({
      kind: "real",
      style: "journal-version",
      text: `${formatReference({ ...work, year: ref.year }, i % 3 === 0 ? "chicago" : "apa", false, journalRandom)}${doi}`,
      expect: { status: "match", source: "arxiv", id: work.id },
    });
  });
  for (const [i, work] of works.filter((w) => w.source === "nber").entries()) {
    const volume = 50 + Math.floor(journalRandom() * 80);
    const first = 1 + Math.floor(journalRandom() * 1500);
    const venue = `${ECON_JOURNALS[i % ECON_JOURNALS.length]}, ${volume}(${1 + (i % 4)}), ${first}-${first + 20 + (i % 30)}`;
    cases.push({
      kind: "real",
      style: "journal-version",
      text: formatReference(
        { ...work, source: "crossref", venue, year: work.year + 1 + (i % 3) },
        i % 2 === 0 ? "apa" : "chicago",
        false,
        journalRandom,
      ),
      expect: { status: "match", source: "nber", id: work.id },
    });
  }

  // Works outside arXiv and NBER (the recorded Crossref and OpenAlex works), each in three styles.
  const outsideWorks = loadOutsideWorks(FIXTURES);
  const titleKey = (title: string) => title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  for (const outside of outsideWorks) {
    const versions = outsideWorks
      .filter((other) => other !== outside && titleKey(other.title) === titleKey(outside.title))
      .map((other) => other.doi);
    const venue = outside.container
      ? `${outside.container}${outside.volume ? ` ${outside.volume}` : ""}${outside.issue ? `(${outside.issue})` : ""}${outside.page ? `, ${outside.page}` : ""}`
      : null;
    const work: Work = {
      source: "crossref",
      id: outside.doi,
      title: outside.title,
      authors: outside.authors,
      year: outside.year,
      venue,
      doi: outside.doi,
    };
    for (const style of OUTSIDE_STYLES)
      cases.push({
        kind: "real",
        style,
        text: formatReference(work, style, false, () => 0.5),
        expect: {
          status: "match",
          source: "crossref",
          id: outside.doi,
          ...(versions.length ? { also: versions } : {}),
        },
      });
  }

  // Fabricated: one paper's authors, a title spliced from two other real titles, a plausible year.
  const pool = [...arxivRecords.map(arxivWork), ...nberRecords.slice(0, 6000).map(nberWork)];
  const textStyles = STYLES.filter((style) => style !== "title-only");
  for (let i = 0; i < fabricated; i++) {
    const a = pick(pool);
    const b = pick(pool);
    const c = pick(pool);
    const left = detex(b.title).split(" ");
    const right = detex(c.title).split(" ");
    const title = [
      ...left.slice(0, Math.max(2, Math.ceil(left.length / 2))),
      ...right.slice(Math.floor(right.length / 2)),
    ].join(" ");
    const fake: Work = { ...a, title, year: 1985 + Math.floor(random() * 37), venue: pick(pool).venue, doi: null };
    const style = i % 10 === 9 ? "title-only" : pick(textStyles);
    cases.push({
      kind: "fabricated",
      style,
      text: formatReference(fake, style, false, random),
      expect: { status: "no_match" },
    });
  }

  // Near misses: a real paper with one thing changed.
  const nearStyles: Style[] = ["apa", "ieee", "econ-quoted", "vancouver", "nature", "bibtex"];
  const arxivWorks = works.filter((w) => w.source === "arxiv");
  const nberWorks = works.filter((w) => w.source === "nber");
  for (let i = 0; i < nearEach; i++) {
    const style = nearStyles[i % nearStyles.length]!;
    const work = works[i % works.length]!;
    cases.push({
      kind: "near",
      style,
      // The venue goes too: a journal reference carries the true year.
      text: formatReference({ ...work, year: work.year + 6, venue: null }, style, false, random),
      expect: { status: "no_match" },
      near: { change: "wrong-year", from: `${work.source}:${work.id}` },
    });
    const stranger = pool[(i * 131) % pool.length]!;
    cases.push({
      kind: "near",
      style,
      text: formatReference({ ...work, authors: stranger.authors }, style, false, random),
      expect: { status: "no_match" },
      near: { change: "other-authors", from: `${work.source}:${work.id}`, other: `${stranger.source}:${stranger.id}` },
    });
    const x = arxivWorks[i % arxivWorks.length]!;
    const y = arxivWorks[(i * 5 + 1) % arxivWorks.length]!;
    if (x.id !== y.id)
      cases.push({
        kind: "near",
        style: "ieee",
        text: `${formatReference({ ...y, venue: null }, "ieee", false, random).replace(/arXiv preprint/, `arXiv preprint arXiv:${x.id}`)}`,
        expect: { status: "no_match" },
        near: { change: "arxiv-id-of-another-paper", from: `arxiv:${y.id}`, other: `arxiv:${x.id}` },
      });
    const n1 = nberWorks[i % nberWorks.length]!;
    const n2 = nberWorks[(i * 5 + 2) % nberWorks.length]!;
    if (n1.id !== n2.id)
      cases.push({
        kind: "near",
        style: "econ-quoted",
        text: formatReference({ ...n2, id: n1.id }, "econ-quoted", true, random),
        expect: { status: "no_match" },
        near: { change: "nber-number-of-another-paper", from: `nber:${n2.id}`, other: `nber:${n1.id}` },
      });
    const invented = detex(pick(pool).title)
      .split(" ")
      .slice(0, 3)
      .concat(detex(pick(pool).title).split(" ").slice(-3))
      .join(" ");
    cases.push({
      kind: "near",
      style: "ieee",
      text: `${initialsFamily(pick(pool).authors[0] ?? "J. Smith")}, "${invented}," arXiv preprint arXiv:${x.id}, ${x.year}.`,
      expect: { status: "no_match" },
      near: { change: "arxiv-id-with-invented-title", from: `arxiv:${x.id}` },
    });
  }
  return { works, cases };
}

/**
 * What the test suite runs (the bench runs the whole set): every style for six works (the
 * 2,831-author paper and another collaboration's among them), 40 fabricated references, the near
 * misses made from those works, and the NBER records they need plus every 10th NBER paper as
 * distractors sharing their words.
 */
export function referenceSample() {
  const { works, cases } = buildReferenceSet();
  const hard = ["1411.4413", "2103.11058"];
  const tex = works.filter((w) => w.source === "arxiv" && /\$/.test(w.title) && !hard.includes(w.id)).map((w) => w.id);
  const arxiv = [...hard, ...tex.slice(0, 1)];
  const nber = works
    .filter((w) => w.source === "nber")
    .slice(0, 3)
    .map((w) => w.id);
  const chosen = new Set([...arxiv.map((id) => `arxiv:${id}`), ...nber.map((id) => `nber:${id}`)]);
  const real = cases.filter(
    (c) =>
      c.kind === "real" &&
      c.style !== "physics" &&
      !String(c.style).startsWith("noise-") &&
      c.expect.status === "match" &&
      c.expect.source !== "crossref" &&
      c.expect.status === "match" &&
      chosen.has(`${c.expect.source}:${c.expect.id}`),
  );
  const fabricated = cases.filter((c) => c.kind === "fabricated").slice(0, 40);
  const near = cases.filter((c) => c.kind === "near" && c.style !== "physics").slice(0, 36);
  // Noisy titles: every 15th.
  const noise = cases.filter((c) => String(c.style).startsWith("noise-")).filter((_, i) => i % 15 === 0);
  // Works outside the mirrors (Crossref): every 20th.
  const outside = cases
    .filter((c) => c.expect.status === "match" && c.expect.source === "crossref")
    .filter((_, i) => i % 20 === 0);
  // Physics references without a title: every 40th of the real ones (each form), 12 fabricated.
  const physics = [
    ...cases.filter((c) => c.kind === "real" && c.style === "physics").filter((_, i) => i % 40 === 0),
    ...cases.filter((c) => c.kind === "near" && c.style === "physics").slice(0, 12),
  ];
  const records = loadNberRecords();
  const needed = new Set([
    ...nber,
    ...noise.flatMap((c) => (c.expect.status === "match" && c.expect.source === "nber" ? [c.expect.id] : [])),
    ...near
      .flatMap((c) => [c.near!.from, c.near!.other ?? ""])
      .filter((id) => id.startsWith("nber:"))
      .map((id) => id.slice(5)),
  ]);
  const nberRows = records.filter((r, i) => needed.has(r.id) || i % 10 === 0);
  return { cases: [...real, ...physics, ...noise, ...outside, ...fabricated, ...near], nber: nberRows };
}
