// Titles, names and abstracts as people read them: arXiv's records are TeX (C. Bal\'azs,
// {\it Marginally consistent}, $10^{15} M_\odot$) and a page shows letters, italics and maths.
// The text is converted by biblatex-csl-converter, the maintained BibTeX reader the citation
// code already ships (so it adds nothing to the Worker): its TeX-to-Unicode table covers the
// accents, ligatures and symbols, and it turns \emph, {\it}, \textbf, ^{} and _{} into marks.
// Maths ($...$, \(...\), $$...$$, \[...\]) goes to Temml as MathML (./math.ts). The BibTeX box
// and the downloads keep the TeX, as BibTeX should: only what is shown to people is converted.
//
// What the converter is not told, because an abstract is not BibTeX: formulas and links are
// held out of it (it would drop $ and read _ in a URL as a subscript), and so are the plain words
// between TeX, which it only needs to copy (its table is thousands of patterns, each run over the
// whole input: holding the plain words out makes a page's conversion ~1 ms instead of ~20 ms).
// A ~ beside a space means "about" in an abstract (arXiv shows it as written), a _ or ^ not
// followed by a brace is a character, a lone $ is a dollar. A text the converter cannot read
// (unbalanced braces) is shown as it was written, never as an error.
import { BibLatexParser } from "biblatex-csl-converter";
import { raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { mathml, mathText } from "./math";

type Piece =
  | { kind: "text"; text: string; marks: readonly string[] }
  | { kind: "link"; url: string; marks: readonly string[] }
  | { kind: "math"; tex: string; display: boolean };

/** What a placeholder in the converter's input stands for. */
type Held =
  | { kind: "text"; text: string }
  | { kind: "link"; url: string }
  | { kind: "math"; tex: string; display: boolean };

interface Prepared {
  source: string;
  /** The text with placeholders for what the converter must not touch. */
  reduced: string;
  /** Whether any TeX is left for the converter. */
  tex: boolean;
  held: Held[];
}

const OPEN = "\uE000";
const CLOSE = "\uE001";
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

// Left to right, first alternative wins: formulas, an escaped character (the converter's:
// \$ is a dollar, \% a percent), a link, a power without braces (10^5), then the characters
// that are literal in an abstract.
const SPECIAL = new RegExp(
  [
    String.raw`\$\$([\s\S]+?)\$\$`,
    String.raw`\\\[([\s\S]+?)\\\]`,
    String.raw`\\\(([\s\S]+?)\\\)`,
    String.raw`\\[^A-Za-z]`,
    String.raw`\$((?:\\[\s\S]|[^$\\])+?)\$`,
    String.raw`(https?:\/\/[^\s<>"{}\\]*[^\s<>"{}\\.,;:!?)\]'])`,
    String.raw`(?<=[A-Za-z0-9)])\^([-+]?\d+)(?![\w.])`,
    String.raw`(?<=^|\s)~|~(?=\s|$)|[_^](?!\{)|\$`,
  ].join("|"),
  "g",
);
/** A word the converter has nothing to do for (and that follows no control word, which may take it as argument). */
const TEX_CHARS = /[\\{}~^_$]/;

/**
 * An accent on a dotless i or j (Garc\'{\i}a, Mart\'\i nez) as an accent on the letter itself,
 * unbraced: the converter puts a braced \'{i}'s accent on the letter before, and keeps the ı.
 */
const dotlessAccents = (source: string) =>
  source.replace(
    /\\(['`^"~=.uvH])\s*(?:\{\\?([ij])\}|\\([ij])(?![A-Za-z])\s?)/g,
    (_all, accent: string, braced?: string, bare?: string) => `\\${accent}${braced ?? bare}`,
  );

function prepare(written: string): Prepared {
  const source = written;
  const text = written.includes("\\") ? dotlessAccents(written) : written;
  if (!TEX_CHARS.test(text)) return { source, reduced: text, tex: false, held: [] };
  const held: Held[] = [];
  const hold = (item: Held) => `${OPEN}${held.push(item) - 1}${CLOSE}`;
  const marked = text.replace(SPECIAL, (all, display1, display2, inline1, inline2, url, power) => {
    const display = display1 ?? display2;
    const inline = inline1 ?? inline2;
    if (display !== undefined) return hold({ kind: "math", tex: display, display: true });
    if (inline !== undefined) return hold({ kind: "math", tex: inline, display: false });
    if (url !== undefined) return hold({ kind: "link", url });
    // 10^5, cm^-2: a power written without braces, as abstracts do.
    if (power !== undefined) return `^{${power}}`;
    return all.startsWith("\\") ? all : hold({ kind: "text", text: all });
  });
  const reduced = holdPlainWords(marked, hold);
  return { source, reduced, tex: TEX_CHARS.test(reduced), held };
}

function holdPlainWords(gap: string, hold: (item: Held) => string): string {
  let out = "";
  let run = "";
  let afterCommand = false;
  for (const token of gap.match(/\s+|\S+/g) ?? []) {
    if (!afterCommand && !TEX_CHARS.test(token) && !token.includes(OPEN)) run += token;
    else {
      if (run) out += hold({ kind: "text", text: run });
      run = "";
      out += token;
    }
    if (/\S/.test(token)) afterCommand = token.includes("\\");
  }
  return run ? out + hold({ kind: "text", text: run }) : out;
}

/** Braces that close, and no backslash escaping the field's own closing brace: else the converter would misread the rest. */
function readable(reduced: string): boolean {
  let depth = 0;
  for (let i = 0; i < reduced.length; i++) {
    const c = reduced[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && --depth < 0) return false;
  }
  return depth === 0 && !/(?:^|[^\\])(?:\\\\)*\\$/.test(reduced);
}

interface TextNode {
  type: string;
  text?: string;
  marks?: { type: string }[];
  /** A field that is one converted character comes back as a "variable" node. */
  attrs?: { variable?: string };
}

/** The converter's rich text of each input (one parse for all: its cost is per parse), null where it failed. */
function convert(inputs: readonly string[]): (TextNode[] | null)[] {
  if (inputs.length === 0) return [];
  const bib = inputs.map((text, i) => `@misc{k${i}, title = {${text}}}`).join("\n");
  const parsed = new BibLatexParser(bib, { processUnexpected: true, processUnknown: true }).parse();
  if (parsed.errors.length > 0) return inputs.length === 1 ? [null] : inputs.flatMap((one) => convert([one]));
  const byKey = new Map(Object.values(parsed.entries).map((entry) => [entry.entry_key, entry.fields.title]));
  return inputs.map((_, i) => (byKey.get(`k${i}`) as TextNode[] | undefined) ?? null);
}

/** The pieces of a text: the converter's nodes (or, without TeX, the text itself) with the placeholders put back. */
function piecesOf(prepared: Prepared, nodes: TextNode[] | null): Piece[] {
  const list: TextNode[] = nodes ?? [{ type: "text", text: prepared.reduced }];
  const pieces: Piece[] = [];
  const push = (piece: Piece) => {
    const before = pieces.at(-1);
    // Neighbours with the same marks are one run of text (no <em>a</em><em> b</em>).
    if (piece.kind === "text" && before?.kind === "text" && before.marks.join() === piece.marks.join())
      pieces[pieces.length - 1] = { ...before, text: before.text + piece.text };
    else if (piece.kind !== "text" || piece.text) pieces.push(piece);
  };
  for (const node of list) {
    const marks = (node.marks ?? []).map((mark) => mark.type).filter((mark) => mark !== "nocase");
    const text = node.text ?? node.attrs?.variable ?? "";
    let last = 0;
    for (const match of text.matchAll(PLACEHOLDER)) {
      push({ kind: "text", text: text.slice(last, match.index), marks });
      last = match.index + match[0].length;
      const item = prepared.held[Number(match[1])];
      if (item?.kind === "math") push(item);
      else if (item) push({ ...item, marks });
    }
    push({ kind: "text", text: text.slice(last), marks });
  }
  return pieces;
}

const cache = new Map<string, Piece[]>();
const CACHE_ENTRIES = 4_000;

/** Converts the texts a page is about to show in one parse, so that texHtml and texText find them ready. */
export function warmTex(sources: Iterable<string>): void {
  const waiting = [...new Set(sources)].filter((source) => !cache.has(source)).map(prepare);
  const toConvert = waiting.filter((p) => p.tex && readable(p.reduced));
  const converted = convert(toConvert.map((p) => p.reduced));
  const nodesOf = new Map(toConvert.map((p, i) => [p.source, converted[i] ?? null]));
  if (cache.size + waiting.length > CACHE_ENTRIES) cache.clear();
  for (const prepared of waiting) {
    const nodes = nodesOf.get(prepared.source) ?? null;
    // TeX the converter could not read: the text as it was written.
    const failed = prepared.tex && nodes === null;
    cache.set(prepared.source, failed ? asWritten(prepared.source) : piecesOf(prepared, nodes));
  }
}

const asWritten = (source: string): Piece[] => [{ kind: "text", text: source, marks: [] }];

function pieces(source: string): Piece[] {
  if (!cache.has(source)) warmTex([source]);
  return cache.get(source) ?? asWritten(source);
}

/** TeX's dashes, which the converter leaves as hyphens. */
const dashes = (text: string) => text.replace(/---/g, "—").replace(/--/g, "–");

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const MARK_TAGS: Record<string, [string, string]> = {
  em: ["<em>", "</em>"],
  strong: ["<strong>", "</strong>"],
  sub: ["<sub>", "</sub>"],
  sup: ["<sup>", "</sup>"],
  smallcaps: ['<span class="sc">', "</span>"],
  enquote: ["“", "”"],
  code: ["<code>", "</code>"],
};

function marked(inner: string, marks: readonly string[]): string {
  return marks.reduceRight((html, mark) => {
    const tags = MARK_TAGS[mark];
    return tags ? tags[0] + html + tags[1] : html;
  }, inner);
}

const link = (url: string) => `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`;

function pieceHtml(piece: Piece): string {
  switch (piece.kind) {
    case "math": {
      const rendered = mathml(piece.tex, piece.display);
      if (rendered !== null) return rendered;
      // A formula that does not parse is shown as its author wrote it.
      return escapeHtml(piece.display ? `$$${piece.tex}$$` : `$${piece.tex}$`);
    }
    case "link":
      return marked(link(piece.url), piece.marks);
    case "text":
      // \url{...}'s text is a link when it is a web address.
      if (piece.marks.includes("url") && /^https?:\/\/\S+$/.test(piece.text))
        return marked(link(piece.text), piece.marks);
      return marked(escapeHtml(dashes(piece.text)), piece.marks);
  }
}

/** A title, name or abstract as HTML: letters, italics, sub- and superscripts, MathML, links. */
export function texHtml(source: string): HtmlEscapedString {
  return raw(pieces(source).map(pieceHtml).join(""));
}

/** The same as plain text, for where no markup goes (a page's <title>): letters, and flat formulas as letters. */
export function texText(source: string): string {
  return pieces(source)
    .map((piece) => {
      if (piece.kind === "math") return mathText(piece.tex);
      if (piece.kind === "link") return piece.url;
      const text = dashes(piece.text);
      return piece.marks.includes("enquote") ? `“${text}”` : text;
    })
    .join("")
    .replace(/\s+/g, " ")
    .trim();
}
