// npm run bench:reading [-- --count <n>]
// Reading for agents end to end over MCP through wrangler dev: papers_find_in_paper on a cached
// 100-page paper (a bench-made PDF whose lines are the recorded papers' real text, served by the
// fake upstream from a temporary copy of the fixtures) against the read tool's first read, the
// figure index and one table from the R2 cache, and find on the recorded HTML paper.
// Writes bench/results/reading.{json,md}.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { getDocumentProxy } from "unpdf";
import { ROOT, startStack } from "../lib/dev-server.ts";
import { arg, callTool, measure, timed } from "../lib/mcp-bench.ts";
import { makeTextPdf } from "../../test/support/pdf.ts";

const count = Number(arg("--count", "200"));
const call = (url, name, args) => callTool(url, name, args);

// Real text for the bench paper: the recorded PDFs' lines, in order, as many times as 100 pages need.
const lines = [];
for (const name of readdirSync(path.join(ROOT, "test/fixtures/pdf")).filter((file) => file.startsWith("arxiv_"))) {
  const pdf = await getDocumentProxy(new Uint8Array(readFileSync(path.join(ROOT, "test/fixtures/pdf", name))));
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    let text = "";
    for (const item of content.items) if ("str" in item) text += item.str + (item.hasEOL ? "\n" : "");
    lines.push(
      ...text
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line.length > 20),
    );
  }
}
const PAGES = 100;
const PER_PAGE = 45;
const bookPdf = makeTextPdf(PAGES, PER_PAGE, (p, l) => lines[(p * PER_PAGE + l) % lines.length]);
const questions = readFileSync(path.join(ROOT, "data/scholargym/scholargym-autoscholar-dev.jsonl"), "utf8")
  .trim()
  .split("\n")
  .slice(0, 200)
  .map((line) => JSON.parse(line).query);

const fixtures = mkdtempSync(path.join(os.tmpdir(), "papers-mcp-bench-fixtures-"));
cpSync(path.join(ROOT, "test/fixtures"), fixtures, { recursive: true });
mkdirSync(path.join(fixtures, "bench-made"), { recursive: true });
writeFileSync(path.join(fixtures, "bench-made/book-100-pages.pdf"), bookPdf);
const routes = JSON.parse(readFileSync(path.join(fixtures, "content-routes.json"), "utf8"));
const BOOKS = ["2401.99991v1", "2401.99992v1", "2401.99993v1"];
for (const id of BOOKS)
  routes.push({
    path: `/arxiv/pdf/${id}`,
    file: "bench-made/book-100-pages.pdf",
    content_type: "application/pdf",
    kind: "hand-made",
  });
writeFileSync(path.join(fixtures, "content-routes.json"), JSON.stringify(routes));

const stack = await startStack({ waitFor: "health", fixturesDir: fixtures });
try {
  const url = stack.mcpUrl;
  // First reads: fetch, extract 100 pages, store in R2 (one per ID, each a cold read).
  const firstReads = [];
  let book;
  for (const id of BOOKS) {
    const { ms, result } = await timed(() => call(url, "arxiv_read_paper", { paper_id: id, max_tokens: 1000 }));
    firstReads.push(ms);
    book = result;
  }
  // The first question about a cached paper builds its passage index; later ones reuse it.
  // The first question about each of two papers just read (their passage indexes were built during the read).
  const firstFind = await timed(() =>
    call(url, "papers_find_in_paper", { paper_id: BOOKS[1], query: "stability of circular orbits" }),
  );
  const secondPaperFirstFind = await timed(() =>
    call(url, "papers_find_in_paper", { paper_id: BOOKS[2], query: "stability of circular orbits" }),
  );
  const rows = [
    await measure("papers_find_in_paper, cached 100-page PDF, 200 research questions", count, (i) =>
      call(url, "papers_find_in_paper", { paper_id: BOOKS[0], query: questions[i % questions.length] }),
    ),
    await measure("arxiv_read_paper, cached 100-page PDF, a 10,000-token page", count, (i) =>
      call(url, "arxiv_read_paper", { paper_id: BOOKS[0], start: (i % 5) * 20_000 }),
    ),
  ];
  await call(url, "arxiv_read_paper", { paper_id: "2501.11120v1", max_tokens: 100 });
  rows.push(
    await measure(
      "arxiv_read_paper first page with the figure index (2501.11120v1, 83 entries, R2 cache), max_tokens 100",
      count,
      () => call(url, "arxiv_read_paper", { paper_id: "2501.11120v1", max_tokens: 100 }),
    ),
    await measure("arxiv_read_paper section=S3.T1 (one table as rows, R2 cache)", count, () =>
      call(url, "arxiv_read_paper", { paper_id: "2501.11120v1", section: "S3.T1" }),
    ),
    await measure("papers_find_in_paper, cached HTML paper (2501.11120v1), 200 research questions", count, (i) =>
      call(url, "papers_find_in_paper", { paper_id: "2501.11120v1", query: questions[i % questions.length] }),
    ),
  );
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
    book: { pages: PAGES, pdf_kb: Math.round(bookPdf.byteLength / 1024), characters: book.total_characters },
    first_reads_ms: firstReads,
    first_find_ms: [firstFind.ms, secondPaperFirstFind.ms],
    latency: rows,
  };
  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench/results/reading.json"), `${JSON.stringify(report, null, 2)}\n`);
  const md = [
    "# Benchmark: reading",
    "",
    `${report.date} · ${report.machine.cpus} × ${report.machine.cpu} · Node ${report.machine.node} · MCP over Streamable HTTP to wrangler dev`,
    "",
    `Bench paper: a ${PAGES}-page PDF (${report.book.pdf_kb} KB, ${report.book.characters.toLocaleString("en-US")} characters of the recorded papers' real text), served by the fake upstream.`,
    `First read (fetch, extraction of 100 pages, R2 write, first page): ${firstReads.join(" ms, ")} ms. First question about each of two papers just read (the first call of the tool in this isolate, then another paper): ${firstFind.ms} ms, ${secondPaperFirstFind.ms} ms.`,
    "",
    "| case | n | p50 ms | p95 ms | max ms |",
    "|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.case} | ${r.count} | ${r.p50_ms} | ${r.p95_ms} | ${r.max_ms} |`),
    "",
  ].join("\n");
  writeFileSync(path.join(ROOT, "bench/results/reading.md"), md);
  console.log(md);
} finally {
  await stack.stop();
  rmSync(fixtures, { recursive: true, force: true });
}
