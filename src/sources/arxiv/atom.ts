// arXiv export API Atom feed -> typed papers. Handles both feed generations (the classic one with
// per-element namespaces and wrapped text, and the 2026 one), the API's error entries, and
// refuses DOCTYPEs (no entity tricks reach the parser).
import { PapersError } from "../../errors";
import { createXmlParser, declaresEntities, xmlOptional, xmlSquash, xmlText, type XmlNode } from "../../xml";
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

const parser = createXmlParser(["entry", "author", "category", "link", "affiliation"]);

const ABS_ID = /\/abs\/(.+?)v(\d+)$/;

function malformed(message: string): PapersError {
  return new PapersError(
    "upstream_malformed",
    `arXiv's API answered something that is not a valid Atom feed: ${message}`,
    {
      retryable: true,
      recovery: "Retry in a minute; arXiv sometimes answers with an error page while under load.",
    },
  );
}

export function parseAtomFeed(xml: string): AtomFeed {
  const head = xml.slice(0, 2000);
  if (declaresEntities(xml)) throw malformed("it declares a DOCTYPE or entities");
  if (!/<feed[\s>]/.test(head)) throw malformed(/<html/i.test(head) ? "an HTML page" : "no <feed> element");
  let document: XmlNode;
  try {
    document = parser.parse(xml);
  } catch (error) {
    throw malformed(error instanceof Error ? error.message.slice(0, 200) : "unparsable XML");
  }
  const feed = document["feed"] as XmlNode | undefined;
  if (!feed || typeof feed !== "object") throw malformed("no <feed> element");
  const entries = (feed["entry"] as XmlNode[] | undefined) ?? [];

  const first = entries[0];
  if (first && /\/api\/errors/.test(xmlText(first["id"])))
    throw new ArxivApiError(xmlSquash(first["summary"]) || "arXiv API error");

  const number = (value: unknown, name: string) => {
    const n = Number(xmlText(value));
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
  const absId = xmlText(entry["id"]);
  const match = ABS_ID.exec(absId);
  if (!match) throw malformed(`entry id ${JSON.stringify(absId.slice(0, 80))} is not an abs URL`);
  const baseId = match[1]!;
  const version = Number(match[2]);
  const id = `${baseId}v${version}`;
  const authors = ((entry["author"] as XmlNode[] | undefined) ?? []).map((author) => {
    const affiliations = ((author["affiliation"] as unknown[] | undefined) ?? []).map(xmlSquash).filter(Boolean);
    return { name: xmlSquash(author["name"]), ...(affiliations.length > 0 ? { affiliations } : {}) };
  });
  const categories = ((entry["category"] as XmlNode[] | undefined) ?? [])
    .map((c) => xmlText(c["@_term"]))
    .filter(Boolean);
  const primary = xmlText((entry["primary_category"] as XmlNode | undefined)?.["@_term"]) || categories[0] || "";
  return {
    id,
    base_id: baseId,
    version,
    title: xmlSquash(entry["title"]),
    abstract: xmlSquash(entry["summary"]),
    authors,
    primary_category: primary,
    categories: categories.includes(primary) || primary === "" ? categories : [primary, ...categories],
    published: xmlText(entry["published"]),
    updated: xmlText(entry["updated"]),
    comment: xmlOptional(entry["comment"]),
    journal_ref: xmlOptional(entry["journal_ref"]),
    doi: xmlOptional(entry["doi"]),
    abs_url: `${PUBLIC_ARXIV}/abs/${id}`,
    pdf_url: `${PUBLIC_ARXIV}/pdf/${id}`,
    html_url: `${PUBLIC_ARXIV}/html/${id}`,
  };
}
