// The TTL cache: a hit says when it was fetched, an entry past its TTL is no hit, the memory layer
// answers without D1 until cleared, a batch lookup crosses D1's 100-parameter bound, and the purge
// removes exactly the expired entries.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { cacheGet, cacheGetMany, cachePurgeExpired, cachePut, clearMemoryCache } from "./cache";

const T0 = Date.parse("2026-12-01T00:00:00Z");

beforeEach(async () => {
  clearMemoryCache();
  await env.DB.prepare("DELETE FROM api_cache").run();
});

describe("cache", () => {
  it("answers a hit with its value and fetch time until the TTL runs out", async () => {
    await cachePut(env.DB, [{ key: "k", value: { a: 1 }, ttlMs: 60_000 }], T0);
    expect(await cacheGet(env.DB, "k", T0 + 59_000)).toEqual({ value: { a: 1 }, fetchedAt: T0 });
    clearMemoryCache();
    expect(await cacheGet(env.DB, "k", T0 + 59_000)).toEqual({ value: { a: 1 }, fetchedAt: T0 });
    expect(await cacheGet(env.DB, "k", T0 + 61_000)).toBeUndefined();
    expect(await cacheGet(env.DB, "missing", T0)).toBeUndefined();
  });

  it("looks up many keys at once, past D1's 100 bound parameters", async () => {
    const entries = Array.from({ length: 250 }, (_, i) => ({ key: `k${i}`, value: i, ttlMs: 60_000 }));
    await cachePut(env.DB, entries, T0);
    clearMemoryCache();
    const hits = await cacheGetMany<number>(env.DB, [...entries.map((e) => e.key), "absent"], T0 + 1000);
    expect(hits.size).toBe(250);
    expect(hits.get("k249")?.value).toBe(249);
    expect(hits.has("absent")).toBe(false);
  });

  it("purges the expired entries and keeps the live ones", async () => {
    await cachePut(
      env.DB,
      [
        { key: "short", value: 1, ttlMs: 1000 },
        { key: "long", value: 2, ttlMs: 600_000 },
      ],
      T0,
    );
    expect(await cachePurgeExpired(env.DB, T0 + 5000)).toBe(1);
    clearMemoryCache();
    expect(await cacheGet(env.DB, "long", T0 + 5000)).toMatchObject({ value: 2 });
    expect(await cacheGet(env.DB, "short", T0 + 5000)).toBeUndefined();
  });
});
