// A synthetic OAI-PMH endpoint shaped like arXiv's, for the harvest's proofs: the CI test
// (tens of thousands of records) and `npm run bench:harvest` (millions). HAND-MADE, not a
// recording: it follows the documented OAI-PMH 2.0 / arXivRaw formats, and its records are built
// from the real sample's words, authors and categories (scripts/bench/arxiv-synthetic.ts).
//
// What makes it like the real endpoint:
// - ListRecords lists records in identifier order (pages of 1,000 or 2,000 by listing); datestamps are in no order (each record's is
//   the day of its last metadata change: a third of them on a few bulk re-stamping days, the rest
//   anywhere between their submission and today), and from/until select by datestamp (inclusive days);
// - resumption tokens expire after a set time, and all tokens are forgotten every N pages served
//   (as when the server restarts); an expired token is answered with badResumptionToken;
// - random 503s with Retry-After and truncated pages, by a seeded generator;
// - records change or are deleted while a harvest runs (mutate()): their datestamp becomes today;
// - a few records are unreadable in listings (no <version>) and fine by GetRecord.
import { deletedXml, recordXml } from "../arxiv/oai-xml.ts";
import { samplePools } from "../bench/arxiv-synthetic.ts";
import { mulberry32 } from "../../test/support/random.ts";
import type { MirrorRecord } from "../../src/store/arxiv-row.ts";

export interface SyntheticOaiOptions {
  /** How many records the endpoint holds. */
  n: number;
  pageSize?: number;
  pageSizes?: number[];
  seed?: number;
  today?: string;
  tokenTtlMs?: number;
  forgetTokensEveryPages?: number;
  failRate?: number;
  truncateRate?: number;
  unreadableEvery?: number;
  pools?: ReturnType<typeof samplePools>;
}

const DAY = 86_400;
const FIRST_MONTH = 2007 * 12 + 3; // 0704
const LAST_MONTH = 2026 * 12 + 9; // 2610
const BULK_DAYS = ["2007-05-23", "2009-03-18", "2011-01-11", "2015-05-01", "2019-09-17", "2023-02-14"].map(
  (d) => Date.parse(`${d}T00:00:00Z`) / 1000 / DAY,
);

const isoDay = (dayNumber: number) => new Date(dayNumber * DAY * 1000).toISOString().slice(0, 10);
const dayOf = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / 1000 / DAY);

export function createSyntheticOai({
  n,
  pageSize = 1000,
  /** Page sizes that listings take in turn (by window), as a server tuned over time would; overrides pageSize. */
  pageSizes = [pageSize],
  seed = 17,
  today = new Date().toISOString().slice(0, 10),
  tokenTtlMs = 10 * 60_000,
  forgetTokensEveryPages = 0,
  failRate = 0,
  truncateRate = 0,
  unreadableEvery = 0,
  pools = samplePools(),
}: SyntheticOaiOptions) {
  // Records per month grow over the years as arXiv's did (about 3.5 times from 2007 to 2026);
  // before 2015 an ID has four digits after the dot, so those months hold at most 9,999.
  const months = LAST_MONTH - FIRST_MONTH + 1;
  const weights = Array.from({ length: months }, (_, m) => 1 + (2.5 * m) / (months - 1));
  const fourDigits = (m: number) => FIRST_MONTH + m < 2015 * 12;
  const counts = new Array(months).fill(0);
  let spread = n;
  let open = weights.map((_, m) => m);
  while (spread > 0 && open.length > 0) {
    const total = open.reduce((sum, m) => sum + weights[m], 0);
    let placed = 0;
    const next = [];
    for (const m of open) {
      const room = fourDigits(m) ? 9999 - counts[m] : Infinity;
      const share = Math.min(room, Math.max(1, Math.round((spread * weights[m]) / total)), spread - placed);
      counts[m] += share;
      placed += share;
      if (counts[m] < (fourDigits(m) ? 9999 : Infinity)) next.push(m);
    }
    spread -= placed;
    open = placed === 0 ? [] : next;
  }
  if (spread > 0) throw new Error(`${n} records do not fit the ID space`);
  const monthStarts = new Int32Array(months + 1);
  for (let m = 0; m < months; m++) monthStarts[m + 1] = monthStarts[m] + counts[m];
  const todayNumber = dayOf(today);
  const datestamp = new Int32Array(n);
  const revision = new Uint8Array(n);
  const deleted = new Uint8Array(n);
  const faults = mulberry32(seed * 7919);
  let epoch = 1;
  let pagesServed = 0;
  const stats = { pages: 0, records: 0, failures503: 0, truncated: 0, expired: 0, getRecord: 0, noRecordsMatch: 0 };

  /** The month slot (0 = 0704) holding record i: a binary search over the month starts. */
  const slotOf = (i: number) => {
    let lo = 0;
    let hi = months - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (monthStarts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const idOf = (i: number) => {
    const slot = slotOf(i);
    const month = FIRST_MONTH + slot;
    const year = Math.floor(month / 12);
    const yymm = `${String(year % 100).padStart(2, "0")}${String((month % 12) + 1).padStart(2, "0")}`;
    return `${yymm}.${String(i - monthStarts[slot] + 1).padStart(fourDigits(slot) ? 4 : 5, "0")}`;
  };
  const indexOf = (id: string) => {
    const match = /^(\d{2})(\d{2})\.(\d{4,5})$/.exec(id);
    if (!match) return -1;
    const slot = (2000 + Number(match[1])) * 12 + Number(match[2]) - 1 - FIRST_MONTH;
    if (slot < 0 || slot >= months) return -1;
    const i = monthStarts[slot] + Number(match[3]) - 1;
    return i >= 0 && i < n && idOf(i) === id ? i : -1;
  };
  const publishedOf = (i: number) => {
    const slot = slotOf(i);
    const month = FIRST_MONTH + slot;
    const start = Date.UTC(Math.floor(month / 12), month % 12, 1) / 1000;
    return Math.floor(start + ((i - monthStarts[slot] + 1) / (counts[slot] + 1)) * 28 * DAY);
  };

  // Datestamps: in no order within a listing (identifier order), spread over the years.
  for (let i = 0; i < n; i++) {
    const random = mulberry32(seed * 1_000_003 + i);
    const submitted = Math.floor(publishedOf(i) / DAY);
    const bulk = BULK_DAYS.filter((d) => d >= submitted);
    datestamp[i] =
      bulk.length > 0 && random() < 0.35
        ? bulk[Math.floor(random() * bulk.length)]
        : submitted + Math.floor(random() * Math.max(1, todayNumber - 1 - submitted));
  }

  /** Record i as the upstream holds it now (its revision decides its latest version and title). */
  function recordAt(i: number): MirrorRecord {
    const random = mulberry32(seed * 1_000_003 + i + 0x9e3779b9);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
    const phrase = (length: number) => Array.from({ length }, () => pick(pools.words)).join(" ");
    const published = publishedOf(i);
    const versionCount = 1 + Math.floor(random() * random() * 3);
    const versions = Array.from(
      { length: versionCount },
      (_, v) => published + v * (1 + Math.floor(random() * 60)) * DAY,
    );
    for (let r = 1; r <= revision[i]; r++) versions.push(Math.max(versions.at(-1)! + DAY, (todayNumber - 1) * DAY + r));
    const title = phrase(pick(pools.titleLengths));
    return {
      id: idOf(i),
      style: "new",
      title: revision[i] > 0 ? `${title} (revised ${revision[i]})` : title,
      authors: Array.from({ length: 1 + Math.floor(random() * random() * 8) }, () => pick(pools.authors)).join(", "),
      abstract: phrase(pick(pools.abstractLengths)),
      categories: pick(pools.categorySets),
      versions,
      comment: pick(pools.comments),
      journal_ref: pick(pools.journalRefs),
      doi: pick(pools.dois),
      license: pick(pools.licenses),
      datestamp: isoDay(datestamp[i]),
    };
  }

  const unreadable = (i: number) => unreadableEvery > 0 && i % unreadableEvery === 7;

  function itemXml(i: number, forGetRecord = false) {
    if (deleted[i]) return deletedXml(idOf(i), isoDay(datestamp[i]));
    const xml = recordXml(recordAt(i), isoDay(datestamp[i]));
    return unreadable(i) && !forGetRecord ? xml.replace(/<version version="v\d+">.*?<\/version>/g, "") : xml;
  }

  const envelope = (request: string, body: string) => `<?xml version="1.0" encoding="UTF-8"?>
<!-- HAND-MADE synthetic OAI-PMH endpoint (scripts/fake-upstream/oai-synthetic.ts) -->
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">
<responseDate>${new Date().toISOString().replace(/\.\d+Z$/, "Z")}</responseDate>
<request ${request}>https://oaipmh.arxiv.org/oai</request>
${body}
</OAI-PMH>
`;
  const oaiError = (code: string, text: string) => {
    if (code === "noRecordsMatch") stats.noRecordsMatch++;
    return xmlResponse(envelope(`verb="ListRecords"`, `<error code="${code}">${text}</error>`));
  };
  const xmlResponse = (body: string, status = 200, headers: Record<string, string> = {}) =>
    new Response(body, {
      status,
      headers: { "content-type": "text/xml; charset=utf-8", "x-fake-upstream": "hand-made", ...headers },
    });

  const inWindow = (i: number, from: number, until: number) => datestamp[i] >= from && datestamp[i] <= until;
  function nextMatch(position: number, from: number, until: number) {
    for (let i = position; i < n; i++) if (inWindow(i, from, until)) return i;
    return -1;
  }

  function listRecords(params: URLSearchParams) {
    let from: number, until: number, position: number;
    const token = params.get("resumptionToken");
    if (token !== null) {
      const parts = token.split("|");
      const [issued, tokenEpoch] = [Number(parts[3]), Number(parts[4])];
      if (parts.length !== 5 || tokenEpoch !== epoch || Date.now() - issued > tokenTtlMs) {
        stats.expired++;
        return oaiError("badResumptionToken", "The value of the resumptionToken argument is invalid or expired.");
      }
      [from, until, position] = [Number(parts[0]), Number(parts[1]), Number(parts[2])];
    } else {
      if (params.get("metadataPrefix") !== "arXivRaw")
        return oaiError("cannotDisseminateFormat", "only arXivRaw is synthesised");
      from = params.get("from") ? dayOf(params.get("from")!) : -1e9;
      until = params.get("until") ? dayOf(params.get("until")!) : 1e9;
      position = nextMatch(0, from, until);
      if (position < 0)
        return oaiError(
          "noRecordsMatch",
          "The combination of the values of the from, until, set and metadataPrefix arguments results in an empty list.",
        );
    }
    const items = [];
    const size = pageSizes[Math.abs(from + until) % pageSizes.length];
    let i = position;
    for (; i < n && items.length < size; i++) if (inWindow(i, from, until)) items.push(itemXml(i));
    const following = nextMatch(i, from, until);
    const expires = new Date(Date.now() + tokenTtlMs).toISOString().replace(/\.\d+Z$/, "Z");
    const tokenXml =
      following < 0
        ? "<resumptionToken/>"
        : `<resumptionToken expirationDate="${expires}">${from}|${until}|${following}|${Date.now()}|${epoch}</resumptionToken>`;
    stats.pages++;
    stats.records += items.length;
    // Every N pages the server forgets its tokens (as a restart would): the one just issued too.
    if (forgetTokensEveryPages > 0 && ++pagesServed % forgetTokensEveryPages === 0) epoch++;
    return xmlResponse(
      envelope(`verb="ListRecords"`, `<ListRecords>\n${items.join("\n")}\n${tokenXml}\n</ListRecords>`),
    );
  }

  function getRecord(params: URLSearchParams) {
    stats.getRecord++;
    const i = indexOf((params.get("identifier") ?? "").replace(/^oai:arXiv\.org:/, ""));
    if (i < 0)
      return xmlResponse(
        envelope(`verb="GetRecord"`, `<error code="idDoesNotExist">No matching identifier in arXiv</error>`),
      );
    return xmlResponse(envelope(`verb="GetRecord"`, `<GetRecord>\n${itemXml(i, true)}\n</GetRecord>`));
  }

  return {
    stats,
    /** Answers one OAI-PMH request (the base URL's query decides the verb). */
    async handle(request: Request) {
      const params = new URL(request.url).searchParams;
      if (failRate > 0 && faults() < failRate) {
        stats.failures503++;
        return new Response("<html><body>Service temporarily unavailable (synthetic)</body></html>", {
          status: 503,
          headers: { "retry-after": "1", "content-type": "text/html", "x-fake-upstream": "hand-made" },
        });
      }
      const response = params.get("verb") === "GetRecord" ? getRecord(params) : listRecords(params);
      if (truncateRate > 0 && params.get("verb") === "ListRecords" && faults() < truncateRate) {
        stats.truncated++;
        const text = await response.text();
        return xmlResponse(text.slice(0, Math.floor(text.length / 2)));
      }
      return response;
    },
    /** Changes `changed` records (a new version, a new title) and deletes `removed`, all stamped today. */
    mutate({ changed = 0, removed = 0, seed: mutationSeed = 1 } = {}) {
      const random = mulberry32(mutationSeed);
      for (let k = 0; k < changed + removed; k++) {
        const i = Math.floor(random() * n);
        if (deleted[i]) continue;
        if (k < changed) revision[i] = Math.min(250, revision[i] + 1);
        else deleted[i] = 1;
        datestamp[i] = todayNumber;
      }
    },
    /** Every record the upstream holds now (deleted ones left out), in identifier order. */
    *records() {
      for (let i = 0; i < n; i++) if (!deleted[i]) yield recordAt(i);
    },
    forgetTokens() {
      epoch++;
    },
    size: () => n - deleted.reduce((sum, d) => sum + d, 0),
    idOf,
  };
}
