// OAI-PMH ListRecords pages (and GetRecord answers) -> records, for both arXiv endpoints:
// - the legacy export.arxiv.org/oai2: <resumptionToken cursor=".." completeListSize="..">;
// - the current oaipmh.arxiv.org/oai: <resumptionToken expirationDate="..">, and an empty token
//   (or none) on the last page.
// Metadata formats: arXivRaw (default: version history with dates) and arXiv (no version
// numbers: created/updated only). OAI errors come back typed; a truncated or non-XML page throws.
import { parseArxivId } from "../sources/arxiv/ids";
import { createXmlParser, declaresEntities, xmlOptional, xmlText, type XmlNode } from "../xml";
import type { MirrorRecord } from "../store/arxiv-row";

export type OaiItem = { kind: "record"; record: MirrorRecord } | { kind: "deleted"; id: string; datestamp: string };

export interface OaiPage {
  items: OaiItem[];
  /** null: this was the last page. */
  resumptionToken: string | null;
  completeListSize: number | null;
  cursor: number | null;
  expirationDate: string | null;
  responseDate: string | null;
  /** Records whose identifier or metadata could not be read (kept aside; paperId null when the identifier is no arXiv ID). */
  skipped: { identifier: string; paperId: string | null; problem: string }[];
}

/** An OAI-PMH <error code="...">: badResumptionToken, noRecordsMatch, badArgument, ... */
export class OaiError extends Error {
  override name = "OaiError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The page is not a complete OAI-PMH document (cut off, an HTML error page, a DOCTYPE). */
export class OaiMalformed extends Error {
  override name = "OaiMalformed";
}

const parser = createXmlParser(["record", "setSpec", "version", "author", "affiliation", "error"]);
const asNode = (value: unknown): XmlNode => (value && typeof value === "object" ? (value as XmlNode) : {});

export function parseOaiPage(xml: string): OaiPage {
  const head = xml.slice(0, 2000);
  if (declaresEntities(xml)) throw new OaiMalformed("the page declares a DOCTYPE or entities");
  if (!/<OAI-PMH[\s>]/.test(head))
    throw new OaiMalformed(/<html/i.test(head) ? "an HTML page, not OAI-PMH" : "no <OAI-PMH> element");
  // A page cut off in transit still parses into a prefix of its records: insist on the end tag.
  if (!/<\/OAI-PMH>\s*$/.test(xml.slice(-200))) throw new OaiMalformed("the page is truncated (no closing </OAI-PMH>)");
  let document: XmlNode;
  try {
    document = parser.parse(xml);
  } catch (error) {
    throw new OaiMalformed(
      `not well-formed XML: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`,
    );
  }
  const root = asNode(document["OAI-PMH"]);
  const errors = root["error"] as unknown[] | undefined;
  if (errors && errors.length > 0) {
    const first = asNode(errors[0]);
    const code = xmlText(first["@_code"]) || "unknown";
    throw new OaiError(code, `${code}: ${xmlText(errors[0]).replace(/\s+/g, " ").trim() || "(no message)"}`);
  }
  // GetRecord (the end-of-run retry of an unreadable record) has the same record shape, no token.
  const list = root["ListRecords"] ?? root["GetRecord"];
  if (list === undefined) throw new OaiMalformed("no <ListRecords> or <GetRecord> element");
  const listNode = asNode(list);
  const items: OaiItem[] = [];
  const skipped: OaiPage["skipped"] = [];
  for (const raw of (listNode["record"] as unknown[] | undefined) ?? []) {
    const record = asNode(raw);
    const header = asNode(record["header"]);
    const identifier = xmlText(header["identifier"]).trim();
    const datestamp = xmlText(header["datestamp"]).trim().slice(0, 10);
    const parsed = parseArxivId(identifier.replace(/^oai:arXiv\.org:/i, ""));
    if (!parsed.ok) {
      skipped.push({ identifier: identifier.slice(0, 200), paperId: null, problem: parsed.problem });
      continue;
    }
    if (xmlText(header["@_status"]) === "deleted") {
      items.push({ kind: "deleted", id: parsed.id.base, datestamp });
      continue;
    }
    const metadata = asNode(record["metadata"]);
    try {
      const mirrorRecord =
        metadata["arXivRaw"] !== undefined
          ? fromArxivRaw(asNode(metadata["arXivRaw"]), parsed.id.base, parsed.id.style, datestamp)
          : metadata["arXiv"] !== undefined
            ? fromArxivFormat(asNode(metadata["arXiv"]), parsed.id.base, parsed.id.style, datestamp)
            : undefined;
      if (!mirrorRecord)
        skipped.push({ identifier, paperId: parsed.id.base, problem: "no arXivRaw or arXiv metadata" });
      else items.push({ kind: "record", record: mirrorRecord });
    } catch (error) {
      skipped.push({
        identifier,
        paperId: parsed.id.base,
        problem: error instanceof Error ? error.message : String(error),
      });
    }
  }
  const tokenNode = listNode["resumptionToken"];
  const token = xmlOptional(tokenNode);
  const tokenAttrs = asNode(tokenNode);
  const number = (value: unknown) =>
    value === undefined || xmlText(value) === "" || Number.isNaN(Number(xmlText(value)))
      ? null
      : Number(xmlText(value));
  return {
    items,
    resumptionToken: token,
    completeListSize: number(tokenAttrs["@_completeListSize"]),
    cursor: number(tokenAttrs["@_cursor"]),
    expirationDate: xmlOptional(tokenAttrs["@_expirationDate"]),
    responseDate: xmlOptional(root["responseDate"]),
    skipped,
  };
}

function seconds(date: string, what: string): number {
  const ms = Date.parse(date);
  if (Number.isNaN(ms)) throw new Error(`${what} ${JSON.stringify(date.slice(0, 40))} is not a date`);
  return Math.floor(ms / 1000);
}

function required(node: XmlNode, field: string): string {
  const value = xmlOptional(node[field]);
  if (value === null) throw new Error(`no <${field}>`);
  return value;
}

function categoriesOf(node: XmlNode): string[] {
  const list = required(node, "categories").split(" ").filter(Boolean);
  return [...new Set(list)];
}

function fromArxivRaw(node: XmlNode, id: string, style: MirrorRecord["style"], datestamp: string): MirrorRecord {
  const versions = ((node["version"] as unknown[] | undefined) ?? [])
    .map((raw) => {
      const version = asNode(raw);
      return {
        n: Number(xmlText(version["@_version"]).replace(/^v/, "")),
        at: seconds(xmlText(version["date"]), "version date"),
      };
    })
    .sort((a, b) => a.n - b.n);
  if (versions.length === 0) throw new Error("no <version> elements");
  return {
    id,
    style,
    title: required(node, "title"),
    authors: required(node, "authors"),
    abstract: xmlOptional(node["abstract"]) ?? "",
    categories: categoriesOf(node),
    versions: versions.map((version) => version.at),
    comment: xmlOptional(node["comments"]),
    journal_ref: xmlOptional(node["journal-ref"]),
    doi: xmlOptional(node["doi"]),
    license: xmlOptional(node["license"]),
    datestamp,
  };
}

/** The arXiv format names authors in parts and has no version history: v1 = created, latest = updated. */
function fromArxivFormat(node: XmlNode, id: string, style: MirrorRecord["style"], datestamp: string): MirrorRecord {
  const authors = ((asNode(node["authors"])["author"] as unknown[] | undefined) ?? []).map((raw) => {
    const author = asNode(raw);
    const name = [xmlOptional(author["forenames"]), xmlOptional(author["keyname"]), xmlOptional(author["suffix"])]
      .filter(Boolean)
      .join(" ");
    const affiliations = ((author["affiliation"] as unknown[] | undefined) ?? [])
      .map((a) => xmlOptional(a))
      .filter((a): a is string => a !== null);
    return affiliations.length > 0 ? `${name} (${affiliations.join(", ")})` : name;
  });
  const created = seconds(required(node, "created"), "created");
  const updated = xmlOptional(node["updated"]);
  return {
    id,
    style,
    title: required(node, "title"),
    authors: authors.join(", "),
    abstract: xmlOptional(node["abstract"]) ?? "",
    categories: categoriesOf(node),
    versions: updated === null ? [created] : [created, seconds(updated, "updated")],
    comment: xmlOptional(node["comments"]),
    journal_ref: xmlOptional(node["journal-ref"]),
    doi: xmlOptional(node["doi"]),
    license: xmlOptional(node["license"]),
    datestamp,
  };
}
