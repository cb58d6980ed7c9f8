// Journal references read from free text: arXiv's journal_ref field ("Phys.Rev.D76:013009,2007")
// and the venue part of a bibliography entry ("Phys. Rev. D 76, 013009 (2007)", "JHEP 05 (2007)
// 034", "Astrophys. J. 663, 844", "Econometrica, 47(2), 263-291"). Each becomes a journal key
// (ISO 4 words, journal-names.ts), a volume and a first page or article number, so that two
// spellings of one article compare equal. The mirror indexes the keys of every paper's journal
// reference (store/arxiv-journal-refs.ts); the resolver looks a reference's up there; the export
// writes them as fields. Pure.
import { JOURNAL_ACRONYMS, OMITTED_WORDS, TITLE_WORDS } from "./journal-names.ts";

export interface JournalRef {
  /** The journal as written ("Phys. Rev. D"). */
  journal: string;
  /** Its key: ISO 4 words, lower case, spaced ("phys rev d"). */
  key: string;
  /** The volume as compared ("76"; year-issue journals such as JHEP: "2007-05"). */
  volume: string;
  /** The volume as written ("76", "0705"). */
  volume_written: string;
  issue: string | null;
  /** The first page or article number as compared: leading zeros dropped, upper case ("13009", "L12"). */
  page: string;
  /** The pages as written ("844-856", "013009"). */
  pages: string;
  year: number | null;
}

/** Journals numbered by year and issue (JHEP 0705:034 = JHEP 05 (2007) 034). */
const YEAR_ISSUE_JOURNALS = new Set(["j high energy phys", "j cosmol astropart phys"]);

const YEAR = String.raw`(?:1[89]\d\d|20\d\d)`;
const YEAR_ANYWHERE = new RegExp(String.raw`(?<!\d)${YEAR}(?!\d)`, "g");
const PAGE = String.raw`[A-Za-z]?\d+[A-Za-z]?`;
const RANGE = String.raw`(?:\s*-{1,2}\s*[A-Za-z]?\d+[A-Za-z]?)?(?:\s*\(R\))?`;

/**
 * The numeric core of a journal reference, each form with its groups: sec (a section letter
 * glued to the volume), vol, issue, page, last (end of a range), year. Tried in order at each
 * place; the journal is read backwards from where the core starts.
 */
const CORES: RegExp[] = [
  // INSPIRE and arXiv: Phys.Rev.D76:013009,2007 · Astrophys.J.663:844-856,2007 · JHEP 0705:034,2007
  new RegExp(
    String.raw`(?<![\w])(?<sec>[A-Z])?(?<vol>\d{1,5})(?!\d)\s*:\s*(?<page>${PAGE})(?<range>${RANGE})\s*,\s*(?<year>${YEAR})\b`,
    "y",
  ),
  // Volume (year) page: Nucl. Phys. B 123 (1977) 45 · Phys. Lett. B 716 (2012) 1 · JHEP 05 (2007) 034
  new RegExp(
    String.raw`(?<![\w])(?<sec>[A-Z])?(?<vol>\d{1,5})(?!\d)\s*,?\s*\((?<year>${YEAR})\)\s*,?\s*(?:(?:[Nn]o\.?|[Ii]ssue)\s*\d+\s*,?\s*)?(?:pp?\.\s*)?(?<page>${PAGE})(?<range>${RANGE})(?![\w/]|\.\d)`,
    "y",
  ),
  // A journal numbered by year alone: J. Stat. Mech. (2007) P07022 · J. Stat. Mech. P04012 (2007)
  new RegExp(String.raw`(?<![\w])\((?<year>${YEAR})\)\s*(?<page>[A-Z]\d{4,6})(?![\w/])`, "y"),
  new RegExp(String.raw`(?<![\w])(?<page>[A-Z]\d{4,6})\s*\((?<year>${YEAR})\)`, "y"),
  // Vol., no., pages: Applicable Analysis, Volume 86, Issue 9, 2007, pp. 1117-1126 · vol 104, 073536 (2008)
  new RegExp(
    String.raw`(?<![\w])vol(?:ume|\.)?\s*(?<vol>\d{1,5})(?!\d)\s*(?:\((?<year0>${YEAR})\))?\s*,?\s*(?:(?:issue|no\.?|number|nr\.?)\s*(?<issue>\d{1,4})\s*,?\s*)?(?:\(?(?<year>${YEAR})\)?\s*,?\s*)?(?:pp?\.?|pages?|article(?: no\.?| number)?)?\s*(?<page>${PAGE})(?<range>${RANGE})(?:\s*\((?<year3>${YEAR})\))?(?![\w/])`,
    "iy",
  ),
  // Volume, page (year): Phys. Rev. D 76, 013009 (2007) · ApJ 663, 844 · Econometrica, 47(2), 263-291 · New J. Phys. 9 206 (2007)
  new RegExp(
    String.raw`(?<![\w])(?<sec>[A-Z])?(?<vol>\d{1,5})(?!\d)\s*(?:\((?<issue>\d{1,4}(?:[-/]\d{1,4})?)\))?\s*(?:,|:|\s)\s*(?:pp?\.\s*)?(?<page>${PAGE})(?<range>${RANGE})(?:\s*\((?<year>${YEAR})\)|\s*,\s*(?<year2>${YEAR})\b)?(?![\w/]|\.\d)`,
    "y",
  ),
];

/** The loosest core (volume, page): a bare year after it is read as neither. */
const VOLUME_PAGE = CORES.at(-1)!;

/** A word that may stand in a journal's name (walking back from the volume). */
function journalToken(token: string): boolean {
  if (/^[("“”"'']|[)"“”"]$/.test(token)) return false;
  const bare = token.replace(/[.,:;]+$/, "");
  if (bare === "" || /\d/.test(bare)) return /^[A-Z]\d*$/.test(bare) || bare === "&";
  const lower = bare.toLowerCase();
  // "Vol." belongs to the numbers, not the journal's name.
  if (/^(?:vol|volume|v|no|nr|issue)$/.test(lower)) return false;
  if (OMITTED_WORDS.has(lower) || lower === "&" || lower === "-") return true;
  if (!/^[\p{L}&'’.-]+$/u.test(bare)) return false;
  // A sentence's last word ("... decision under risk.") ends the journal; an abbreviation does not.
  if (/^\p{Ll}+[.?!]$/u.test(token) && !(lower in TITLE_WORDS) && !ISO_STEMS.has(lower)) return false;
  return /^\p{Lu}/u.test(bare) || isAbbreviation(bare);
}

const ISO_STEMS: ReadonlySet<string> = new Set(Object.values(TITLE_WORDS));

/** A word written as a journal abbreviation: a known ISO 4 stem, or short. */
function isAbbreviation(word: string): boolean {
  const parts = word.toLowerCase().split(".").filter(Boolean);
  return parts.every((part) => part.length <= 4 || ISO_STEMS.has(part) || part in TITLE_WORDS);
}

/** What cannot be inside a journal's name (a quote, a bracket), and the comma that closes another part of the reference. */
const NAME_STOPS = new Set(['"', "“", "”", "(", ")", "[", "]", ";", "«", "»", "'", "’", ","]);

/**
 * The journal name that ends where the numeric core at `at` starts, read backwards from it: the
 * words after the last stop, 13 at most (the walk below keeps 12 and looks at the one before),
 * within JOURNAL_WINDOW characters.
 */
function journalBefore(text: string, at: number): string {
  const floor = Math.max(0, at - JOURNAL_WINDOW);
  let end = at;
  while (end > floor && /[\s,:;-]/.test(text[end - 1]!)) end--;
  // A year between the journal and its volume ("Annals of Applied Probability 2007, Vol. 17") is not the journal's.
  const year = /[\s,]\(?(?:1[89]|20)\d\d\)?$/.exec(text.slice(Math.max(floor, end - 7), end));
  if (year) {
    end -= year[0].length - 1;
    while (end > floor && /[\s,]/.test(text[end - 1]!)) end--;
  }
  let start = end;
  let words = 0;
  for (; start > floor; start--) {
    const c = text[start - 1]!;
    if (NAME_STOPS.has(c) || (c === " " && ++words === 13)) break;
  }
  parseWork.windowChars += at - start;
  let head = text.slice(start, end);
  // A window cut inside a word starts after it: a word's tail is not a journal's first word.
  if (start === floor && floor > 0 && text[floor - 1] !== " " && !NAME_STOPS.has(text[floor - 1]!))
    head = head.slice(head.indexOf(" ") + 1 || head.length);
  const tokens = head.trim().split(/\s+/).filter(Boolean);
  const kept: string[] = [];
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i]!;
    // A title's last word before the journal ("... decision under risk. Econometrica"): a word
    // ending a sentence, after a word that is not itself abbreviated ("Spectrosc. Radiat." is a
    // journal's; "Under Risk." a title's).
    const before = tokens[i - 1];
    const sentenceEnd = /[\p{Ll}]{4,}[.?!]$/u.test(token);
    if (
      kept.length > 0 &&
      sentenceEnd &&
      (/^\p{Ll}/u.test(token) ||
        (!isAbbreviation(token.replace(/[.?!]$/, "")) && before !== undefined && !/\.$/.test(before)))
    )
      break;
    if (!journalToken(token)) break;
    kept.unshift(token);
    if (kept.length >= 12) break;
  }
  while (kept.length > 0 && OMITTED_WORDS.has(kept[0]!.toLowerCase().replace(/[.,]$/, ""))) kept.shift();
  return kept.join(" ").replace(/[\s,:;-]+$/, "");
}

/** One key for every spelling of a journal's name: "Physical Review D", "Phys. Rev. D", "Phys.Rev.D", "PRD" -> "phys rev d". */
export function journalKey(name: string): string {
  const folded = name
    .normalize("NFKD")
    .replace(/\p{Mn}/gu, "")
    .replace(/&/g, " and ");
  // A capital standing alone is a section letter ("Phys. Rev. A", "Physica E"), never the article "a".
  const sections = new Set(
    folded
      .split(/[^A-Za-z0-9]+/)
      .filter((word) => /^[A-Z]$/.test(word))
      .map((w) => w.toLowerCase()),
  );
  const words = folded
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const compact = words.join("");
  const acronym = JOURNAL_ACRONYMS[compact];
  if (acronym) return acronym;
  const out: string[] = [];
  for (const word of words) {
    if (sections.has(word)) {
      out.push(word);
      continue;
    }
    if (OMITTED_WORDS.has(word) && out.length > 0) continue;
    if (word === "the" || word === "a") continue;
    out.push(TITLE_WORDS[word] ?? word);
  }
  // A section letter glued to an acronym ("PRD", "EPJC") was handled above; one glued to the last
  // abbreviation ("PhysRevD" written without dots) is rare enough to leave.
  const key = out.join(" ");
  return JOURNAL_ACRONYMS[key.replace(/ /g, "")] ?? key;
}

const stripZeros = (value: string) => value.replace(/^0+(?=[0-9A-Za-z])/, "").toUpperCase();

function yearIssueVolume(written: string, year: number | null): { volume: string; year: number | null } | null {
  // INSPIRE's 0705 (2007, issue 05); a reference's 05 with (2007) beside it.
  if (/^\d{4}$/.test(written) && !/^(?:19|20)\d\d$/.test(written)) {
    const yy = Number(written.slice(0, 2));
    const fullYear = yy >= 90 ? 1900 + yy : 2000 + yy;
    return { volume: `${fullYear}-${written.slice(2)}`, year: year ?? fullYear };
  }
  if (/^\d{1,2}$/.test(written) && year !== null) return { volume: `${year}-${written.padStart(2, "0")}`, year };
  return null;
}

/**
 * How far before a numeric core its journal's name is looked for. A name is a dozen words at most
 * (journalBefore keeps 12), so a bounded window reads what the whole text before would, and a
 * text full of volume-like numbers costs a window per core instead of its whole length each time.
 */
export const JOURNAL_WINDOW = 256;

/** What parsing has read so far: core attempts and window characters (tests assert it grows linearly). */
export const parseWork = { cores: 0, windowChars: 0 };

/** Every journal reference in a text (a journal_ref field may hold several, an erratum after a ";"). */
export function parseJournalRefs(raw: string): JournalRef[] {
  const text = raw
    .normalize("NFKC")
    // INSPIRE glues year-issue volumes to the acronym: JHEP0707:002 = JHEP 0707:002.
    .replace(/\b(JHEP|JCAP|JSTAT|JINST)(?=\d)/gi, "$1 ")
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/\s+/g, " ");
  const found: JournalRef[] = [];
  const seen = new Set<string>();
  // Every year in the text, found once; the last one before a core is kept by a pointer that only moves forward.
  const years = [...text.matchAll(YEAR_ANYWHERE)];
  let yearsBefore = 0;
  for (let at = 0; at < text.length; at++) {
    // Cores start at a digit (or a section letter before one, or "vol").
    const ch = text[at]!;
    if (!/[0-9A-Za-z(]/.test(ch)) continue;
    if (at > 0 && /[\w.]/.test(text[at - 1]!) && !/[.]/.test(text[at - 1]!)) continue;
    // The journal before this place is read once, however many cores match here.
    let journal: string | undefined;
    for (const core of CORES) {
      parseWork.cores++;
      core.lastIndex = at;
      const match = core.exec(text);
      if (!match?.groups) continue;
      journal ??= journalBefore(text, at);
      while (yearsBefore < years.length && years[yearsBefore]!.index + 4 <= at) yearsBefore++;
      const ref = readCore(core, match.groups, journal, found.at(-1), years[yearsBefore - 1]?.[0]);
      if (!ref) continue;
      const id = `${ref.key}|${ref.volume}|${ref.page}`;
      if (!seen.has(id)) {
        seen.add(id);
        found.push(ref);
      }
      at = core.lastIndex - 1;
      break;
    }
  }
  return found;
}

/** One core's match as a journal reference, or null when what is around it is not one. */
function readCore(
  core: RegExp,
  groups: Record<string, string | undefined>,
  journal: string,
  previous: JournalRef | undefined,
  yearBefore: string | undefined,
): JournalRef | null {
  const journalText = groups.sec ? `${journal} ${groups.sec}`.trim() : journal;
  if (!journalText || (journalText.match(/\p{L}/gu) ?? []).length < 2) return null;
  let key = journalKey(journalText);
  // "Erratum-ibid. D77:019901": the journal before it, in the section given.
  if (/\bibid\b/i.test(journalText) && previous)
    key = groups.sec ? previous.key.replace(/ [a-z]$/, ` ${groups.sec.toLowerCase()}`) : previous.key;
  if (!key) return null;
  const yearText = groups.year ?? groups.year2 ?? groups.year0 ?? groups.year3;
  let year = yearText ? Number(yearText) : null;
  // A journal numbered by year alone (J. Stat. Mech.) has the year for its volume.
  const written = groups.vol ?? yearText;
  if (!written) return null;
  let volume = stripZeros(written);
  // The astronomy journals' order puts the year before the journal: "Stahn, C. 2007, JHEP, 05, 034".
  if (YEAR_ISSUE_JOURNALS.has(key)) {
    const numbered = yearIssueVolume(written, year ?? (yearBefore ? Number(yearBefore) : null));
    if (!numbered) return null;
    volume = numbered.volume;
    year = numbered.year;
  }
  // A year read as a volume ("(2007) 034" inside a longer phrase) is not a journal reference.
  if (/^(?:19|20)\d\d$/.test(written) && !groups.page) return null;
  const page = stripZeros(groups.page!);
  // "76, 2007" is a volume and a year, unless the reference gave its year before the journal.
  if (/^(?:19|20)\d\d$/.test(page) && year === null && core === VOLUME_PAGE && !yearBefore) return null;
  return {
    journal: journalText,
    key: key.replace(/\s+/g, " ").trim(),
    volume,
    volume_written: written,
    issue: groups.issue ?? null,
    page,
    pages: `${groups.page}${(groups.range ?? "").replace(/\s*\(R\)/, "").replace(/\s+/g, "")}`,
    year,
  };
}

/** Do two journal keys name one journal? Equal, or one the other's ending (a reference may keep words before the journal). */
export function sameJournal(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.split(" ").length >= 2 && long.endsWith(` ${short}`);
}

/** Is this the same article: one journal, one volume, one first page? */
export function sameArticle(a: JournalRef, b: JournalRef): boolean {
  return a.volume === b.volume && samePage(a, b) && sameJournal(a.key, b.key);
}

/**
 * The same first page, or an article number a PDF line broke at a hyphen ("Phys.Rev.D75:12-" +
 * "4011,2007" reads as pages 12-4011): its two parts joined are the other's number.
 */
function samePage(a: JournalRef, b: JournalRef): boolean {
  const joined = (ref: JournalRef) => stripZeros(ref.pages.replace(/[^0-9A-Za-z]/g, ""));
  return a.page === b.page || joined(a) === b.page || a.page === joined(b);
}

/** How an article is cited, short: "Phys. Rev. A 76, 042309 (2007)". */
export function describeJournalRef(ref: JournalRef): string {
  return `${ref.journal} ${ref.volume_written}, ${ref.pages.split("-")[0]}${ref.year ? ` (${ref.year})` : ""}`;
}

/**
 * The spellings under which a journal index may hold this reference's volume and page (arXiv's
 * journal_ref is free text: "Phys.Rev.D76:013009,2007", "JHEP0705:034", "Phys. Rev. D 76, 13009").
 */
export function journalRefTokens(ref: JournalRef): { pages: string[]; volumes: string[] } {
  const page = ref.page.toLowerCase();
  const written = ref.pages.split("-")[0]!.toLowerCase();
  const pages = [written, page];
  // Zero-padded article numbers, and "pp77" written without a space.
  if (/^\d+$/.test(page)) pages.push(page.padStart(3, "0"), page.padStart(6, "0"), `p${page}`, `pp${page}`);
  const volumes = [ref.volume_written, ref.volume];
  const section = / ([a-z])$/.exec(ref.key)?.[1];
  if (section) volumes.push(`${section}${ref.volume}`);
  const yearIssue = /^(\d{4})-(\d{2})$/.exec(ref.volume);
  if (yearIssue) {
    const yymm = `${yearIssue[1]!.slice(2)}${yearIssue[2]}`;
    volumes.push(yymm, yearIssue[2]!, `jhep${yymm}`, `jcap${yymm}`);
  }
  const unique = (list: string[]) => [
    ...new Set(list.map((t) => t.toLowerCase()).filter((t) => /^[a-z0-9]+$/.test(t))),
  ];
  return { pages: unique(pages), volumes: unique(volumes) };
}
