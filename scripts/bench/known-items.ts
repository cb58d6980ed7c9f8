// Real papers mixed into the synthetic bench mirror, and the searches that must find them:
// - the real records of data/arxiv-sample (1,328 full records and 2,261 quant-ph titles with
//   abstracts), whose titles become the known-item searches (a pasted title, ti:, quoted);
// - the gold papers of the 1,000 ScholarGym research questions (data/scholargym: arXiv ID, title,
//   year), stored with their real title and ID; their other fields are drawn like a synthetic
//   paper's, since the question set carries no more.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadSampleRecords } from "../arxiv/sample.ts";
import { mulberry32 } from "../../test/support/random.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The 2,261 quant-ph records of 2001 (identifier, title, abstract, date) as mirror records. */
function quantPhRecords() {
  const xml = readFileSync(path.join(ROOT, "data/arxiv-sample/oai_dc-derived_quant-ph_2001_2261-records.xml"), "utf8");
  const out = [];
  for (const m of xml.matchAll(
    /<identifier>oai:arXiv\.org:([^<]+)<\/identifier>[\s\S]*?<title>([\s\S]*?)<\/title><description>([\s\S]*?)<\/description>/g,
  )) {
    const id = m[1];
    const legacy = /^[a-z-]+(\.[A-Z]{2})?\/(\d\d)(\d\d)\d+$/.exec(id);
    if (!legacy) continue;
    const year = Number(legacy[2]) + (Number(legacy[2]) > 90 ? 1900 : 2000);
    const published = Date.UTC(year, Number(legacy[3]) - 1, 10) / 1000;
    out.push({
      id,
      style: "legacy",
      title: decode(m[2]),
      authors: "",
      abstract: decode(m[3]),
      categories: ["quant-ph"],
      versions: [published],
      comment: null,
      journal_ref: null,
      doi: null,
      license: null,
      datestamp: new Date(published * 1000).toISOString().slice(0, 10),
    });
  }
  return out;
}
const decode = (s) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");

export function loadResearchQuestions() {
  return readFileSync(path.join(ROOT, "data/scholargym/scholargym-autoscholar-dev.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** A question as the agent typed it: a ( ) or " would be arXiv query syntax, so they become spaces, and AND/OR/ANDNOT plain words. */
export const questionText = (question) =>
  question.query.replace(/[()"]/g, " ").replace(/\b(AND|OR|ANDNOT)\b/g, (w) => w.toLowerCase());

/** Every real paper the bench mirror holds beside its synthetic ones (one per ID). */
export function knownRecords(pools) {
  const byId = new Map();
  for (const record of quantPhRecords()) byId.set(record.id, record);
  for (const record of loadSampleRecords()) byId.set(record.id, record);
  const random = mulberry32(7);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const phrase = (length) => Array.from({ length }, () => pick(pools.words)).join(" ");
  for (const question of loadResearchQuestions()) {
    for (const gold of question.cited_paper) {
      if (byId.has(gold.arxiv_id)) continue;
      const [, yy, mm] = /^(\d\d)(\d\d)\./.exec(gold.arxiv_id);
      const published = Date.UTC(2000 + Number(yy), Number(mm) - 1, 12) / 1000;
      byId.set(gold.arxiv_id, {
        id: gold.arxiv_id,
        style: "new",
        title: gold.title,
        authors: Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick(pools.authors)).join(", "),
        abstract: phrase(pick(pools.abstractLengths)),
        categories: pick(pools.categorySets),
        versions: [published],
        comment: pick(pools.comments),
        journal_ref: null,
        doi: null,
        license: pick(pools.licenses),
        datestamp: new Date(published * 1000).toISOString().slice(0, 10),
      });
    }
  }
  return [...byId.values()];
}

/** A title as an agent pastes it: lower case (so and/or are words, not operators), punctuation dropped, one space between words. */
export function pastedTitle(title) {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * The known-item searches: `count` sample titles (every `step`-th with at least three words),
 * in turn as the pasted title, as ti: words and as a quoted title phrase.
 */
export function knownItemSearches(records, count = 360) {
  const candidates = records.filter((r) => pastedTitle(r.title).split(" ").length >= 3 && !r.title.includes('"'));
  const step = Math.max(1, Math.floor(candidates.length / count));
  const out = [];
  for (let i = 0; i < candidates.length && out.length < count; i += step) {
    const record = candidates[i];
    const words = pastedTitle(record.title);
    const form = out.length % 3;
    const query =
      form === 0
        ? words
        : form === 1
          ? words
              .split(" ")
              .map((w) => `ti:${w}`)
              .join(" ")
          : `"${words}"`;
    out.push({ id: record.id, title: record.title, form: ["pasted", "ti:", "quoted"][form], query });
  }
  return out;
}
