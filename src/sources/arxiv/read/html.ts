// biome-ignore-all lint/style/noExcessiveLinesPerFile: the HTML reader until issue 33 splits its element handlers into modules
// LaTeXML HTML (arxiv.org/html and ar5iv) -> clean text with the structure kept: Markdown
// headings with section numbers, paragraphs, lists, tables as Markdown rows, captions, footnotes,
// a numbered bibliography, and maths as TeX from the alttext (never also as MathML text).
// Streams through HTMLRewriter, so memory stays flat whatever the page size; input bytes and
// output characters are capped.
import { decodeHTML, decodeHTMLAttribute } from "entities";
import { PapersError } from "../../../errors";
import {
  slug,
  type ExtractedDocument,
  type FigureEntry,
  type MarkedUpReference,
  type OutlineEntry,
} from "../../text/document";
import { stripMathBodies } from "./strip-math";

export interface HtmlLimits {
  maxBytes: number;
  maxChars: number;
}

const SKIP_TAGS = new Set([
  "script",
  "style",
  "noscript",
  "nav",
  "header",
  "footer",
  "button",
  "svg",
  "form",
  "iframe",
  "template",
  "object",
  "head",
]);
const SKIP_CLASSES = [
  "ltx_page_navbar",
  "ltx_page_footer",
  "ltx_page_header",
  "ltx_TOC",
  "ltx_page_logo",
  "ar5iv-footer",
  "ltx_note_mark",
  "package-alerts",
  "html-header-message",
  "ltx_rdf",
  "ltx_note_type",
];
const BLOCK_TAGS = new Set(["p", "blockquote", "dt", "dd", "pre", "figure", "figcaption"]);
const BLOCK_CLASSES = ["ltx_para", "ltx_abstract", "ltx_authors", "ltx_dates", "ltx_keywords", "ltx_classification"];
const TITLE_LEVEL: Record<string, number> = {
  ltx_title_document: 1,
  ltx_title_section: 2,
  ltx_title_appendix: 2,
  ltx_title_bibliography: 2,
  ltx_title_abstract: 2,
  ltx_title_subsection: 3,
  ltx_title_subsubsection: 4,
  ltx_title_paragraph: 5,
  ltx_title_subparagraph: 6,
};
// One selector list, so that each element reaches onStart once (most spans and all MathML
// children do not match and cost nothing on the JS side).
const INTERESTING = [
  ...SKIP_TAGS,
  ...SKIP_CLASSES.map((name) => `.${name}`),
  ...BLOCK_TAGS,
  ...BLOCK_CLASSES.map((name) => `.${name}`),
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "br",
  "li",
  "ul",
  "ol",
  "table",
  "tr",
  "td",
  "th",
  "math",
  "annotation",
  "section",
  "article",
  ".ltx_appendix",
  ".ltx_bibliography",
  ".ltx_note_content",
  ".ltx_tag_note",
  ".ltx_tag_item",
  ".ltx_bibblock",
  ".ltx_tag_bibitem",
  ".ltx_bibitem a",
  ".ltx_tag_figure",
  ".ltx_tag_table",
  ".ltx_tag_equation",
].join(", ");
/** A bibliography longer than this is kept as text only (the structured list is for resolving). */
const MAX_REFERENCES = 2_000;
/** Figures, tables and equations indexed per paper (a few hundred at most in real papers). */
const MAX_FIGURES = 2_000;
const EQUATION_TABLE = /\bltx_(equation|eqn_table|equationgroup)\b/;
const HEADING = /^h[1-6]$/;

class TextBuilder {
  private parts: string[] = [];
  length = 0;
  private pendingBreak = 0;
  private pendingSpace = false;
  private lastChar = "\n";
  full = false;

  constructor(private readonly maxChars: number) {}

  /** Ask for n newlines before the next text (1: new line, 2: new paragraph). */
  breakLine(n: 1 | 2): void {
    if (this.length > 0) this.pendingBreak = Math.max(this.pendingBreak, n);
    this.pendingSpace = false;
  }

  space(): void {
    if (this.pendingBreak === 0 && this.length > 0) this.pendingSpace = true;
  }

  /** Appends text verbatim (already decoded); whitespace runs collapse to one space. */
  text(raw: string): void {
    const collapsed = raw.replace(/\s+/g, " ");
    if (collapsed === "") return;
    const leading = collapsed.startsWith(" ");
    const body = collapsed.trim();
    if (leading) this.space();
    if (body !== "") this.write(body);
    if (collapsed.endsWith(" ") && body !== "") this.pendingSpace = true;
  }

  /** Appends a token exactly (markup such as "## ", "$$", "|"). */
  raw(token: string): void {
    this.write(token);
  }

  /** Where the next text will start, without writing the pending break (so later breaks still merge with it). */
  nextOffset(): number {
    if (this.length === 0) return 0;
    if (this.pendingBreak > 0) return this.length + this.pendingBreak;
    return this.length + (this.pendingSpace && this.lastChar !== " " && this.lastChar !== "\n" ? 1 : 0);
  }

  /** Flushes pending breaks and returns the offset where the next character will go. */
  mark(): number {
    this.flush();
    return this.length;
  }

  private flush(): void {
    if (this.pendingBreak > 0) {
      this.push("\n".repeat(this.pendingBreak));
      this.pendingBreak = 0;
    } else if (this.pendingSpace && this.lastChar !== " " && this.lastChar !== "\n") {
      this.push(" ");
    }
    this.pendingSpace = false;
  }

  private write(token: string): void {
    // A token that starts with a space makes a pending space redundant.
    if (token.startsWith(" ")) this.pendingSpace = false;
    this.flush();
    if (token.startsWith(" ") && this.lastChar === " ") token = token.slice(1);
    this.push(token);
  }

  private push(piece: string): void {
    if (this.full) return;
    const room = this.maxChars - this.length;
    if (piece.length > room) {
      piece = piece.slice(0, room);
      this.full = true;
    }
    if (piece === "") return;
    this.parts.push(piece);
    this.length += piece.length;
    this.lastChar = piece[piece.length - 1]!;
  }

  toString(): string {
    return this.parts.join("");
  }
}

interface TableState {
  equation: boolean;
  rows: number;
  cells: number;
  firstRowCells: number;
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the streaming HTML reader until issue 33 splits its element handlers into modules
export async function htmlToDocument(body: ReadableStream<Uint8Array>, limits: HtmlLimits): Promise<ExtractedDocument> {
  const out = new TextBuilder(limits.maxChars);
  const outline: OutlineEntry[] = [];
  let skipDepth = 0;
  let mathDepth = 0;
  let pendingTex: { tex: string; display: boolean } | null = null;
  let texCapture: string[] | null = null;
  let inTexAnnotation = false;
  let heading: { level: number; offset: number; id: string; parts: string[] } | null = null;
  let lastSectionId = "";
  let title: string | null = null;
  let bibliography = 0;
  // The bibitem being read, for the structured reference list (blocks and links kept apart).
  const references: MarkedUpReference[] = [];
  // Figures, tables and equations being read (nested: a subfigure inside a figure).
  const figures: FigureEntry[] = [];
  const openFigures: { entry: FigureEntry; caption: string[] | null; tex: string[]; tag: string[] | null }[] = [];
  let reference: { entry: MarkedUpReference; block: string[] | null; label: string[] | null } | null = null;
  const tables: TableState[] = [];
  const listKinds: ("bullet" | "tagged")[] = [];

  // One handler for every element, and at most one end-tag callback per element: HTMLRewriter
  // keeps only the last onEndTag registered on an element.
  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: every element handler in one place until issue 33 splits them into modules
  function onStart(element: Element): void {
    const tag = element.tagName.toLowerCase();
    const classes = (element.getAttribute("class") ?? "").split(/\s+/).filter(Boolean);
    const has = (name: string) => classes.includes(name);
    const ends: (() => void)[] = [];
    const wasActive = skipDepth === 0;

    if (SKIP_TAGS.has(tag) || SKIP_CLASSES.some(has) || (has("ltx_tag_item") && listKinds.at(-1) === "bullet")) {
      skipDepth++;
      ends.push(() => void skipDepth--);
    }
    if (tag === "math") {
      mathDepth++;
      if (mathDepth === 1 && wasActive) {
        const alttext = element.getAttribute("alttext");
        const display = element.getAttribute("display") === "block";
        if (alttext !== null && alttext.trim() !== "")
          pendingTex = { tex: decodeHTMLAttribute(alttext).trim(), display };
        else texCapture = [];
      }
      ends.push(() => {
        mathDepth--;
        if (mathDepth > 0) return;
        if (pendingTex) emitTex(pendingTex.tex, pendingTex.display);
        else if (texCapture) emitTex(texCapture.join("").trim(), element.getAttribute("display") === "block");
        pendingTex = null;
        texCapture = null;
      });
    }
    if (tag === "annotation" && element.getAttribute("encoding") === "application/x-tex") {
      inTexAnnotation = true;
      ends.push(() => void (inTexAnnotation = false));
    }
    if (
      (tag === "section" || tag === "article" || has("ltx_appendix") || has("ltx_bibliography")) &&
      element.getAttribute("id")
    ) {
      lastSectionId = element.getAttribute("id")!;
    } else if (has("ltx_abstract")) {
      lastSectionId = "abstract";
    }

    const active = skipDepth === 0 && mathDepth === 0;
    if (active) {
      if (HEADING.test(tag) && !heading) {
        const titleClass = classes.find((name) => name in TITLE_LEVEL);
        const level = titleClass ? TITLE_LEVEL[titleClass]! : Number(tag.slice(1));
        out.breakLine(2);
        const offset = out.mark();
        out.raw(`${"#".repeat(level)} `);
        const current = { level, offset, id: element.getAttribute("id") ?? lastSectionId, parts: [] as string[] };
        heading = current;
        ends.push(() => {
          heading = null;
          const text = current.parts.join("").replace(/\s+/g, " ").trim();
          if (level === 1 && title === null) title = text;
          outline.push({ level, id: current.id || slug(text), title: text, offset: current.offset });
          out.breakLine(2);
        });
      } else if (BLOCK_TAGS.has(tag) || BLOCK_CLASSES.some(has)) {
        out.breakLine(2);
        ends.push(() => out.breakLine(2));
      } else if (tag === "br") {
        out.breakLine(1);
      } else if (tag === "li") {
        out.breakLine(1);
        if (has("ltx_bibitem")) {
          bibliography++;
          out.raw(`${bibliography}. `);
          const current = {
            entry: { label: "", blocks: [], links: [] } as MarkedUpReference,
            block: null,
            label: null,
          };
          reference = current;
          ends.push(() => {
            current.entry.blocks = current.entry.blocks
              .map((block) => block.replace(/\s+/g, " ").trim())
              .filter(Boolean);
            if (references.length < MAX_REFERENCES) references.push(current.entry);
            if (reference === current) reference = null;
          });
        } else if (!has("ltx_tocentry")) {
          out.raw("  ".repeat(Math.min(Math.max(0, listKinds.length - 1), 6)));
          if (listKinds.at(-1) !== "tagged") out.raw("- ");
        }
      } else if (has("ltx_note_content")) {
        out.space();
        out.raw("[Footnote ");
        ends.push(() => out.raw("] "));
      } else if (has("ltx_tag_note")) {
        ends.push(() => out.raw(": "));
      } else if (tag === "tr") {
        const table = tables.at(-1);
        if (table) {
          table.cells = 0;
          out.breakLine(1);
          if (!table.equation) {
            out.raw("|");
            ends.push(() => {
              table.rows++;
              if (table.rows !== 1) return;
              table.firstRowCells = Math.max(1, table.cells);
              out.breakLine(1);
              out.raw(`|${"---|".repeat(table.firstRowCells)}`);
            });
          }
        }
      } else if (tag === "td" || tag === "th") {
        const table = tables.at(-1);
        if (table && !table.equation) {
          table.cells++;
          out.raw(" ");
          ends.push(() => out.raw(" |"));
        }
      }
    }
    if (wasActive) {
      const id = element.getAttribute("id");
      const isFloat = tag === "figure" && (has("ltx_figure") || has("ltx_table") || has("ltx_float"));
      const isEquation = tag === "table" && (has("ltx_equation") || has("ltx_equationgroup"));
      if (id && (isFloat || isEquation) && figures.length < MAX_FIGURES) {
        const kind: FigureEntry["kind"] = isEquation ? "equation" : has("ltx_table") ? "table" : "figure";
        const open = {
          entry: { id, kind, number: null, caption: "", start: out.nextOffset(), end: 0 } as FigureEntry,
          caption: null,
          tex: [] as string[],
          tag: null,
        };
        openFigures.push(open);
        ends.push(() => {
          openFigures.splice(openFigures.indexOf(open), 1);
          open.entry.end = out.length;
          if (kind === "equation") open.entry.caption = open.tex.join(" ").replace(/\s+/g, " ").trim().slice(0, 500);
          figures.push(open.entry);
        });
      }
      const current = openFigures.at(-1);
      if (current && tag === "figcaption" && current.entry.kind !== "equation") {
        const caption: string[] = [];
        current.caption = caption;
        ends.push(() => {
          current.entry.caption = caption.join("").replace(/\s+/g, " ").trim().slice(0, 500);
          current.caption = null;
        });
      } else if (current && (has("ltx_tag_figure") || has("ltx_tag_table") || has("ltx_tag_equation"))) {
        const label: string[] = [];
        current.tag = label;
        ends.push(() => {
          const number = /(\d+(?:[.-]\d+)*[a-z]?|[A-Z]\.?\d+(?:\.\d+)*)/.exec(label.join(""));
          current.entry.number = number ? number[1]! : null;
          current.tag = null;
        });
      }
    }
    if (reference && wasActive) {
      const current = reference;
      if (has("ltx_bibblock")) {
        const block: string[] = [];
        current.block = block;
        ends.push(() => {
          current.entry.blocks.push(block.join(""));
          if (current.block === block) current.block = null;
        });
      } else if (has("ltx_tag_bibitem")) {
        const label: string[] = [];
        current.label = label;
        ends.push(() => {
          current.entry.label = label.join("").replace(/\s+/g, " ").trim();
          current.label = null;
        });
      } else if (tag === "a") {
        const href = element.getAttribute("href");
        if (href && current.entry.links.length < 10) current.entry.links.push(decodeHTMLAttribute(href).slice(0, 500));
      }
    }
    if (tag === "ul" || tag === "ol") {
      // LaTeXML writes the enumerate label ("1.", "(a)") as text; itemize gets a Markdown dash.
      listKinds.push(has("ltx_enumerate") || tag === "ol" ? "tagged" : "bullet");
      ends.push(() => void listKinds.pop());
    }
    if (tag === "table") {
      const table = { equation: EQUATION_TABLE.test(classes.join(" ")), rows: 0, cells: 0, firstRowCells: 0 };
      tables.push(table);
      if (active) out.breakLine(2);
      ends.push(() => {
        tables.pop();
        if (skipDepth === 0) out.breakLine(2);
      });
    }

    if (ends.length > 0) {
      try {
        element.onEndTag(() => {
          for (let i = ends.length - 1; i >= 0; i--) ends[i]!();
        });
      } catch {
        // A void element has no end tag: undo what waited for it.
        for (let i = ends.length - 1; i >= 0; i--) ends[i]!();
      }
    }
  }

  const rewriter = new HTMLRewriter().on(INTERESTING, { element: onStart }).onDocument({
    text(chunk) {
      const raw = chunk.text;
      if (raw === "") return;
      if (inTexAnnotation && texCapture) {
        texCapture.push(decodeHTML(raw));
        return;
      }
      if (skipDepth > 0 || mathDepth > 0) return;
      const text = raw.includes("&") ? decodeHTML(raw) : raw;
      if (heading) heading.parts.push(text);
      const figure = openFigures.at(-1);
      if (figure?.tag) figure.tag.push(text);
      if (figure?.caption) figure.caption.push(text);
      if (reference?.label) reference.label.push(text);
      else if (reference?.block) reference.block.push(text);
      out.text(text);
    },
  });

  function emitTex(tex: string, display: boolean): void {
    if (tex === "") return;
    const clean = tex.replace(/\s+/g, " ");
    if (display) {
      out.breakLine(2);
      out.raw(`$$${clean}$$`);
      out.breakLine(2);
    } else {
      out.space();
      out.raw(`$${clean}$`);
      out.space();
    }
    if (heading) heading.parts.push(`$${clean}$`);
    if (reference?.block) reference.block.push(` $${clean}$ `);
    const figure = openFigures.at(-1);
    if (figure?.entry.kind === "equation") figure.tex.push(clean);
    else if (figure?.caption) figure.caption.push(`$${clean}$`);
  }

  // Count input bytes on the way in; past the cap, stop reading and fail (without erroring a
  // pipe, which would surface as an unhandled rejection).
  let seen = 0;
  let overLimit = false;
  const reader = body.getReader();
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      seen += value.byteLength;
      if (seen > limits.maxBytes) {
        overLimit = true;
        await reader.cancel();
        return controller.close();
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const stripped = limited
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(stripMathBodies())
    .pipeThrough(new TextEncoderStream());
  try {
    const transformed = rewriter.transform(
      new Response(stripped, { headers: { "content-type": "text/html; charset=utf-8" } }),
    );
    // Consumed natively: a JS WritableStream here cost a callback per output chunk (about half the time).
    await transformed.arrayBuffer();
  } catch (error) {
    // lol-html refuses pathological input (e.g. nesting beyond its memory limit) with a TypeError.
    const message = error instanceof Error ? error.message : String(error);
    throw new PapersError("upstream_malformed", `The HTML could not be parsed (${message.slice(0, 120)}).`, {
      recovery: "The paper's PDF may still be readable; open it on arxiv.org.",
    });
  }
  if (overLimit) throw tooLarge(limits.maxBytes);
  return {
    text: out.toString().trim(),
    outline,
    title,
    bibliography_count: bibliography,
    references,
    figures,
    outline_from: outline.length > 0 ? "headings" : "none",
    extraction_truncated: out.full,
  };
}

function tooLarge(maxBytes: number): PapersError {
  return new PapersError("content_too_large", `The HTML render is larger than ${Math.round(maxBytes / 1e6)} MB.`, {
    recovery:
      "Read the PDF instead (arxiv_read_paper falls back to it when asked for a version without HTML), or open the abs page.",
  });
}
