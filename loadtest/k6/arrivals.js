/**
 * Poisson send times for the k6 scripts and the bench's load clients: each call gives the next gap
 * (ms) of a sender `meanMs` apart on average, exponential, from a generator (mulberry32) seeded
 * with `seed`, so two runs send at the same moments.
 */
export function poissonGaps(meanMs, seed) {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return -Math.log(1 - ((t ^ (t >>> 14)) >>> 0) / 4294967296) * meanMs;
  };
}
