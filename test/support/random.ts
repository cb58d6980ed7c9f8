// The one seeded PRNG of the tests (a 31-bit linear congruential generator): the same seed gives
// the same hostile inputs on every run and machine, so a failure can be replayed.
export function seededRandom(seed: number) {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return { random, pick };
}
