/**
 * How a function's running time grows with its input, for tests that prove a parser of user text
 * linear. The input is made at a small size `n` and at `factor` × `n`; both are timed many times,
 * in turn, and the fastest runs are compared. A linear parser gives a ratio near `factor` (8), a
 * quadratic one `factor`² (64), a cubic one 512. Comparing growth rather than wall-clock limits
 * keeps the check meaningful on a slow or loaded machine: load slows both sizes alike, and the
 * fastest of many runs is one that load did not touch.
 *
 * The sizes: `n` doubles from `start` until a run takes `targetMs` or `n` reaches `maxSize` (and
 * then, if a run is still faster than that, each timing calls the function several times). A
 * linear parser reaches `maxSize` (4,096 characters, a whole message; the large input is then
 * eight messages long): large enough for a quadratic term to show, small enough that a large run
 * takes a few milliseconds, which a loaded machine often leaves uninterrupted, and that its
 * garbage dies young (larger inputs keep so much alive during a run that the collector, not the
 * parser, sets the ratio). A super-linear parser stops the doubling early, at a size it can still
 * be timed at.
 *
 * Test support only: not exported by the package's index (tests import `@taco/protocol/testing`).
 */

export interface GrowthOptions {
  /** The first size tried. Default 64. */
  start?: number;
  /** How much larger the large input is. Default 8. */
  factor?: number;
  /** The doubling of the small size stops once its fastest run takes this long, in ms. Default 1. */
  targetMs?: number;
  /** The small size is never made larger than this. Default 4096. */
  maxSize?: number;
  /** Timed runs of each size, after warming up. Default 21. */
  rounds?: number;
  /** Fewer rounds are run once the timed runs of one measurement took this long, in ms. */
  budgetMs?: number;
  /**
   * Measurements at most: one whose ratio is below `LINEAR_RATIO_LIMIT` ends them, else the best
   * is returned. A busy machine can spoil one measurement; a super-linear function fails them
   * all. Default 3.
   */
  attempts?: number;
  /** Milliseconds now; `performance.now` by default. */
  clock?: () => number;
}

export interface Growth {
  /** The small size (the large one is `size × factor`). */
  size: number;
  factor: number;
  /** The fastest run at each size, in ms. */
  smallMs: number;
  largeMs: number;
  /** `largeMs / smallMs`: about `factor` when linear, `factor`² when quadratic. */
  ratio: number;
}

/**
 * The largest ratio that passes for an 8× larger input: well above linear (8, plus what caches
 * and garbage collection add) and far below quadratic (64).
 */
export const LINEAR_RATIO_LIMIT = 24;

/** Times `run(make(size))` at a small and a `factor` × larger size; see the file comment. */
export function measureGrowth<T>(
  make: (size: number) => T,
  run: (input: T) => unknown,
  options: GrowthOptions = {},
): Growth {
  let best = measureOnce(make, run, options);
  for (let i = 1; i < (options.attempts ?? 3) && best.ratio >= LINEAR_RATIO_LIMIT; i++) {
    const growth = measureOnce(make, run, options);
    if (growth.ratio < best.ratio) best = growth;
  }
  return best;
}

function measureOnce<T>(
  make: (size: number) => T,
  run: (input: T) => unknown,
  options: GrowthOptions,
): Growth {
  const {
    start = 64,
    factor = 8,
    targetMs = 1,
    maxSize = 4096,
    rounds = 21,
    budgetMs = 2000,
    clock = () => performance.now(),
  } = options;
  /** Calls of `run` per timing: more than one when a call at `maxSize` is too fast to time. */
  let calls = 1;
  const time = (input: T): number => {
    const began = clock();
    for (let i = 0; i < calls; i++) run(input);
    return clock() - began;
  };
  const fastest = (input: T, times: number): number => {
    let best = Infinity;
    for (let i = 0; i < times; i++) best = Math.min(best, time(input));
    return best;
  };

  // Warm up, so that the JIT has compiled the code, while finding the size.
  let size = start;
  let small = make(size);
  fastest(small, 3);
  while (size < maxSize && fastest(small, 5) < targetMs) {
    size = Math.min(maxSize, size * 2);
    small = make(size);
  }
  while (calls < 1024 && fastest(small, 5) < targetMs) calls *= 2;
  const large = make(size * factor);
  time(large);

  let smallMs = Infinity;
  let largeMs = Infinity;
  const began = clock();
  for (let i = 0; i < rounds && (i < 3 || clock() - began < budgetMs); i++) {
    smallMs = Math.min(smallMs, time(small));
    largeMs = Math.min(largeMs, time(large));
  }
  // A clock too coarse to see the small run would divide by zero.
  const ratio = largeMs / Math.max(smallMs, 1e-3);
  return { size, factor, smallMs, largeMs, ratio };
}

/** `text` repeated until it is `size` characters long (cut there). */
export function repeatTo(text: string, size: number): string {
  return text.repeat(Math.ceil(size / text.length)).slice(0, size);
}

/** A seeded random number generator (mulberry32) in [0, 1), so a hostile input can be made again. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces picked at random (from a fixed seed) and joined until `size` characters long. */
export function randomMix(pieces: readonly string[], seed: number): (size: number) => string {
  return (size) => {
    const random = seededRandom(seed);
    let text = '';
    while (text.length < size) text += pieces[Math.floor(random() * pieces.length)];
    return text.slice(0, size);
  };
}
