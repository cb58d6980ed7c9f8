// Hand-made PDFs for tests and benchmarks, written per the PDF 1.4 structure (objects, xref table,
// trailer): no recording is needed for "a PDF with N pages of text", "a Flate stream we choose" or
// "an encrypted PDF", and none exists. One writer builds all of them.

class PdfWriter {
  private readonly encoder = new TextEncoder();
  private readonly chunks: Uint8Array[] = [];
  private readonly offsets: number[] = [];
  private length = 0;

  constructor() {
    this.add("%PDF-1.4\n");
  }

  add(piece: string | Uint8Array): void {
    const bytes = typeof piece === "string" ? this.encoder.encode(piece) : piece;
    this.chunks.push(bytes);
    this.length += bytes.byteLength;
  }

  /** Object n with a dictionary (or dictionary + stream) body given as text. */
  object(n: number, body: string): void {
    this.offsets[n] = this.length;
    this.add(`${n} 0 obj\n${body}\nendobj\n`);
  }

  /** Object n whose stream holds raw bytes (an image, a compressed content stream). */
  streamObject(n: number, dictionary: string, bytes: Uint8Array): void {
    this.offsets[n] = this.length;
    this.add(`${n} 0 obj\n${dictionary}\nstream\n`);
    this.add(bytes);
    this.add("\nendstream\nendobj\n");
  }

  /** The xref table and trailer for objects 1..count-1; `trailer` adds to the trailer dictionary. */
  finish(count: number, trailer = ""): Uint8Array {
    const xref = this.length;
    let table = `xref\n0 ${count}\n0000000000 65535 f \n`;
    for (let n = 1; n < count; n++) table += `${String(this.offsets[n]).padStart(10, "0")} 00000 n \n`;
    this.add(table);
    this.add(`trailer\n<< /Size ${count} /Root 1 0 R${trailer} >>\nstartxref\n${xref}\n%%EOF\n`);
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.byteLength;
    }
    return out;
  }
}

const defaultLine = (page: number, line: number) =>
  `Page ${page + 1} line ${line + 1}: the quick brown fox jumps over the lazy dog, again and again.`;
const pdfString = (text: string) => text.replace(/[^\x20-\x7e]/g, " ").replace(/[\\()]/g, (c) => `\\${c}`);

/**
 * A text PDF of `pages` pages. `lineFor(page, line)` gives each line's text (Latin-1; parentheses and
 * backslashes are escaped). `imageBytes` adds, drawn on every page, an uncompressed greyscale image of
 * that many bytes in all (what makes real PDFs large: figures), so a PDF can be built at exactly a size cap.
 */
export function makeTextPdf(
  pages: number,
  linesPerPage = 45,
  lineFor: (page: number, line: number) => string = defaultLine,
  { imageBytes = 0 }: { imageBytes?: number } = {},
): Uint8Array {
  const pdf = new PdfWriter();
  const perPage = imageBytes > 0 ? 3 : 2;
  const pageIds = Array.from({ length: pages }, (_, i) => 4 + i * perPage);
  // One square-ish image per page; its side is what makes its bytes add up to the share of this page.
  const side = imageBytes > 0 ? Math.max(1, Math.floor(Math.sqrt(imageBytes / pages))) : 0;
  pdf.object(1, "<< /Type /Catalog /Pages 2 0 R >>");
  pdf.object(2, `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages} >>`);
  pdf.object(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const encoder = new TextEncoder();
  for (let p = 0; p < pages; p++) {
    const id = pageIds[p]!;
    const lines = Array.from({ length: linesPerPage }, (_, l) => `(${pdfString(lineFor(p, l))}) Tj T*`).join("\n");
    const draw = side > 0 ? "\nq 200 0 0 200 300 50 cm /Im1 Do Q" : "";
    const content = `BT /F1 10 Tf 12 TL 50 760 Td\n${lines}\nET${draw}`;
    const xobjects = side > 0 ? ` /XObject << /Im1 ${id + 2} 0 R >>` : "";
    pdf.object(
      id,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >>${xobjects} >> /Contents ${id + 1} 0 R >>`,
    );
    pdf.object(id + 1, `<< /Length ${encoder.encode(content).byteLength} >>\nstream\n${content}\nendstream`);
    if (side > 0)
      pdf.streamObject(
        id + 2,
        `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${side * side} >>`,
        new Uint8Array(side * side).fill(0x80 + (p % 64)),
      );
  }
  return pdf.finish(4 + pages * perPage);
}

/** A one-page PDF whose content stream is `content`, declared Flate-compressed (a bad stream tests the extractor). */
export function flateContentPdf(content: Uint8Array): Uint8Array {
  const pdf = new PdfWriter();
  pdf.object(1, "<< /Type /Catalog /Pages 2 0 R >>");
  pdf.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
  pdf.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>");
  pdf.streamObject(4, `<< /Length ${content.byteLength} /Filter /FlateDecode >>`, content);
  return pdf.finish(5);
}

/** A one-page PDF with a Standard security handler and an unknown user password. */
export function encryptedPdf(): Uint8Array {
  const pdf = new PdfWriter();
  const hex32 = "A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90";
  pdf.object(1, "<< /Type /Catalog /Pages 2 0 R >>");
  pdf.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
  pdf.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>");
  pdf.object(4, `<< /Filter /Standard /V 1 /R 2 /O <${hex32}> /U <${hex32}> /P -44 >>`);
  const id = "<0123456789ABCDEF0123456789ABCDEF>";
  return pdf.finish(5, ` /Encrypt 4 0 R /ID [${id} ${id}]`);
}
