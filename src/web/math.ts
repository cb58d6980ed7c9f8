// Maths in titles and abstracts as MathML, rendered here on the server: the browser draws MathML
// itself (MathML Core), so the pages load no script and the Content-Security-Policy stays
// default-src 'none'. Temml (temml.org, MIT, maintained) writes MathML only, for browsers to
// draw, where KaTeX's MathML output is an accessibility shadow of its HTML rendering; it is about
// 100 KB of the Worker's gzip size and renders a formula in about 0.05 ms.
import { decodeHTML } from "entities";
import temml from "temml";

/** Past this a "formula" is most likely a stray dollar sign's run of text: shown as written. */
const MAX_FORMULA_CHARS = 2_000;

/**
 * Macros arXiv abstracts use as if they were standard (astronomy's solar mass and km/s, as the
 * AAS journals define them): without them Temml refuses the formula and it is shown as its source.
 */
const MACROS: Record<string, string> = {
  "\\msun": "M_\\odot",
  "\\Msun": "M_\\odot",
  "\\msol": "M_\\odot",
  "\\Msol": "M_\\odot",
  "\\sun": "\\odot",
  "\\lsun": "L_\\odot",
  "\\Lsun": "L_\\odot",
  "\\kms": "\\,\\mathrm{km\\,s^{-1}}",
};

const cache = new Map<string, string | null>();
const CACHE_ENTRIES = 4_000;

/**
 * The formula as a <math> element, or null when it does not parse (an unknown command, an
 * unclosed brace): the page then shows its source. trust stays off, so \href, \url and \class
 * are refused rather than written. Inline style attributes (\color, \boxed, arrays' padding) are
 * dropped: the CSP refuses inline style, and each refusal would be a console error.
 */
export function mathml(tex: string, display: boolean): string | null {
  const key = `${display ? "D" : "I"}${tex}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  let out: string | null = null;
  // \ref, \eqref and \label would write in-page links to equations a record does not have.
  if (tex.trim() !== "" && tex.length <= MAX_FORMULA_CHARS && !/\\(?:eq)?ref\b|\\label\b/.test(tex)) {
    try {
      out = temml
        .renderToString(tex, { displayMode: display, throwOnError: true, trust: false, macros: { ...MACROS } })
        .replace(/ style="[^"]*"/g, "");
    } catch {
      out = null;
    }
  }
  if (cache.size >= CACHE_ENTRIES) cache.clear();
  cache.set(key, out);
  return out;
}

/** MathML elements whose meaning lies in their layout: their letters alone would read wrong (x2 for x²). */
const LAYOUT = /<(?:msub|msup|msubsup|mfrac|msqrt|mroot|munder|mover|munderover|mtable|menclose|mmultiscripts)\b/;

/**
 * A formula as plain text (a page's <title>, where no markup goes): its letters when it is flat
 * (O(ℏ), ≤, α), else its TeX source, which is what a reader of plain text expects.
 */
export function mathText(tex: string): string {
  const rendered = mathml(tex, false);
  if (rendered === null || LAYOUT.test(rendered)) return tex.trim();
  return decodeHTML(rendered.replace(/<[^>]*>/g, ""));
}
