// Text -> a valid BibTeX field value: TeX that arXiv already gives (maths, \"o, \&) is kept, other
// characters are converted to TeX (accented letters, dashes, quotes, & % # _ ...), braces are
// balanced, and in titles, words whose capitals must survive a style's case change (BERT, GPT-3,
// LaTeX) and maths are wrapped in braces. (unicode2latex does this too, but its tables do not load
// in workerd's module loader; this covers the Latin accents, and other letters stay UTF-8, which
// biber and BibTeX with inputenc read.)

type Token = { kind: "math" | "command" | "group" | "text"; text: string };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let text = "";
  const flush = () => {
    if (text) tokens.push({ kind: "text", text });
    text = "";
  };
  while (i < input.length) {
    const ch = input[i]!;
    if (ch === "$") {
      const double = input.startsWith("$$", i);
      const close = input.indexOf(double ? "$$" : "$", i + (double ? 2 : 1));
      if (close > i) {
        flush();
        const end = close + (double ? 2 : 1);
        tokens.push({ kind: "math", text: balance(input.slice(i, end)) });
        i = end;
        continue;
      }
    } else if (ch === "\\" && i + 1 < input.length) {
      const name = /^\\([a-zA-Z]+\*?|.)/.exec(input.slice(i))![0];
      let end = i + name.length;
      // An accent or a command takes its braced or single-letter argument with it.
      while (input[end] === "{") {
        const close = matchingBrace(input, end);
        if (close < 0) break;
        end = close + 1;
      }
      if (end === i + name.length && /^\\[`'^"~=.uvHcdbkrt]$/.test(name) && /[a-zA-Z]/.test(input[end] ?? "")) end++;
      flush();
      tokens.push({ kind: "command", text: balance(input.slice(i, end)) });
      i = end;
      continue;
    } else if (ch === "{") {
      const close = matchingBrace(input, i);
      if (close > 0) {
        flush();
        tokens.push({ kind: "group", text: input.slice(i, close + 1) });
        i = close + 1;
        continue;
      }
    }
    text += ch;
    i++;
  }
  flush();
  return tokens;
}

function matchingBrace(input: string, open: number): number {
  let depth = 0;
  for (let i = open; i < input.length; i++) {
    if (input[i] === "\\") i++;
    else if (input[i] === "{") depth++;
    else if (input[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Drops unmatched braces so that a field can never end the entry early. */
function balance(text: string): string {
  let depth = 0;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\" && i + 1 < text.length) {
      out += ch + text[++i];
      continue;
    }
    if (ch === "{") depth++;
    if (ch === "}") {
      if (depth === 0) continue;
      depth--;
    }
    out += ch;
  }
  return out + "}".repeat(depth);
}

// Combining marks -> TeX accent commands (NFD splits é into e + U+0301).
const ACCENTS: Record<string, string> = {
  "\u0300": "`",
  "\u0301": "'",
  "\u0302": "^",
  "\u0303": "~",
  "\u0304": "=",
  "\u0306": "u",
  "\u0307": ".",
  "\u0308": '"',
  "\u030a": "r",
  "\u030b": "H",
  "\u030c": "v",
  "\u0323": "d",
  "\u0327": "c",
  "\u0328": "k",
};
const LETTERS: Record<string, string> = {
  ß: "{\\ss}",
  æ: "{\\ae}",
  Æ: "{\\AE}",
  œ: "{\\oe}",
  Œ: "{\\OE}",
  ø: "{\\o}",
  Ø: "{\\O}",
  ł: "{\\l}",
  Ł: "{\\L}",
  ı: "{\\i}",
  đ: "{\\dj}",
  Đ: "{\\DJ}",
  þ: "{\\th}",
  Þ: "{\\TH}",
  "–": "--",
  "—": "---",
  "‘": "`",
  "’": "'",
  "“": "``",
  "”": "''",
  "…": "{\\ldots}",
  "\u00a0": "~",
  "&": "\\&",
  "%": "\\%",
  "#": "\\#",
  _: "\\_",
  $: "\\$",
  "~": "{\\textasciitilde}",
  "^": "{\\textasciicircum}",
  "{": "\\{",
  "}": "\\}",
  "\\": "{\\textbackslash}",
};

function convert(text: string): string {
  let out = "";
  for (const ch of text.normalize("NFD")) {
    const accent = ACCENTS[ch];
    if (accent !== undefined && out !== "") {
      // Put the accent on the letter just written: e + U+0301 -> {\'e}; i loses its dot.
      const base = out.slice(-1);
      out = `${out.slice(0, -1)}{\\${accent}${/[a-zA-Z]/.test(accent) ? " " : ""}${base === "i" ? "\\i" : base}}`;
    } else {
      out += LETTERS[ch] ?? ch;
    }
  }
  return out.normalize("NFC");
}

/** Capitals that are not just a word's first letter: acronyms, CamelCase, units (BERT, LaTeX, 3D). */
function needsProtection(word: string): boolean {
  const core = word.replace(/^[^\p{L}\p{N}]+/u, "");
  return /\p{Lu}/u.test(core.slice(1));
}

export function bibtexText(input: string, { title = false } = {}): string {
  const out: string[] = [];
  for (const token of tokenize(input.replace(/\s+/g, " ").trim())) {
    if (token.kind === "text") {
      out.push(
        token.text
          .split(/(\s+)/)
          .map((word) => {
            if (word.trim() === "" || !title || !needsProtection(word)) return convert(word);
            const [, core, trailing] = /^(.*?)([.,:;!?)]*)$/s.exec(word)!;
            return `{${convert(core!)}}${convert(trailing!)}`;
          })
          .join(""),
      );
    } else if (token.kind === "group") {
      out.push(token.text);
    } else {
      // Maths and commands in a title are braced, so a style's lower-casing leaves them alone.
      out.push(title ? `{${token.text}}` : token.text);
    }
  }
  return out.join("");
}

/** A URL or DOI as a field value: verbatim, braces balanced. */
export function bibtexVerbatim(value: string): string {
  return balance(value.replace(/[{}]/g, ""));
}
