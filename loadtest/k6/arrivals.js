// When a sender's messages go out, shared by the k6 scripts and the bench's load clients: on a
// fixed schedule, or as a Poisson process (exponential gaps of the same mean, as independent
// senders produce them) drawn from a seeded generator, so two runs send at the same moments.

/**
 * The gaps (ms) of one sender whose messages are `meanMs` apart on average: each call gives the
 * next gap, exponential (Poisson arrivals) from a generator (mulberry32) seeded with `seed`; the
 * same seed gives the same gaps.
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
