// arXiv export API Atom feed -> typed papers. Handles both feed generations (the classic one with
// per-element namespaces and wrapped text, and the 2026 one), the API's error entries, and
// refuses DOCTYPEs (no entity tricks reach the parser).
import { XMLParser } from "fast-xml-parser";
import { ToolError } from "../../errors";
import { PUBLIC_ARXIV, type ArxivPaper } from "./paper";

export interface AtomFeed {
  total: number;
  start: number;
  itemsPerPage: number;
  papers: ArxivPaper[];
}

/** The API's own error entry (HTTP 400 for a malformed id, bad query syntax). */
export class ArxivApiError extends Error {
  override name = "ArxivApiError";
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: false,
  isArray: (name) => ["entry", "author", "category", "link", "affiliation"].includes(name),
});

type XmlNode = Record<string, unknown>;
const text = (value: unknown): string => {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return text((value as XmlNode)["#text"]);
  return String(value);
};
const squash = (value: unknown) => text(value).replace(/\s+/g, " ").trim();
const optional = (value: unknown) => {
  const result = squash(value);
  return result === "" ? null : result;
};

const ABS_ID = /\/abs\/(.+?)v(\d+)$/;

function malformed(message: string): ToolError {
  return new ToolError("upstream_malformed", `arXiv's API answered something that is not a valid Atom feed: ${message}`, {
    retryable: true,
    recovery: "Retry in a minute; arXiv sometimes answers with an error page while under load.",
  });
}

export function parseAtomFeed(xml: string): AtomFeed {
  const head = xml.slice(0, 2000);
  if (/<!DOCTYPE|<!ENTITY/i.test(head) || /<!ENTITY/i.test(xml)) throw malformed("it declares a DOCTYPE or entities");
  if (!/<feed[\s>]/.test(head)) throw malformed(/<html/i.test(head) ? "an HTML page" : "no <feed> element");
  let document: XmlNode;
  try {
    document = parser.parse(xml, true) as XmlNode;
  } catch (error) {
    throw malformed(error instanceof Error ? error.message.slice(0, 200) : "unparsable XML");
  }
  const feed = document["feed"] as XmlNode | undefined;
  if (!feed || typeof feed !== "object") throw malformed("no <feed> element");
  const entries = (feed["entry"] as XmlNode[] | undefined) ?? [];

  const first = entries[0];
  if (first && /\/api\/errors/.test(text(first["id"]))) throw new ArxivApiError(squash(first["summary"]) || "arXiv API error");

  const number = (value: unknown, name: string) => {
    const n = Number(text(value));
    if (!Number.isInteger(n) || n < 0) throw malformed(`${name} is not a count`);
    return n;
  };
  return {
    total: number(feed["totalResults"], "totalResults"),
    start: number(feed["startIndex"], "startIndex"),
    itemsPerPage: number(feed["itemsPerPage"], "itemsPerPage"),
    papers: entries.map(toPaper),
  };
}

function toPaper(entry: XmlNode): ArxivPaper {
  const absId = text(entry["id"]);
  const match = ABS_ID.exec(absId);
  if (!match) throw malformed(`entry id ${JSON.stringify(absId.slice(0, 80))} is not an abs URL`);
  const baseId = match[1]!;
  const version = Number(match[2]);
  const id = `${baseId}v${version}`;
  const authors = ((entry["author"] as XmlNode[] | undefined) ?? []).map((author) => {
    const affiliations = ((author["affiliation"] as unknown[] | undefined) ?? []).map(squash).filter(Boolean);
    return { name: squash(author["name"]), ...(affiliations.length > 0 ? { affiliations } : {}) };
  });
  const categories = ((entry["category"] as XmlNode[] | undefined) ?? []).map((c) => text(c["@_term"])).filter(Boolean);
  const primary = text((entry["primary_category"] as XmlNode | undefined)?.["@_term"]) || categories[0] || "";
  return {
    id,
    base_id: baseId,
    version,
    title: squash(entry["title"]),
    abstract: squash(entry["summary"]),
    authors,
    primary_category: primary,
    categories: categories.includes(primary) || primary === "" ? categories : [primary, ...categories],
    published: text(entry["published"]),
    updated: text(entry["updated"]),
    comment: optional(entry["comment"]),
    journal_ref: optional(entry["journal_ref"]),
    doi: optional(entry["doi"]),
    abs_url: `${PUBLIC_ARXIV}/abs/${id}`,
    pdf_url: `${PUBLIC_ARXIV}/pdf/${id}`,
    html_url: `${PUBLIC_ARXIV}/html/${id}`,
  };
}
