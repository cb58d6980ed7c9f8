// The pages' TeX: names, titles and abstracts as letters (the converter), formulas as MathML
// (Temml), and whatever cannot be read shown as written, never an error.
import { describe, expect, it } from "vitest";
import { mathText, mathml } from "./math";
import { texHtml, texText, warmTex } from "./tex";

const html = (source: string) => String(texHtml(source));

describe("TeX shown as letters", () => {
  it("writes accents as letters: names, affiliations", () => {
    expect(texText("C. Bal\\'azs")).toBe("C. Balázs");
    expect(texText('J\\"urg Diemand')).toBe("Jürg Diemand");
    expect(texText('Max-Planck-Institut f\\"ur Astrophysik')).toBe("Max-Planck-Institut für Astrophysik");
    expect(texText('Erd\\H{o}s, G\\"{o}del, \\\'{E}cole, \\c{c}a, \\v{S}koda, {\\AA}ngstr\\"om, Stra\\ss e')).toBe(
      "Erdős, Gödel, École, ça, Škoda, Ångström, Straße",
    );
    expect(html("C. Bal\\'azs")).toBe("C. Balázs");
    // An accent on a dotless i, as Spanish names are written in TeX.
    expect(texText("L\\'{o}pez-Garc\\'{\\i}a")).toBe("López-García");
    expect(texText("Mart\\'{\\i}nez, Mart\\'\\i nez, Mart\\'\\i{}nez")).toBe("Martínez, Martínez, Martínez");
    expect(texText('na\\"{\\i}ve')).toBe("naïve");
  });

  it("writes {\\it ...}, \\emph, \\textbf as italics and bold, and ^{} _{} as super- and subscripts", () => {
    const abstract =
      "We consider particle orbits. {\\it Marginally consistent} CDM models are found with M_{CDM} = 1 x 10^{15}Msun of \\textbf{Cold DM}.";
    expect(html(abstract)).toBe(
      "We consider particle orbits. <em>Marginally consistent</em> CDM models are found with " +
        "M<sub>CDM</sub> = 1 x 10<sup>15</sup>Msun of <strong>Cold DM</strong>.",
    );
    expect(texText(abstract)).toBe(
      "We consider particle orbits. Marginally consistent CDM models are found with MCDM = 1 x 1015Msun of Cold DM.",
    );
    expect(html("\\emph{a} -- b --- c")).toBe("<em>a</em> – b — c");
  });

  it("renders $...$, \\(...\\), $$...$$ and \\[...\\] as MathML, and names the solar mass", () => {
    const out = html("Order $\\hbar$ corrections with $M_{HDM} \\le 0.6\\times 10^{15}\\msun$ and \\(x^2\\).");
    expect(out).toMatch(/^Order <math>.*ℏ.*<\/math> corrections with <math>/);
    expect(out).toContain("<msup><mn>10</mn><mn>15</mn></msup>");
    expect(out).toContain("<mo>⊙</mo>");
    expect(out).not.toContain("$");
    expect(html("$$\\frac{g}{2}$$")).toContain('display="block"');
    expect(html("\\[a+b\\]")).toContain('display="block"');
    // A flat formula reads as letters in plain text; one with layout as its TeX.
    expect(texText("Order $\\hbar$ Corrections")).toBe("Order ℏ Corrections");
    expect(texText("a $\\frac{g}{2} - 1$ shift")).toBe("a \\frac{g}{2} - 1 shift");
  });

  it("shows a formula that does not parse as its source, and never writes a style attribute or a link from TeX", () => {
    expect(html("bad $x^{2$ here")).toBe("bad $x^{2$ here");
    expect(html("odd $\\unknowncommand{x}$ one")).toBe("odd $\\unknowncommand{x}$ one");
    expect(html("$\\href{javascript:alert(1)}{x}$")).toBe("$\\href{javascript:alert(1)}{x}$");
    expect(mathml("\\color{red}x \\boxed{y}", false)).not.toMatch(/ style=/);
    expect(mathml("", false)).toBeNull();
    // \\ref, \\eqref and \\label would be empty in-page links: the formula is shown as written.
    expect(html("see $x \\ref{eq1}$ and $\\eqref{a}$")).toBe("see $x \\ref{eq1}$ and $\\eqref{a}$");
    expect(html("$y \\label{b}$")).not.toContain("<a ");
  });

  it("keeps what an abstract means literally: ~ beside a space, bare _ and ^, a lone $, %, and links", () => {
    expect(texText("V_{DM}~ 4500km/s")).toBe("VDM~ 4500km/s");
    expect(texText("costs $5 and 50% of snake_case a^b")).toBe("costs $5 and 50% of snake_case a^b");
    // A power written without braces is a superscript all the same.
    expect(html("masses up to 10^5 GeV, fluxes in cm^-2 s^{-1}")).toBe(
      "masses up to 10<sup>5</sup> GeV, fluxes in cm<sup>-2</sup> s<sup>-1</sup>",
    );
    expect(html("code at https://github.com/a/b_c_d. Done")).toBe(
      'code at <a href="https://github.com/a/b_c_d">https://github.com/a/b_c_d</a>. Done',
    );
    expect(html("see \\url{https://x.org/a}")).toContain('<a href="https://x.org/a">');
  });

  it("escapes HTML and shows unreadable TeX (unbalanced braces) as written", () => {
    expect(html("<script>alert(1)</script> {\\it x}")).toBe("&lt;script&gt;alert(1)&lt;/script&gt; <em>x</em>");
    expect(html("an {unbalanced \\'e")).toBe("an {unbalanced \\&#39;e");
    expect(texText("closing } first \\'e")).toBe("closing } first \\'e");
    expect(html("ends in a backslash \\")).toBe("ends in a backslash \\");
  });

  it("converts a page's texts in one go and gives each its own result", () => {
    const texts = Array.from({ length: 30 }, (_, i) => `Paper ${i}: S\\"u${i} {\\it x${i}} $a_${i}$`);
    warmTex(texts);
    for (const [i, text] of texts.entries())
      expect(texText(text)).toBe(`Paper ${i}: Sü${i} x${i} ${mathText(`a_${i}`)}`);
  });
});
