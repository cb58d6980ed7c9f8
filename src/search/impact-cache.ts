// The impact lists an isolate has read lately, kept decoded between requests: a research
// question's lists are about 300 KB of text (1,000,000 papers; a megabyte at 3.2 million) and most
// of its words are the common words of every question, so reading them from D1 each time is most
// of a search's traffic, and decoding them again a third of its summing. A held list is used only while the table
// still has it unchanged: the ranker
// sends each held list's document count, length and stamp, and D1 sends the list again only where they
// differ (src/search/rank.ts). Nothing is stale beyond that check, whatever the isolate's age.

import type { DecodedImpacts } from "./impacts.ts";

export interface HeldList {
  /** The term's document count when the list was built (arxiv_rank_impacts.docs). */
  docs: number;
  /** The stored text's length (with docs and stamp, what tells D1 the list is unchanged). */
  chars: number;
  /** When the list was written (arxiv_rank_impacts.stamp): a merged list can keep its count and length. */
  stamp: number;
  list: DecodedImpacts;
}

/** Bytes a held list takes: its arrays, and a little for the objects around them. */
const heldBytes = ({ list }: HeldList) => list.offsets.byteLength + list.weights.byteLength + 200;

/** Least recently used first out, by the bytes held. */
export class ImpactListCache {
  private readonly lists = new Map<string, HeldList>();
  private held = 0;
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get size(): number {
    return this.lists.size;
  }

  get heldBytes(): number {
    return this.held;
  }

  /** The held list, marked as just used. */
  get(key: string): HeldList | undefined {
    const list = this.lists.get(key);
    if (list !== undefined) {
      this.lists.delete(key);
      this.lists.set(key, list);
    }
    return list;
  }

  put(key: string, list: HeldList): void {
    const old = this.lists.get(key);
    if (old !== undefined) {
      this.lists.delete(key);
      this.held -= heldBytes(old);
    }
    if (heldBytes(list) > this.maxBytes) return;
    this.lists.set(key, list);
    this.held += heldBytes(list);
    for (const [oldest, held] of this.lists) {
      if (this.held <= this.maxBytes) break;
      this.lists.delete(oldest);
      this.held -= heldBytes(held);
    }
  }
}

/**
 * The isolate's cache: 24 MB of lists (about 480 at 1,000,000 papers, 150 at 3.2 million), under a
 * fifth of a Worker's 128 MB.
 */
export const isolateImpactCache = new ImpactListCache(24_000_000);
