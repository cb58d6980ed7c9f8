// How much PDF one isolate holds at once is bounded by bytes, not by a count of reads: a Worker
// isolate has 128 MB, shared by every request it serves. A PDF read takes its cost from this
// budget before the body is read (the size comes from Content-Length or R2's metadata, else the
// cap) and gives it back when the text is out. The cost is the body plus pdf.js's working set.
//
// Measured (npm run bench, Node under a 128 MB heap cap, worst of three runs): a 38 MB PDF at the
// 300-page budget peaks at 92 MB heap + buffers, of which the body is 38 and pdf.js's code about
// 10; pdf.js grew by at most 48 MB on any PDF (uncollected garbage included). So one PDF at the
// 40 MB cap runs alone, two ordinary papers (1-5 MB) run side by side, and a third waits.
import { PapersError } from "../../errors";

/** What pdf.js adds while extracting at the default page budget (bench: at most 48 MB, uncollected garbage included). */
export const PDF_WORKING_SET_BYTES = 48_000_000;
/** PDF bytes plus working sets held in one isolate at once. */
export const PDF_ISOLATE_BUDGET_BYTES = 100_000_000;

interface Waiter {
  cost: number;
  grant: () => void;
}

/** A byte budget handed out first come, first served. */
export class ByteBudget {
  private used = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly capacity: number) {}

  get inUse(): number {
    return this.used;
  }

  /**
   * Waits until `cost` bytes are free (a cost above the capacity waits for an empty budget) and
   * returns the release. Past `deadline` the wait ends with a retryable `server_busy`.
   */
  async acquire(cost: number, deadline: number): Promise<() => void> {
    const take = Math.min(cost, this.capacity);
    if (this.waiting.length === 0 && this.used + take <= this.capacity) return this.hold(take);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        cost: take,
        grant: () => {
          clearTimeout(timer);
          resolve(this.hold(take));
        },
      };
      const timer = setTimeout(
        () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          this.grantWaiting(); // the next one may fit now that this one stopped waiting
          reject(
            new PapersError("server_busy", "This server is extracting as many PDFs as its memory allows.", {
              retryable: true,
              retryAfterMs: 5000,
              recovery: "Retry in a few seconds; text you already read is cached.",
            }),
          );
        },
        Math.max(0, deadline - Date.now()),
      );
      this.waiting.push(waiter);
    });
  }

  private hold(cost: number): () => void {
    this.used += cost;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= cost;
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.cost <= this.capacity) {
      this.waiting.shift()!.grant();
    }
  }
}

/** The isolate's one budget for PDF reads and downloads. */
export const pdfMemory = new ByteBudget(PDF_ISOLATE_BUDGET_BYTES);

/** Runs `work` holding `bytes` (plus pdf.js's working set when `extract`) of the isolate's PDF budget. */
export async function withPdfMemory<T>(
  bytes: number,
  options: { extract: boolean; deadline: number },
  work: () => Promise<T>,
): Promise<T> {
  const release = await pdfMemory.acquire(bytes + (options.extract ? PDF_WORKING_SET_BYTES : 0), options.deadline);
  try {
    return await work();
  } finally {
    release();
  }
}

/** The body's size as announced, or the cap when it is not (a body is never read past the cap). */
export function announcedSize(response: Response, cap: number): number {
  const length = Number(response.headers.get("content-length"));
  return Number.isFinite(length) && length > 0 ? Math.min(length, cap) : cap;
}
