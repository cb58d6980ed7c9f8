// Bench-only Worker: runs the extractors inside workerd (the runtime they run in) on a posted
// body. Timing and memory are measured from outside by scripts/bench/run.ts (a Worker's clock
// does not advance during pure computation). Never deployed.
import { htmlToDocument } from "../../../src/sources/arxiv/read/html";
import { pdfToDocument } from "../../../src/sources/text/pdf";

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/ping") return new Response("ok");
    const body = new Uint8Array(await request.arrayBuffer());
    const document =
      url.pathname === "/html"
        ? await htmlToDocument(new Response(body).body!, { maxBytes: 30e6, maxChars: 3e6 })
        : await pdfToDocument(
            body,
            { maxPages: Number(url.searchParams.get("max_pages") ?? "300"), maxChars: 3e6 },
            "bench",
          );
    return Response.json({ chars: document.text.length, truncated: document.extraction_truncated });
  },
};
