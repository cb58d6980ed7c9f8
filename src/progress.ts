// Progress on long work, as MCP progress notifications when the client sent a progressToken.
// Sources call it as they go (a PDF fetched, a page extracted, references resolved); it never
// throws and never waits, and it is a no-op when nobody asked. A leaf: any layer may import it.

export type ReportProgress = (message: string, progress: number, total?: number) => void;

export const noProgress: ReportProgress = () => {};

/**
 * About twenty reports over a counted task (a 500-page PDF does not send 500), the last always
 * sent; uncounted steps pass through. Counted, not timed: workerd's clock stands still while a
 * Worker computes, so a timer would let nothing through during extraction.
 */
export function throttled(report: ReportProgress): ReportProgress {
  if (report === noProgress) return report;
  let lastSent = -Infinity;
  return (message, progress, total) => {
    const step = total === undefined ? 0 : Math.max(1, total / 20);
    if (total !== undefined && progress !== total && progress - lastSent < step) return;
    lastSent = progress;
    report(message, progress, total);
  };
}
