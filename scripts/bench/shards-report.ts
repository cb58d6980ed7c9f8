// bench:shards' figures as markdown (bench/results/mirror-shards.md).
type Latency = { n: number; p50_ms: number; p95_ms: number; max_ms: number };
const line = (l: Latency) => `p50 ${l.p50_ms} ms, p95 ${l.p95_ms} ms, max ${l.max_ms} ms (${l.n})`;
const met = (ok: boolean) => (ok ? "met" : "**not met**");

export function shardsMarkdown(r: any): string {
  const o = r.offline;
  const papers = r.shards.reduce((sum: number, s: { papers: number }) => sum + s.papers, 0);
  return `# Benchmark: the mirror in ${r.shards.length} shards against one database (${papers.toLocaleString("en-US")} papers)

${r.date} · ${r.machine.cpus} × ${r.machine.cpu} · Node ${r.machine.node} · wrangler dev, local D1 · \`ARXIV_MIRROR_SHARDS = "${r.shard_map}"\`

Shards: ${r.shards.map((s: any) => `${s.binding} ${s.from_month ?? "start"}: ${s.papers.toLocaleString("en-US")}`).join("; ")}.

## Served over MCP (${r.searches} searches: the bench's 50, known items, research questions; each run twice, the second timed)

- Failed: one database ${r.failed.one}, shards ${r.failed.sharded}.
- The same first page as one database: **${r.same_first_page}** (target at least 0.995: ${met(r.targets.met_same)}); the same total and lower-bound flag: ${r.same_totals}; mean overlap@10 with one database's page ${r.mean_overlap_at_10}.
- One database: ${line(r.latency.one)}.
- ${r.shards.length} shards: ${line(r.latency.sharded)}; p95 **${r.latency.p95_ratio}x** (wrangler dev's local D1 runs the shards' statements one after another in one process).

| kind | searches | same first page | p95 one database ms | p95 shards ms |
|---|---|---|---|---|
${Object.entries(r.by_kind)
  .map(
    ([kind, k]: [string, any]) => `| ${kind} | ${k.n} | ${k.same_first_page} | ${k.p95_one_ms} | ${k.p95_sharded_ms} |`,
  )
  .join("\n")}

## Offline (node:sqlite, the Worker's code; ${o.queries} ranked searches)

- Every hit scored (reference mode): the same pages in one database and across the shards: **${o.exact_same_pages}**.
- Against that exhaustive ranking, the served first pages: one database overlap@10 ${o.quality_vs_exhaustive.one.mean_overlap_at_10}, first ${o.quality_vs_exhaustive.one.first_same}; shards overlap@10 **${o.quality_vs_exhaustive.sharded.mean_overlap_at_10}**, first ${o.quality_vs_exhaustive.sharded.first_same}. Where the pages differ, one database's candidate ranking missed papers that the shards (each rescoring its own best) found.
- The served first page is the whole exhaustive page (every hit scored, the known-item rule after it): one database **${o.quality_vs_exhaustive.one.page_same}**, shards **${o.quality_vs_exhaustive.sharded.page_same}**. Where one database's page is the exhaustive one (${o.same_page_where_one_database_is_exhaustive.searches} searches), the shards serve the same page on ${o.same_page_where_one_database_is_exhaustive.same}: the first pages differ where one database's ranking is approximate, and a 99.5% agreement needs both to be exact on more than 99.5% of searches.
- Latency: one database ${line(o.latency_node.one)}; the shards one after another ${line(o.latency_node.shards_in_sequence)}; **in parallel (the slowest shard's part, its ranking and the statistics read beside it on that database, plus the merge, as D1 runs them; each search the median of three runs): ${line(o.latency_node.shards_in_parallel_model)}, p95 ${o.p95_ratio_parallel_model}x** (target at most 1.3x: ${met(o.p95_ratio_parallel_model <= 1.3)}).

## Databases

${r.databases.map((d: any) => `- ${d.binding}: ${(d.size_bytes / 1e6).toFixed(0)} MB (${d.used_percent}% of 10 GB)${d.arxiv_papers !== undefined ? `, ${d.arxiv_papers.toLocaleString("en-US")} papers` : ""}`).join("\n")}

Differing first pages (up to 10) are in mirror-shards.json.
`;
}
