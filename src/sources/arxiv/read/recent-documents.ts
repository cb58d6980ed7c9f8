// Recently read documents, per isolate: paging through a paper re-reads the same document, and
// parsing its JSON from R2 every page would dominate the call. Bounded by text size.
import { getJson, type StoredJson } from "../../../store/blobs";

const RECENT_BUDGET_CHARS = 6_000_000;
const recent = new Map<string, { stored: StoredJson<{ text: string }>; size: number }>();
let recentChars = 0;

/** The stored JSON document at `key`: from memory when recently read, else from R2 (then remembered). */
export async function readRecent<T extends { text: string }>(
  bucket: R2Bucket,
  key: string,
): Promise<StoredJson<T> | undefined> {
  const hit = recent.get(key);
  if (hit) {
    recent.delete(key);
    recent.set(key, hit);
    return hit.stored as StoredJson<T>;
  }
  const stored = await getJson<T>(bucket, key);
  if (stored) rememberRecent(key, stored);
  return stored;
}

export function rememberRecent(key: string, stored: StoredJson<{ text: string }>): void {
  const size = stored.value.text.length;
  if (size > RECENT_BUDGET_CHARS / 2) return;
  recent.set(key, { stored, size });
  recentChars += size;
  for (const [oldest, entry] of recent) {
    if (recentChars <= RECENT_BUDGET_CHARS) break;
    recent.delete(oldest);
    recentChars -= entry.size;
  }
}

/** Empties the per-isolate document memory (tests; R2 stays the source of truth). */
export function clearRecentDocuments(): void {
  recent.clear();
  recentChars = 0;
}
