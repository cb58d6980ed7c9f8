// Writes the HAND-MADE OAI-PMH ListRecords pages in test/fixtures/oai-pmh/hand-made/. No
// recording of a multi-page arXivRaw harvest from the current endpoint exists, so these pages
// follow the documented format (OAI-PMH 2.0 + arXivRaw, resumptionToken with expirationDate, an
// empty token on the last page) and carry real records from data/arxiv-sample (Kaggle's
// snapshot, 0704.0001-0704.0180). Only the datestamps, the tokens, one deletion and one revised
// record are made up. Run: node scripts/arxiv/make-oai-fixtures.ts
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deletedXml, page, recordXml } from "./oai-xml.ts";
import { loadSampleRecords } from "./sample.ts";

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../test/fixtures/oai-pmh/hand-made");
const sample = loadSampleRecords()
  .filter((r) => r.id.startsWith("0704."))
  .sort((a, b) => a.id.localeCompare(b.id));
const day = ["2026-11-20", "2026-11-21", "2026-11-22"];
const p1 = sample.slice(0, 60).map((r) => recordXml(r, day[0]));
// Page 2 also revises a paper of page 1 (a new version, one more category) and deletes another.
const revised = {
  ...sample[9],
  versions: [...sample[9].versions, 1764000000],
  categories: [...sample[9].categories, "cs.LG"],
};
const p2 = [
  ...sample.slice(60, 120).map((r) => recordXml(r, day[1])),
  recordXml(revised, day[1]),
  deletedXml(sample[4].id, day[1]),
];
const p3 = sample.slice(120, 180).map((r) => recordXml(r, day[2]));
writeFileSync(path.join(OUT, "ListRecords_page1.xml"), page(p1, "hm|2"));
writeFileSync(path.join(OUT, "ListRecords_page2.xml"), page(p2, "hm|3"));
writeFileSync(path.join(OUT, "ListRecords_page3_last.xml"), page(p3, null));
// The last page after the recorded legacy page 1 (token 726959|1001): old shape, empty token with attributes.
writeFileSync(
  path.join(OUT, "ListRecords_legacy_last.xml"),
  page(
    sample.slice(180, 186).map((r) => recordXml(r, "2015-01-05")),
    null,
    { legacy: true },
  ),
);
// Cut off in transit: the first 3,000 bytes of page 2.
writeFileSync(path.join(OUT, "ListRecords_page2_truncated.xml"), page(p2, "hm|3").slice(0, 3000));
console.log(`wrote hand-made OAI-PMH pages to ${OUT}: ${p1.length}, ${p2.length}, ${p3.length} records`);
