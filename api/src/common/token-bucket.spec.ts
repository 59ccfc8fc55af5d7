import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  it('allows a burst of its capacity, then refills at its rate', () => {
    const bucket = new TokenBucket(3, 2, 0);
    expect([bucket.take(0), bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(bucket.msUntilAvailable(0)).toBe(500);
    expect(bucket.take(499)).toBe(false);
    expect(bucket.take(500)).toBe(true);
  });

  it('never holds more than its capacity', () => {
    const bucket = new TokenBucket(2, 10, 0);
    expect(bucket.isFull(1_000_000)).toBe(true);
    expect([bucket.take(1_000_000), bucket.take(1_000_000), bucket.take(1_000_000)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('ignores a clock that goes backwards', () => {
    const bucket = new TokenBucket(1, 1, 1000);
    expect(bucket.take(1000)).toBe(true);
    expect(bucket.take(0)).toBe(false);
    expect(bucket.isFull(0)).toBe(false);
  });
});
