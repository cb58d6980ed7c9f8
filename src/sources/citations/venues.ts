// Venue names compared as venues, not as strings: "NeurIPS", "NIPS", "Advances in Neural
// Information Processing Systems" and "Neural Information Processing Systems" are one venue;
// "CVPR" and "2023 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)" are one;
// a workshop or "Findings" is not its main conference. Journals fall back to the ISO 4 key the
// journal-reference parser uses ("Mach. Learn." = "Machine Learning"). Pure.
import { journalKey } from "../../search/journal-ref";
import { asciiFold } from "./names";

interface KnownVenue {
  key: string;
  /** Written as a word in capitals or mixed case ("NeurIPS", "CVPR"): matched case-sensitively. */
  acronyms: string[];
  /** Phrases of the full name, matched in the folded name at word boundaries. */
  names: string[];
}

// The venues of computer science, statistics and the sciences most cited by the papers we check,
// with the spellings DBLP, Crossref, OpenAlex, Semantic Scholar and bibliographies use.
const KNOWN: KnownVenue[] = [
  {
    key: "neurips",
    acronyms: ["NeurIPS", "NIPS", "NeuRIPS"],
    names: ["neural information processing systems"],
  },
  { key: "icml", acronyms: ["ICML"], names: ["international conference on machine learning"] },
  { key: "iclr", acronyms: ["ICLR"], names: ["international conference on learning representations"] },
  {
    key: "cvpr",
    acronyms: ["CVPR"],
    names: ["computer vision and pattern recognition"],
  },
  { key: "iccv", acronyms: ["ICCV"], names: ["international conference on computer vision"] },
  { key: "eccv", acronyms: ["ECCV"], names: ["european conference on computer vision"] },
  { key: "wacv", acronyms: ["WACV"], names: ["winter conference on applications of computer vision"] },
  { key: "bmvc", acronyms: ["BMVC"], names: ["british machine vision conference"] },
  {
    key: "aaai",
    acronyms: ["AAAI"],
    names: ["aaai conference on artificial intelligence", "national conference on artificial intelligence"],
  },
  { key: "ijcai", acronyms: ["IJCAI"], names: ["international joint conference on artificial intelligence"] },
  { key: "uai", acronyms: ["UAI"], names: ["uncertainty in artificial intelligence"] },
  { key: "aistats", acronyms: ["AISTATS"], names: ["artificial intelligence and statistics"] },
  { key: "colt", acronyms: ["COLT"], names: ["conference on learning theory", "computational learning theory"] },
  { key: "alt", acronyms: ["ALT"], names: ["algorithmic learning theory"] },
  {
    key: "acl",
    acronyms: ["ACL"],
    names: ["annual meeting of the association for computational linguistics"],
  },
  { key: "emnlp", acronyms: ["EMNLP"], names: ["empirical methods in natural language processing"] },
  {
    key: "naacl",
    acronyms: ["NAACL", "NAACL-HLT"],
    names: ["north american chapter of the association for computational linguistics"],
  },
  {
    key: "eacl",
    acronyms: ["EACL"],
    names: ["european chapter of the association for computational linguistics"],
  },
  { key: "coling", acronyms: ["COLING"], names: ["international conference on computational linguistics"] },
  { key: "tacl", acronyms: ["TACL"], names: ["transactions of the association for computational linguistics"] },
  { key: "interspeech", acronyms: ["INTERSPEECH", "Interspeech"], names: [] },
  { key: "icassp", acronyms: ["ICASSP"], names: ["acoustics speech and signal processing"] },
  { key: "kdd", acronyms: ["KDD", "SIGKDD"], names: ["knowledge discovery and data mining"] },
  { key: "www", acronyms: ["WWW"], names: ["the web conference", "world wide web conference"] },
  { key: "sigir", acronyms: ["SIGIR"], names: ["research and development in information retrieval"] },
  { key: "wsdm", acronyms: ["WSDM"], names: ["web search and data mining"] },
  { key: "cikm", acronyms: ["CIKM"], names: ["information and knowledge management"] },
  { key: "icde", acronyms: ["ICDE"], names: ["international conference on data engineering"] },
  { key: "sigmod", acronyms: ["SIGMOD"], names: ["management of data"] },
  { key: "vldb", acronyms: ["VLDB", "PVLDB"], names: ["very large data bases"] },
  { key: "icra", acronyms: ["ICRA"], names: ["international conference on robotics and automation"] },
  { key: "iros", acronyms: ["IROS"], names: ["intelligent robots and systems"] },
  { key: "corl", acronyms: ["CoRL"], names: ["conference on robot learning"] },
  { key: "rss", acronyms: ["RSS"], names: ["robotics science and systems"] },
  {
    key: "miccai",
    acronyms: ["MICCAI"],
    names: ["medical image computing and computer assisted intervention"],
  },
  { key: "chi", acronyms: ["CHI"], names: ["human factors in computing systems"] },
  { key: "stoc", acronyms: ["STOC"], names: ["symposium on theory of computing"] },
  { key: "focs", acronyms: ["FOCS"], names: ["foundations of computer science"] },
  { key: "soda", acronyms: ["SODA"], names: ["symposium on discrete algorithms"] },
  { key: "jmlr", acronyms: ["JMLR"], names: ["journal of machine learning research"] },
  { key: "tmlr", acronyms: ["TMLR"], names: ["transactions on machine learning research"] },
  {
    key: "tpami",
    acronyms: ["TPAMI", "PAMI"],
    names: ["transactions on pattern analysis and machine intelligence"],
  },
  { key: "ijcv", acronyms: ["IJCV"], names: ["international journal of computer vision"] },
];

/** A publisher or a report series cited where a venue would be ("Springer", "Technical report"): no claim of a venue. */
const PUBLISHER =
  /\b(press|publish(ers?|ing)|springer|wiley|elsevier|kluwer|routledge|birkh[aä]user|crc|academic press|technical report|tech\. rep|white paper|thesis|dissertation)\b/i;

export const isPublisher = (name: string): boolean =>
  (PUBLISHER.test(name) || SERIES.test(folded(name))) && knownVenue(name) === null;

/** Names that are a series or a publisher, not a venue: a record naming only these has no venue to compare. */
const SERIES =
  /^(lecture notes in (computer science|artificial intelligence)|lncs|lnai|proceedings of machine learning research|pmlr|ceur workshop proceedings|openreview(\.net)?|ieee|acm|springer|elsevier)$/;

/** A preprint server: a citation of the preprint is not a claim about where the work was published. */
const PREPRINT = /\b(arxiv|corr|biorxiv|medrxiv|ssrn|preprint|e-?prints?|chemrxiv|research square|techrxiv)\b/i;

const folded = (name: string) =>
  asciiFold(name)
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();

let isoKeys: Map<string, string> | undefined;
/** Each known venue's names as ISO 4 keys, so that "J. Mach. Learn. Res." is the JMLR. */
function byIsoKey(): Map<string, string> {
  isoKeys ??= new Map(KNOWN.flatMap((venue) => venue.names.map((name) => [journalKey(name), venue.key] as const)));
  return isoKeys;
}

/** The venue's key ("neurips", "cvpr:workshop"), or null when it is not one we know. */
export function knownVenue(name: string): string | null {
  const words = ` ${folded(name)} `;
  // DBLP and Springer write "IEEE Trans. Pattern Anal. Mach. Intell." and "{IEEE} Trans ...": the publisher aside.
  const iso = byIsoKey().get(journalKey(withoutPublisher(name)));
  if (iso) return iso;
  for (const venue of KNOWN) {
    const acronym = venue.acronyms.some((a) =>
      new RegExp(`(?:^|[^A-Za-z])${a.replace(/[-.]/g, "\\$&")}(?:W|[^A-Za-z]|$)`).test(name),
    );
    const named = venue.names.some((phrase) => words.includes(` ${phrase} `));
    if (!acronym && !named) continue;
    const workshop = /\bworkshops?\b/i.test(name) || new RegExp(`(?:^|[^A-Za-z])${venue.acronyms[0]}W\\b`).test(name);
    const findings = /\bfindings\b/i.test(name);
    return `${venue.key}${workshop ? ":workshop" : findings ? ":findings" : ""}`;
  }
  return null;
}

export const isPreprintVenue = (name: string): boolean => PREPRINT.test(name);

/** Whether a record's venue name says nothing of where the work appeared (a series, a publisher). */
export const isSeries = (name: string): boolean => SERIES.test(folded(name));

/**
 * Is the cited venue the record's? Known venues by key; others by their ISO 4 key or their
 * folded words, one inside the other ("Machine Learning" and "Mach. Learn.").
 */
export function sameVenue(cited: string, recorded: string): boolean {
  // The same name but for an acronym in parentheses or a journal's subtitle after a colon
  // ("Econometrica: Journal of the Econometric Society"; "... Clinical Decision Support (MICCAI)").
  // A workshop or Findings is never its main venue, however alike the names.
  const kind = (name: string) =>
    /\bworkshops?\b|\b[A-Z]{3,}W\b/.test(name) ? "w" : /\bfindings\b/i.test(name) ? "f" : "";
  if (kind(cited) !== kind(recorded)) return false;
  const plain = (name: string) => nameWords(folded(withoutPublisher(name.replace(/\([^)]*\)/g, " "))));
  const whole = (name: string) => folded(name).replace(/^the\s+/, "");
  const main = (name: string) => folded(name.split(":")[0]!).replace(/^the\s+/, "");
  // One name is the other's main part, its subtitle left out (not two subtitles of one name: AEJ: Applied, AEJ: Macro).
  const subtitleLeftOut = (a: string, b: string) => a.includes(":") && !b.includes(":") && main(a) === whole(b);
  if (
    overlap(plain(cited), plain(recorded)) >= 0.75 ||
    subtitleLeftOut(cited, recorded) ||
    subtitleLeftOut(recorded, cited) ||
    startsAnother(plain(cited), plain(recorded))
  )
    return true;
  const a = knownVenue(cited);
  const b = knownVenue(recorded);
  if (a && b) return a === b;
  // One side a venue of the table, the other written some way the table lacks: its words against the venue's names.
  if (a || b) {
    const venue = KNOWN.find((v) => v.key === (a ?? b)!.split(":")[0]);
    const other = nameWords(folded(withoutPublisher(a ? recorded : cited)));
    return (
      !!venue &&
      !/workshop|findings/i.test(a ? recorded : cited) &&
      venue.names.some((n) => overlap(other, nameWords(n)) >= 0.75)
    );
  }
  if (journalKey(withoutPublisher(cited)) === journalKey(withoutPublisher(recorded))) return true;
  const x = folded(cited).replace(/^the\s+/, "");
  const y = folded(recorded).replace(/^the\s+/, "");
  if (x.length === 0 || y.length === 0) return false;
  if (x === y) return true;
  // Most of the same distinctive words: a journal renamed in a word or two ("... Series B (Methodological)" and
  // "... Series B: Statistical Methodology"). One name inside another is not enough: Nature is not Nature
  // Communications, nor Cell Cell Reports.
  return overlap(nameWords(x), nameWords(y)) >= 0.75;
}

/** A name without the publisher before it ("IEEE", "ACM", "{IEEE}"): how abbreviations are often written. */
const withoutPublisher = (name: string) => name.replace(/^[{]?(IEEE|ACM|SIAM|IET)[}]?\s+(?=\S)/, "");

// "a" is no filler: Series A and Series B, Physica A and Physica E are other journals.
const FILLER = new Set(
  "the of on in and for an proceedings proc annual international conference conf symposium".split(" "),
);

/** A venue name's distinctive words, cut to their first six letters (methodological = methodology). */
const nameWords = (name: string) =>
  new Set(
    name
      .split(" ")
      .filter((word) => word && !FILLER.has(word) && !/^\d+(st|nd|rd|th)?$/.test(word))
      .map((word) => word.slice(0, 6)),
  );

/**
 * A name of three distinctive words or more that the other begins with ("Proceedings of the National Academy of
 * Sciences" and "... of the United States of America"); one or two words are too little (Nature, Cell, Pattern Recognition).
 */
function startsAnother(a: Set<string>, b: Set<string>): boolean {
  const [short, long] = a.size <= b.size ? [[...a], [...b]] : [[...b], [...a]];
  return short.length >= 3 && short.every((word, i) => long[i] === word);
}

/** The share of words two names have in common (Jaccard). */
function overlap(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / Math.max(1, a.size + b.size - shared);
}
