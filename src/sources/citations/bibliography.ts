// A read paper's bibliography -> one entry per reference, structured. HTML renders give LaTeXML's
// bibitems (blocks and link targets, captured by the reader); PDF text is cut at its References
// heading (or its first "[1]" run) into numbered entries, with line-break hyphens undone. Pure.
import type { ExtractedDocument } from "../text/document";
import {
  identifierFields,
  isTitleLike,
  looksLikeAuthors,
  parseReference,
  surnamesIn,
  type ReferenceFields,
} from "./reference-text";

export interface BibliographyEntry extends ReferenceFields {
  /** 1-based position in the bibliography. */
  number: number;
  /** The entry as printed (label dropped). */
  text: string;
}

export function bibliographyOf(document: ExtractedDocument): BibliographyEntry[] {
  const raw =
    document.references && document.references.length > 0
      ? fromMarkup(document.references)
      : fromText(document.text, document.outline.length > 0);
  return raw.map((entry, index) => structure(index + 1, entry.text, entry.blocks, entry.links));
}

interface RawEntry {
  text: string;
  blocks?: string[];
  links?: string[];
}

function fromMarkup(references: NonNullable<ExtractedDocument["references"]>): RawEntry[] {
  return references.map((reference) => ({
    text: reference.blocks.join(" ").replace(/\s+/g, " ").trim(),
    blocks: reference.blocks,
    links: reference.links,
  }));
}

const HEADING =
  /^(?:#+\s*)?(?:[\dIVX]+\.?\s+)?(references|bibliography|references and notes|literature cited|works cited)\s*$/im;

/** The bibliography section of a text: after the last References heading, else from the last "[1] " that a "[2] " follows. */
function bibliographyText(text: string): string | null {
  let start = -1;
  for (const match of text.matchAll(new RegExp(HEADING.source, "gim"))) start = match.index! + match[0].length;
  if (start < 0) {
    const runs = [...text.matchAll(/^\[1\]\s/gm)]
      .map((match) => match.index!)
      .filter((index) => /^\[2\]\s/m.test(text.slice(index)));
    if (runs.length === 0) return null;
    start = runs[runs.length - 1]!;
  }
  return text.slice(start);
}

function fromText(text: string, hasMarkdownHeadings: boolean): RawEntry[] {
  const section = bibliographyText(text);
  if (section === null) return [];
  // Our HTML text numbers bibitems "N. " one per line; a later "## " heading ends the section.
  const body = hasMarkdownHeadings ? section.split(/\n#{1,6} /)[0]! : section;
  const lines = body
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !isPageFurniture(line));
  const entries: string[][] = [];
  let expected = 1;
  for (const line of lines) {
    const start = new RegExp(`^(?:\\[${expected}\\]|${expected}\\.)\\s+`).exec(line);
    if (start) {
      entries.push([line.slice(start[0].length)]);
      expected++;
    } else if (entries.length > 0) {
      entries[entries.length - 1]!.push(line);
    }
  }
  return entries.map((parts) => ({ text: joinLines(parts) }));
}

/** Page numbers and running heads between two lines of one entry ("37", "18 A. FERRAGUTI AND G. MICHELI"). */
function isPageFurniture(line: string): boolean {
  return /^\d{1,4}$/.test(line) || /^\d{1,4}\s+[A-Z][A-Z .,'-]{6,}$/.test(line);
}

const ARCHIVE_PREFIX =
  /(?:^|[^a-z])(?:astro|hep|gr|cond|math|nucl|quant|physics|nlin|q|cs|chao|solv|patt|alg|dg|funct|acc|adap|chem|cmp|comp|mtrl|plasm|supr|bayes|ao|atom)$/i;

/** Lines of one entry joined: "Com-" + "puter" -> "Computer", but "astro-" + "ph/0511695" and DOI breaks keep the hyphen. */
function joinLines(parts: string[]): string {
  let out = "";
  for (const part of parts) {
    if (out.endsWith("-")) {
      const head = out.slice(0, -1);
      const word = /[\w./]*$/.exec(head)![0];
      const keep =
        ARCHIVE_PREFIX.test(word) || /\d$/.test(head) || /10\.\d{4,9}\/\S*$/.test(head) || !/^[a-z]/.test(part);
      out = keep ? out + part : head + part;
    } else {
      out += (out ? " " : "") + part;
    }
  }
  return out.replace(/\s+/g, " ").trim();
}

function structure(number: number, text: string, blocks?: string[], links?: string[]): BibliographyEntry {
  // LaTeXML's blocks are authors / title / venue: read them as sentences, so the title is found.
  const readable =
    blocks && blocks.length > 1 ? `${blocks.map((block) => block.replace(/[.,;\s]+$/, "")).join(". ")}.` : text;
  const fields: ReferenceFields = parseReference(readable);
  // LaTeXML's author block followed by a title block: trust the markup over sentence splitting
  // (short titles, abbreviated given names like "Th.").
  if (blocks && blocks.length >= 2) {
    const [authors, title] = blocks.map((block) => block.replace(/[.,;\s]+$/, ""));
    if (looksLikeAuthors(authors!) && isTitleLike(title!, 2)) {
      fields.authors = surnamesIn(authors!);
      fields.title = title!;
    }
  }
  // Identifiers that appear only as link targets (the DOI behind "MNRAS").
  const linked = identifierFields(
    (links ?? []).map((link) => link.replace(/^https?:\/\/(dx\.)?doi\.org\//i, "doi:")).join(" "),
  );
  return { number, text: text.slice(0, 1_000), ...linked, ...stripEmpty(fields) };
}

function stripEmpty(fields: ReferenceFields): ReferenceFields {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== ""),
  ) as ReferenceFields;
}
