import { LINEAR_RATIO_LIMIT, measureGrowth, randomMix, repeatTo, seededRandom } from './growth';

/** A clock that only the measured function moves: each call costs `cost(size)` ms. */
function fakeCost(cost: (size: number) => number) {
  let now = 0;
  const sizes: number[] = [];
  return {
    clock: () => now,
    run: (input: string) => {
      sizes.push(input.length);
      now += cost(input.length);
    },
    sizes,
  };
}

const text = (size: number) => 'a'.repeat(size);

describe('measureGrowth', () => {
  it('gives about 8 for a linear function, 64 for a quadratic one and 512 for a cubic one', () => {
    for (const [cost, ratio] of [
      [(n: number) => n / 1000, 8],
      [(n: number) => (n / 1000) ** 2, 64],
      [(n: number) => (n / 1000) ** 3, 512],
    ] as const) {
      const { clock, run } = fakeCost(cost);
      expect(measureGrowth(text, run, { clock }).ratio).toBeCloseTo(ratio);
    }
  });

  it('grows the small size until a call takes targetMs, up to maxSize', () => {
    const slow = fakeCost((n) => n / 100);
    expect(measureGrowth(text, slow.run, { clock: slow.clock }).size).toBe(128);
    const fast = fakeCost((n) => n / 1e6);
    const growth = measureGrowth(text, fast.run, { clock: fast.clock });
    expect(growth.size).toBe(4096);
    expect(Math.max(...fast.sizes)).toBe(4096 * 8);
    expect(growth.ratio).toBeCloseTo(8);
  });

  it('keeps the fastest of its runs, so that one slowed run does not fail it', () => {
    let now = 0;
    let largeRuns = 0;
    const run = (input: string) => {
      const large = input.length > 1024;
      if (large) largeRuns++;
      // Every other run of the large input is slowed ten times by "load".
      now += (input.length / 1000) * (large && largeRuns % 2 === 0 ? 10 : 1);
    };
    expect(measureGrowth(text, run, { clock: () => now }).ratio).toBeCloseTo(8);
  });

  it('tries again before failing, and reports the best of its attempts', () => {
    let attempt = 0;
    let now = 0;
    let lastSize = 0;
    const run = (input: string) => {
      // The small size is tried first in each attempt: a new attempt starts at size 64.
      if (input.length === 64 && lastSize !== 64) attempt++;
      lastSize = input.length;
      now += attempt === 1 ? (input.length / 1000) ** 2 : input.length / 1000;
    };
    const growth = measureGrowth(text, run, { clock: () => now });
    expect(attempt).toBe(2);
    expect(growth.ratio).toBeLessThan(LINEAR_RATIO_LIMIT);
  });

  it('tells a real quadratic function from a linear one', () => {
    const quadratic = (input: string) => {
      let found = 0;
      for (let i = 0; i < input.length; i++) found += input.indexOf('b', i) === -1 ? 0 : 1;
      return found;
    };
    const linear = (input: string) => input.indexOf('b');
    expect(measureGrowth(text, quadratic, { attempts: 1 }).ratio).toBeGreaterThan(
      LINEAR_RATIO_LIMIT,
    );
    expect(measureGrowth(text, linear).ratio).toBeLessThan(LINEAR_RATIO_LIMIT);
  });
});

describe('inputs', () => {
  it('repeats text to an exact length', () => {
    expect(repeatTo('abc', 7)).toBe('abcabca');
  });

  it('mixes pieces the same way for the same seed', () => {
    const mix = randomMix(['a', 'bb', 'ccc'], 1);
    expect(mix(50)).toHaveLength(50);
    expect(mix(50)).toBe(mix(50));
    expect(randomMix(['a', 'bb', 'ccc'], 2)(50)).not.toBe(mix(50));
    const random = seededRandom(3);
    expect(Array.from({ length: 3 }, random)).toEqual(Array.from({ length: 3 }, seededRandom(3)));
  });
});
