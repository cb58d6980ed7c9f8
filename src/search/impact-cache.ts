// The impact lists an isolate has read lately, kept between requests: a research question's
// lists are about 300 KB of text (1,000,000 papers; a megabyte at 3.2 million) and most of its
// words are the common words of every question, so reading them from D1 each time is most of a
// search's traffic. A held list is used only while the table still has it unchanged: the ranker
// sends each held list's document count and length, and D1 sends the list again only where they
// differ (src/search/rank.ts). Nothing is stale beyond that check, whatever the isolate's age.

export interface HeldList {
  /** The term's document count when the list was built (arxiv_rank_impacts.docs). */
  docs: number;
  postings: string;
}

/** Least recently used first out, by the text held (a one-byte string: a character is a byte). */
export class ImpactListCache {
  private readonly lists = new Map<string, HeldList>();
  private held = 0;
  private readonly maxChars: number;

  constructor(maxChars: number) {
    this.maxChars = maxChars;
  }

  get size(): number {
    return this.lists.size;
  }

  get heldChars(): number {
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
      this.held -= old.postings.length;
    }
    if (list.postings.length > this.maxChars) return;
    this.lists.set(key, list);
    this.held += list.postings.length;
    for (const [oldest, { postings }] of this.lists) {
      if (this.held <= this.maxChars) break;
      this.lists.delete(oldest);
      this.held -= postings.length;
    }
  }
}

/**
 * The isolate's cache: 24 MB of lists (about 700 at 1,000,000 papers, 230 at 3.2 million), under a
 * fifth of a Worker's 128 MB.
 */
export const isolateImpactCache = new ImpactListCache(24_000_000);
