// OAI-PMH 2.0 ListRecords pages in arXivRaw, written from mirror records: the hand-made test
// fixtures (make-oai-fixtures.ts) and the benchmark's synthetic OAI endpoint use this one writer.
import type { MirrorRecord } from "../../src/store/arxiv-row.ts";

const escapeXml = (text: unknown) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const rfc1123 = (unix: number) => new Date(unix * 1000).toUTCString();

export function recordXml(record: MirrorRecord, datestamp: string): string {
  const optional = (tag: string, value: string | null) => (value ? `<${tag}>${escapeXml(value)}</${tag}>` : "");
  const versions = record.versions
    .map((at, i) => `<version version="v${i + 1}"><date>${rfc1123(at)}</date><size>100kb</size></version>`)
    .join("");
  const sets = [...new Set(record.categories.map((c) => c.split(".")[0]))]
    .map((s) => `\n <setSpec>${s}</setSpec>`)
    .join("");
  return `<record>
<header>
 <identifier>oai:arXiv.org:${record.id}</identifier>
 <datestamp>${datestamp}</datestamp>${sets}
</header>
<metadata>
 <arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://arxiv.org/OAI/arXivRaw/ http://arxiv.org/OAI/arXivRaw.xsd">
 <id>${record.id}</id><submitter>hand-made fixture</submitter>${versions}<title>${escapeXml(record.title)}</title><authors>${escapeXml(record.authors)}</authors><categories>${record.categories.join(" ")}</categories>${optional("comments", record.comment)}${optional("journal-ref", record.journal_ref)}${optional("doi", record.doi)}${optional("license", record.license)}<abstract>${escapeXml(record.abstract)}</abstract></arXivRaw>
</metadata>
</record>`;
}

export const deletedXml = (id: string, datestamp: string): string => `<record>
<header status="deleted">
 <identifier>oai:arXiv.org:${id}</identifier>
 <datestamp>${datestamp}</datestamp>
</header>
</record>`;

export function page(
  records: string[],
  token: string | null,
  {
    legacy = false,
    note = "HAND-MADE fixture (scripts/arxiv/make-oai-fixtures.ts): documented OAI-PMH 2.0 / arXivRaw format, real records from data/arxiv-sample",
  }: { legacy?: boolean; note?: string } = {},
): string {
  const tokenXml =
    token === null
      ? legacy
        ? `<resumptionToken cursor="1000" completeListSize="1006"></resumptionToken>`
        : `<resumptionToken/>`
      : `<resumptionToken expirationDate="2026-12-01T12:00:00Z">${token}</resumptionToken>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- ${note} -->
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">
<responseDate>2026-11-30T02:30:00Z</responseDate>
<request verb="ListRecords" metadataPrefix="arXivRaw">https://oaipmh.arxiv.org/oai</request>
<ListRecords>
${records.join("\n")}
${tokenXml}
</ListRecords>
</OAI-PMH>
`;
}
