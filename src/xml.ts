// The one way upstream XML (arXiv's Atom feed, OAI-PMH pages) is read: fast-xml-parser with
// namespaces dropped, every value kept as text, and no document that declares a DOCTYPE or
// entities (so no entity tricks reach the parser).
import { XMLParser } from "fast-xml-parser";

export type XmlNode = Record<string, unknown>;

/** A validating parser; the named elements always come back as arrays. */
export function createXmlParser(arrayElements: readonly string[]): { parse(xml: string): XmlNode } {
  const arrays = new Set(arrayElements);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    processEntities: true,
    htmlEntities: false,
    isArray: (name) => arrays.has(name),
  });
  return { parse: (xml) => parser.parse(xml, true) as XmlNode };
}

export function declaresEntities(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml.slice(0, 2000)) || /<!ENTITY/i.test(xml);
}

/** An element's text, whether it came back as a string or as a node with attributes. */
export function xmlText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return xmlText((value as XmlNode)["#text"]);
  return String(value);
}

/** The text with runs of whitespace (XML line wraps) made one space. */
export function xmlSquash(value: unknown): string {
  return xmlText(value).replace(/\s+/g, " ").trim();
}

/** xmlSquash, or null for an absent or empty element. */
export function xmlOptional(value: unknown): string | null {
  const result = xmlSquash(value);
  return result === "" ? null : result;
}
