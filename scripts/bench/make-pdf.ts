// Generates a text PDF of N pages (hand-made, PDF 1.4 structure) for extraction benchmarks.
// `lineFor(page, line)` gives each line's text (Latin-1; parentheses and backslashes are escaped).
// `imageBytes` adds, drawn on every page, an uncompressed greyscale image of that many bytes
// in all (what makes real PDFs large: figures), so a PDF can be built at exactly the size cap.
const defaultLine = (p, l) =>
  `Page ${p + 1} line ${l + 1}: the quick brown fox jumps over the lazy dog, again and again.`;
const pdfString = (text) => text.replace(/[^\x20-\x7e]/g, " ").replace(/[\\()]/g, (c) => `\\${c}`);

export function makeTextPdf(pages, linesPerPage = 45, lineFor = defaultLine, { imageBytes = 0 } = {}) {
  const encoder = new TextEncoder();
  const chunks = [];
  const offsets = [];
  let length = 0;
  const add = (text) => {
    const bytes = typeof text === "string" ? encoder.encode(text) : text;
    chunks.push(bytes);
    length += bytes.byteLength;
  };
  const object = (n, body) => {
    offsets[n] = length;
    add(`${n} 0 obj\n${body}\nendobj\n`);
  };
  add("%PDF-1.4\n");
  const perPage = imageBytes > 0 ? 3 : 2;
  const pageIds = Array.from({ length: pages }, (_, i) => 4 + i * perPage);
  // One square-ish image per page; its side is what makes its bytes add up to the share of this page.
  const side = imageBytes > 0 ? Math.max(1, Math.floor(Math.sqrt(imageBytes / pages))) : 0;
  object(1, "<< /Type /Catalog /Pages 2 0 R >>");
  object(2, `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages} >>`);
  object(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  for (let p = 0; p < pages; p++) {
    const lines = Array.from({ length: linesPerPage }, (_, l) => `(${pdfString(lineFor(p, l))}) Tj T*`).join("\n");
    const draw = side > 0 ? "\nq 200 0 0 200 300 50 cm /Im1 Do Q" : "";
    const content = `BT /F1 10 Tf 12 TL 50 760 Td\n${lines}\nET${draw}`;
    const xobjects = side > 0 ? ` /XObject << /Im1 ${pageIds[p] + 2} 0 R >>` : "";
    object(
      pageIds[p],
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >>${xobjects} >> /Contents ${pageIds[p] + 1} 0 R >>`,
    );
    object(pageIds[p] + 1, `<< /Length ${encoder.encode(content).byteLength} >>\nstream\n${content}\nendstream`);
    if (side > 0) {
      offsets[pageIds[p] + 2] = length;
      add(
        `${pageIds[p] + 2} 0 obj\n<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${side * side} >>\nstream\n`,
      );
      add(new Uint8Array(side * side).fill(0x80 + (p % 64)));
      add("\nendstream\nendobj\n");
    }
  }
  const count = 4 + pages * perPage;
  const xref = length;
  let table = `xref\n0 ${count}\n0000000000 65535 f \n`;
  for (let n = 1; n < count; n++) table += `${String(offsets[n]).padStart(10, "0")} 00000 n \n`;
  add(table);
  add(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
