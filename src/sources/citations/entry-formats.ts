// Bibliographies as agents paste them, cut into entries and read as the fields they hold: a .bib
// file's text (biblatex-csl-converter reads each entry, so one broken entry spoils only itself),
// RIS, CSL-JSON, or a plain list (numbered "[1]" / "1." / "(1)", paragraphs, or one per line).
// Each entry comes back as the text the resolver reads, written from its fields when it had any.
import { BibLatexParser } from "biblatex-csl-converter";
import { type ReferenceFields, textOfFields } from "./reference-text";

export type BibliographyFormat = "bibtex" | "ris" | "csl-json" | "text";

export interface ReadEntry {
  /** 1-based position in the bibliography. */
  n: number;
  format: BibliographyFormat;
  /** What the resolver reads: the entry as written, or a reference written from its fields. */
  text: string;
  /** The fields the entry names (a structured entry's own; for text, none). */
  fields: ReferenceFields;
  /** Set when the entry cannot be read: why. */
  problem?: string;
}

export const MAX_ENTRY_CHARS = 5_000;

/** Which format a pasted text is in. */
export function detectFormat(text: string): BibliographyFormat {
  const trimmed = text.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      JSON.parse(trimmed);
      return "csl-json";
    } catch {
      // not JSON: a bracketed plain list ("[1] ...")
    }
  }
  if (/^\s*@[a-z]+\s*[{(]/im.test(trimmed)) return "bibtex";
  if (/^TY {2}- /m.test(trimmed)) return "ris";
  return "text";
}

/** A bibliography cut into entries, each read. */
export function readBibliography(text: string, format: BibliographyFormat = detectFormat(text)): ReadEntry[] {
  switch (format) {
    case "bibtex":
      // @string, @comment and @preamble are not references: no entry, no verdict, no count against the limit.
      return bibtexChunks(text)
        .filter((chunk) => !/^@(?:comment|preamble|string)\b/i.test(chunk))
        .map((chunk, i) => readBibtex(chunk, i + 1));
    case "ris":
      return risChunks(text).map((chunk, i) => readRis(chunk, i + 1));
    case "csl-json":
      return readCslJson(text);
    case "text":
      return textEntries(text).map((entry, i) => readText(entry, i + 1));
  }
}

/** One pasted entry for papers_resolve_reference: a structured one read as its fields, else the text as it is. */
export function readOneEntry(text: string): ReadEntry {
  const format = detectFormat(text);
  if (format === "text") return readText(text, 1);
  const entries = readBibliography(text, format);
  return entries[0] ?? { n: 1, format, text, fields: {}, problem: `no ${format} entry could be read` };
}

function readText(text: string, n: number): ReadEntry {
  const clean = text.replace(/^\s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}[.)])\s*/, "").trim();
  const entry: ReadEntry = { n, format: "text", text: clean, fields: {} };
  if (clean === "") entry.problem = "the entry is empty";
  else if (clean.length > MAX_ENTRY_CHARS)
    entry.problem = `the entry is ${clean.length} characters; at most ${MAX_ENTRY_CHARS} are read`;
  return entry;
}

/** A plain list: numbered entries when the list is numbered, else paragraphs, else lines. */
function textEntries(text: string): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const marker = /^\s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}[.)]\s)/;
  if (lines.filter((line) => marker.test(line)).length >= 2) {
    const entries: string[] = [];
    for (const line of lines) {
      if (marker.test(line) || entries.length === 0) entries.push(line);
      else entries[entries.length - 1] += `\n${line}`;
    }
    return entries.filter((entry) => entry.trim() !== "" || marker.test(entry));
  }
  const paragraphs = text.split(/\n\s*\n/).filter((block) => block.trim() !== "");
  if (paragraphs.length >= 2) return paragraphs;
  return lines.filter((line) => line.trim() !== "");
}

// ---- BibTeX

/** Entries of a .bib text: each starts at an "@type{" at the start of a line, so a broken entry ends at the next. */
export function bibtexChunks(text: string): string[] {
  const starts = [...text.matchAll(/^[ \t]*@[a-z]+\s*[{(]/gim)].map((match) => match.index);
  return starts.map((start, i) => text.slice(start, starts[i + 1] ?? text.length).trim());
}

type RichText = { text?: string }[];
/** A name that stands for the rest of the list: BibTeX's "and others", "et al.". */
const ET_AL = /^(?:others|et\.? al\.?|and others)$/i;

const flat = (value: unknown): string =>
  Array.isArray(value)
    ? (value as RichText).map((node) => node.text ?? "").join("")
    : typeof value === "string"
      ? value
      : "";

/** biblatex-csl-converter reads pages as ranges, each a list of rich texts: "436--444" is [[[436], [444]]]. */
const pagesOf = (value: unknown): string =>
  Array.isArray(value)
    ? value
        .map((range) =>
          Array.isArray(range)
            ? range
                .map((end) => flat(end))
                .filter(Boolean)
                .join("-")
            : flat(range),
        )
        .filter(Boolean)
        .join(", ")
    : flat(value);

function readBibtex(chunk: string, n: number): ReadEntry {
  const base = { n, format: "bibtex" as const, text: chunk, fields: {} };
  if (chunk.length > MAX_ENTRY_CHARS)
    return { ...base, problem: `the entry is ${chunk.length} characters; at most ${MAX_ENTRY_CHARS} are read` };
  if (/^@(?:comment|preamble|string)\b/i.test(chunk))
    return { ...base, problem: `not a reference (${chunk.slice(0, 9)})` };
  let parsed: ReturnType<BibLatexParser["parse"]>;
  try {
    parsed = new BibLatexParser(chunk, { processUnexpected: true, processUnknown: true }).parse();
  } catch (error) {
    return { ...base, problem: `BibTeX that cannot be read: ${String(error).slice(0, 120)}` };
  }
  const entry = Object.values(parsed.entries)[0] as { bib_type: string; fields: Record<string, unknown> } | undefined;
  const fatal = parsed.errors.find((error) => /unexpected_eof|token_mismatch/.test(String(error.type)));
  if (!entry || fatal)
    return {
      ...base,
      problem:
        `BibTeX that cannot be read: ` +
        `${fatal ? `${fatal.type}${fatal.expected ? ` (expected "${fatal.expected}")` : ""}` : "no entry"}`,
    };
  const f = entry.fields;
  const written = ((f.author ?? f.editor ?? []) as { family?: RichText; given?: RichText; literal?: RichText }[]).map(
    (name) => (name.literal ? flat(name.literal) : [flat(name.given), flat(name.family)].filter(Boolean).join(" ")),
  );
  const names = written.filter((name) => name && !ET_AL.test(name));
  const year = /\b(1[89]\d\d|20\d\d)\b/.exec(flat(f.date) || flat(f.year))?.[1];
  const eprint = flat(f.eprint);
  const eprintType = flat(f.eprinttype) || flat(f.archiveprefix);
  const institution = flat(f.institution);
  const number = flat(f.number);
  const fields: ReferenceFields = {
    ...(flat(f.title) ? { title: flat(f.title) } : {}),
    ...(names.length > 0 ? { authors: names } : {}),
    ...(names.length < written.length ? { authors_open: true } : {}),
    ...(year ? { year: Number(year) } : {}),
    ...(flat(f.doi) ? { doi: flat(f.doi) } : {}),
    ...(flat(f.volume) ? { volume: flat(f.volume) } : {}),
    ...(pagesOf(f.pages) ? { pages: pagesOf(f.pages) } : {}),
    ...(eprint && (/arxiv/i.test(eprintType) || /^\d{4}\.\d{4,5}|\//.test(eprint)) ? { arxiv_id: eprint } : {}),
    ...(number && /national bureau|nber/i.test(`${institution} ${flat(f.series)} ${flat(f.type)}`)
      ? { nber_id: number }
      : {}),
  };
  const venue = flat(f.journaltitle) || flat(f.booktitle) || institution;
  if (venue) fields.venue = venue;
  return { ...base, text: textOfFields(fields, flat(f.url)), fields };
}

// ---- RIS

function risChunks(text: string): string[] {
  const chunks: string[] = [];
  let current: string[] | null = null;
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (/^TY {2}- /.test(line)) current = [line];
    else if (current) {
      current.push(line);
      if (/^ER {2}-/.test(line)) {
        chunks.push(current.join("\n"));
        current = null;
      }
    }
  }
  if (current) chunks.push(current.join("\n"));
  return chunks;
}

function readRis(chunk: string, n: number): ReadEntry {
  const base = { n, format: "ris" as const, text: chunk, fields: {} };
  if (chunk.length > MAX_ENTRY_CHARS)
    return { ...base, problem: `the entry is ${chunk.length} characters; at most ${MAX_ENTRY_CHARS} are read` };
  const tags = new Map<string, string[]>();
  for (const match of chunk.matchAll(/^([A-Z][A-Z0-9]) {2}- ?(.*)$/gm)) {
    const list = tags.get(match[1]!) ?? [];
    list.push(match[2]!.trim());
    tags.set(match[1]!, list);
  }
  const one = (...names: string[]) => names.map((name) => tags.get(name)?.[0]).find((value) => value);
  const listed = ["AU", "A1"].flatMap((tag) => tags.get(tag) ?? []).filter(Boolean);
  const authors = listed.filter((name) => !ET_AL.test(name));
  const title = one("TI", "T1");
  if (!title && authors.length === 0)
    return { ...base, problem: "the RIS entry has no title (TI) and no authors (AU)" };
  const year = /\b(1[89]\d\d|20\d\d)\b/.exec(one("PY", "Y1", "DA") ?? "")?.[1];
  const publisher = `${one("PB") ?? ""} ${one("T2", "T3") ?? ""}`;
  const number = one("SN", "IS", "VL");
  const fields: ReferenceFields = {
    ...(title ? { title } : {}),
    ...(authors.length > 0 ? { authors: authors.map(risName) } : {}),
    ...(authors.length < listed.length ? { authors_open: true } : {}),
    ...(year ? { year: Number(year) } : {}),
    ...(one("DO") ? { doi: one("DO")! } : {}),
    ...(one("VL") ? { volume: one("VL")! } : {}),
    ...(one("SP") ? { pages: [one("SP"), one("EP")].filter(Boolean).join("-") } : {}),
    ...(number && /national bureau|nber/i.test(publisher) ? { nber_id: number } : {}),
  };
  const venue = one("JO", "JF", "T2", "PB");
  if (venue) fields.venue = venue;
  return { ...base, text: textOfFields(fields, (tags.get("UR") ?? []).join(" ")), fields };
}

/** "Vaswani, Ashish" -> "Ashish Vaswani" (the resolver reads either; the display form reads better). */
const risName = (name: string) => {
  const [family, given] = name.split(/,\s*/, 2);
  return given ? `${given} ${family}` : name;
};

// ---- CSL-JSON

function readCslJson(text: string): ReadEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return [{ n: 1, format: "csl-json", text, fields: {}, problem: `not JSON: ${String(error).slice(0, 120)}` }];
  }
  const items = Array.isArray(data) ? data : [data];
  return items.map((item, i) => readCslItem(item, i + 1));
}

function readCslItem(item: unknown, n: number): ReadEntry {
  const raw = JSON.stringify(item) ?? "";
  const base = { n, format: "csl-json" as const, text: raw.slice(0, MAX_ENTRY_CHARS), fields: {} };
  if (item === null || typeof item !== "object" || Array.isArray(item))
    return { ...base, problem: "a CSL-JSON item must be an object" };
  if (raw.length > MAX_ENTRY_CHARS)
    return { ...base, problem: `the entry is ${raw.length} characters; at most ${MAX_ENTRY_CHARS} are read` };
  const record = item as Record<string, unknown>;
  const str = (value: unknown) => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "");
  const listed = (Array.isArray(record.author) ? record.author : [])
    .map((name: unknown) => {
      if (!name || typeof name !== "object") return "";
      const person = name as Record<string, unknown>;
      return str(person.literal) || [str(person.given), str(person.family)].filter(Boolean).join(" ");
    })
    .filter(Boolean);
  const authors = listed.filter((name) => !ET_AL.test(name));
  const issued = record.issued as { "date-parts"?: unknown[][]; raw?: string } | undefined;
  const year = Number(issued?.["date-parts"]?.[0]?.[0] ?? /\d{4}/.exec(issued?.raw ?? "")?.[0]) || undefined;
  const publisher = `${str(record.publisher)} ${str(record["collection-title"])}`;
  const fields: ReferenceFields = {
    ...(str(record.title) ? { title: str(record.title) } : {}),
    ...(authors.length > 0 ? { authors } : {}),
    ...(authors.length < listed.length ? { authors_open: true } : {}),
    ...(year ? { year } : {}),
    ...(str(record.DOI) ? { doi: str(record.DOI) } : {}),
    ...(str(record.volume) ? { volume: str(record.volume) } : {}),
    ...(str(record.page) ? { pages: str(record.page) } : {}),
    ...(str(record.number) && /national bureau|nber/i.test(publisher) ? { nber_id: str(record.number) } : {}),
  };
  if (!fields.title && !fields.doi && !fields.authors)
    return { ...base, problem: "the CSL-JSON item has no title, DOI or authors" };
  const venue = str(record["container-title"]) || str(record.publisher);
  if (venue) fields.venue = venue;
  return { ...base, text: textOfFields(fields, `${str(record.URL)} ${str(record.archive_location)}`), fields };
}
