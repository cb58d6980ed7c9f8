// Identical upstream requests made once: callers that ask for the same thing while a fetch of it
// is in flight share that fetch's result (or its error). Per isolate; nothing is kept afterwards,
// so every answer is as live as the fetch it came from.
const inflight = new Map<string, Promise<unknown>>();

/** Runs fetcher once per key at a time; concurrent callers with the same key share its result. */
export async function coalesce<T>(key: string, fetcher: () => Promise<T>): Promise<T> {
  const running = inflight.get(key);
  if (running) return running as Promise<T>;
  const promise = fetcher().finally(() => inflight.delete(key));
  inflight.set(key, promise);
  return promise;
}
