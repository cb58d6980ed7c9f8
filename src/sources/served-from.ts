// Where an answer came from, said the same way by every source: `served_from` is `live`,
// `mirror`, or `cache` with when it was stored and how old it is.
export type ServedFrom =
  | { served_from: "live" }
  | { served_from: "mirror" }
  | { served_from: "cache"; cached_at: string; cache_age_seconds: number };

/** A cache answer stored at `storedAt` (epoch ms or an ISO date), aged at `now`. */
export function fromCache(storedAt: number | string, now = Date.now()): Extract<ServedFrom, { served_from: "cache" }> {
  const at = typeof storedAt === "number" ? storedAt : Date.parse(storedAt);
  return {
    served_from: "cache",
    cached_at: new Date(at).toISOString(),
    cache_age_seconds: Math.max(0, Math.round((now - at) / 1000)),
  };
}
