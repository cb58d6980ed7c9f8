// A streaming pre-pass for LaTeXML pages (it also drops whitespace before block-level tags): inside a <math> element
// that carries its TeX in
// alttext, drop the MathML body. The body is hundreds of tiny elements and text nodes per
// formula that we never use (the TeX comes from alttext), and every one of them would cost a
// callback into the HTML rewriter. Math without alttext is left whole (its TeX annotation is read).

/** Index of the ">" that ends the tag starting at `from`, honouring quoted attribute values; -1 if not in `text`. */
function tagEnd(text: string, from: number): number {
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === ">") {
      return i;
    }
  }
  return -1;
}

// Whitespace right before a block-level tag never reaches the text; each such run would still be
// one text callback (LaTeXML pretty-prints, so there are thousands).
const BLOCK_GAP =
  />\s+(?=<\/?(?:div|p|section|article|ul|ol|li|table|tbody|thead|tfoot|tr|td|th|figure|figcaption|h[1-6]|nav|header|footer|blockquote|dl|dt|dd|math|annotation|semantics)[\s>])/g;
const squeeze = (text: string) => text.replace(BLOCK_GAP, ">");

const OPEN = "<math";
const CLOSE = "</math>";
const MAX_TAG = 64 * 1024; // an opening tag longer than this is not stripped

export function stripMathBodies(): TransformStream<string, string> {
  let carry = "";
  let inMath = false;
  return new TransformStream<string, string>({
    transform(chunk, raw) {
      const controller = { enqueue: (text: string) => text !== "" && raw.enqueue(squeeze(text)) };
      let buffer = carry + chunk;
      carry = "";
      for (;;) {
        if (inMath) {
          const close = buffer.indexOf(CLOSE);
          if (close < 0) {
            carry = buffer.slice(-(CLOSE.length - 1)); // a "</math" split across chunks
            return;
          }
          inMath = false;
          buffer = buffer.slice(close);
          continue;
        }
        const open = buffer.indexOf(OPEN);
        if (open < 0) {
          const keep = OPEN.length - 1;
          controller.enqueue(buffer.slice(0, Math.max(0, buffer.length - keep)));
          carry = buffer.slice(Math.max(0, buffer.length - keep));
          return;
        }
        const after = buffer[open + OPEN.length];
        if (after === undefined) {
          controller.enqueue(buffer.slice(0, open));
          carry = buffer.slice(open);
          return;
        }
        if (!/[\s>/]/.test(after)) {
          // <mathematics ...>: not a math element.
          controller.enqueue(buffer.slice(0, open + OPEN.length));
          buffer = buffer.slice(open + OPEN.length);
          continue;
        }
        const end = tagEnd(buffer, open);
        if (end < 0) {
          if (buffer.length - open > MAX_TAG) {
            controller.enqueue(buffer);
            return;
          }
          controller.enqueue(buffer.slice(0, open));
          carry = buffer.slice(open);
          return;
        }
        const tag = buffer.slice(open, end + 1);
        controller.enqueue(buffer.slice(0, end + 1));
        inMath = /\salttext\s*=\s*["'][^"']*\S/.test(tag) && !tag.endsWith("/>");
        buffer = buffer.slice(end + 1);
      }
    },
    flush(controller) {
      if (!inMath && carry) controller.enqueue(squeeze(carry));
    },
  });
}
