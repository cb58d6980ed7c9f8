// What the end-to-end benchmarks share: their flags, one MCP tools/call over Streamable HTTP
// (JSON or SSE answer), and timing a case over many runs.
import { answerOf, MCP_HEADERS, mcpMessage } from "../../test/support/mcp-http.ts";

// The one reader of MCP's HTTP answers, shared with the tests.
export { answerOf, MCP_HEADERS, mcpMessage };

/** `--flag value` from the command line, or the fallback. */
export function arg(flag: string, fallback?: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

let anonymousClient = 0;

/**
 * One tools/call; resolves to its answer (structuredContent, or a text-payload answer's fields and text), throws on an HTTP, JSON-RPC or tool error.
 * Each call claims its own client address unless `headers` names one, so the per-client limits
 * (which the benchmarks do not measure) stay out of the way.
 */
export async function callTool(
  mcpUrl: string,
  name: string,
  args: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const response = await fetch(mcpUrl, {
    method: "POST",
    headers: { ...MCP_HEADERS, "cf-connecting-ip": `bench-${++anonymousClient}`, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await response.text();
  const message = mcpMessage(text);
  if (response.status !== 200 || message.error || message.result?.isError)
    throw new Error(`${name}: ${text.slice(0, 400)}`);
  return answerOf(message.result);
}

export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
export const round = (x: number): number => Math.round(x * 100) / 100;

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const t = performance.now();
  const result = await work();
  return { ms: round(performance.now() - t), result };
}

/** p50/p95/max of `runs` calls of work(i), after 10 warm-up calls; `check` sees the first result. */
export async function measure<T>(
  label: string,
  runs: number,
  work: (i: number) => Promise<T>,
  check?: (first: T) => void,
) {
  const first = await work(0);
  check?.(first);
  for (let i = 0; i < 10; i++) await work(i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push((await timed(() => work(i))).ms);
  samples.sort((a, b) => a - b);
  return {
    case: label,
    count: runs,
    p50_ms: round(percentile(samples, 50)),
    p95_ms: round(percentile(samples, 95)),
    max_ms: round(samples.at(-1) ?? Number.NaN),
  };
}
