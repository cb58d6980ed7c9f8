// Child process of the benchmark: extracts one PDF with the project's pdfToDocument (bundled
// by run.ts) under a 128 MB V8 heap cap (--max-old-space-size=128, like a Worker isolate),
// sampling heap + ArrayBuffer memory while it runs. Prints one JSON line.
import { readFileSync } from "node:fs";
import { makeTextPdf } from "../../test/support/pdf.ts";

const [bundle, source, maxPages] = process.argv.slice(2);
const { pdfToDocument } = await import(bundle);
// A generated PDF is written by the parent (run.ts) to a file first, so that the generator's
// garbage is not in this process's baseline: here every PDF is one buffer read from disk.
const file = readFileSync(source);
const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength); // a view: no second copy
const pdfBytes = bytes.byteLength;
// Load pdf.js once first, so its code is in the baseline rather than in the measurement.
await pdfToDocument(makeTextPdf(1), { maxPages: 1, maxChars: 1000 }, "bench").catch(() => undefined);
global.gc?.();
const used = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const baseline = used();
let peak = baseline;
const sampler = setInterval(() => (peak = Math.max(peak, used())), 1);
const started = performance.now();
const document = await pdfToDocument(bytes, { maxPages: Number(maxPages), maxChars: 3_000_000 }, "bench");
const ms = performance.now() - started;
peak = Math.max(peak, used());
clearInterval(sampler);
const mb = (x) => Math.round((x / 1048576) * 10) / 10;
console.log(
  JSON.stringify({
    ms: Math.round(ms),
    chars: document.text.length,
    pdf_mb: mb(pdfBytes),
    baseline_mb: mb(baseline),
    peak_mb: mb(peak),
    growth_mb: mb(peak - baseline),
  }),
);
