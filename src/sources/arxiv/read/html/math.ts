// Maths as TeX: the MathML element's alttext (or its TeX annotation when there is none) is
// written as $...$ or, for display maths, $$...$$, and the MathML's own text is never written (it
// would double every formula as "z∈Z"). The TeX also goes where the text is being collected: a
// heading, a bibliography block, a caption, an equation's index entry.
import { decodeHTMLAttribute } from "entities";
import type { Opened, ReaderState } from "./state";

export const MATH_SELECTORS = ["math", "annotation"];

export function openMath(state: ReaderState, { element, tag, ends, wasActive }: Opened): void {
  if (tag === "math") {
    state.mathDepth++;
    if (state.mathDepth === 1 && wasActive) {
      const alttext = element.getAttribute("alttext");
      const display = element.getAttribute("display") === "block";
      if (alttext !== null && alttext.trim() !== "")
        state.pendingTex = { tex: decodeHTMLAttribute(alttext).trim(), display };
      else state.texCapture = [];
    }
    ends.push(() => {
      state.mathDepth--;
      if (state.mathDepth > 0) return;
      if (state.pendingTex) emitTex(state, state.pendingTex.tex, state.pendingTex.display);
      else if (state.texCapture)
        emitTex(state, state.texCapture.join("").trim(), element.getAttribute("display") === "block");
      state.pendingTex = null;
      state.texCapture = null;
    });
  }
  if (tag === "annotation" && element.getAttribute("encoding") === "application/x-tex") {
    state.inTexAnnotation = true;
    ends.push(() => void (state.inTexAnnotation = false));
  }
}

export function emitTex(state: ReaderState, tex: string, display: boolean): void {
  if (tex === "") return;
  const { out } = state;
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
  if (state.heading) state.heading.parts.push(`$${clean}$`);
  if (state.reference?.block) state.reference.block.push(` $${clean}$ `);
  const figure = state.openFigures.at(-1);
  if (figure?.entry.kind === "equation") figure.tex.push(clean);
  else if (figure?.caption) figure.caption.push(`$${clean}$`);
}
