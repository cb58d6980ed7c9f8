// The one seeded PRNG of the tests and benchmarks (mulberry32: small, fast, deterministic): the same seed gives
// the same hostile inputs and the same synthetic mirror on every run and machine, so a failure can be replayed.
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded random() and a pick() over it. */
export function seededRandom(seed: number) {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return { random, pick };
}
