import { TokenBucket } from '../common/token-bucket';
import { CarriedLimits, type OwedLimits } from './carried-limits';

/** A message bucket of 3 refilled at 1 a second, with `used` tokens taken at `now`. */
function used(count: number, now = 0): OwedLimits {
  const messages = new TokenBucket(3, 1, now);
  for (let i = 0; i < count; i++) messages.take(now);
  return { messages, strikes: undefined };
}

describe('CarriedLimits', () => {
  it('hands what a closed connection owes to the next one of the same name in the room', () => {
    const carried = new CarriedLimits();
    const owed = used(3);
    carried.keep('teal-otter', 'Ann', owed, 0);
    expect(carried.take('teal-otter', ' ANN ', 100)).toBe(owed);
    // Taken once: a second socket opened at the same time starts fresh.
    expect(carried.take('teal-otter', 'Ann', 100)).toBeUndefined();
  });

  it('keeps nothing for a connection that owes nothing, or for another room or name', () => {
    const carried = new CarriedLimits();
    carried.keep('teal-otter', 'Ann', used(0), 0);
    expect(carried.size).toBe(0);
    carried.keep('teal-otter', 'Ann', used(2), 0);
    expect(carried.take('other-room', 'Ann', 0)).toBeUndefined();
    expect(carried.take('teal-otter', 'Bob', 0)).toBeUndefined();
  });

  it('forgets what has refilled by the time it is asked for', () => {
    const carried = new CarriedLimits();
    carried.keep('teal-otter', 'Ann', used(3), 0);
    expect(carried.take('teal-otter', 'Ann', 3000)).toBeUndefined();
    expect(carried.size).toBe(0);
  });

  it('keeps strikes too, until they are forgiven', () => {
    const carried = new CarriedLimits();
    const strikes = new TokenBucket(2, 1, 0);
    strikes.take(0);
    const owed: OwedLimits = { messages: new TokenBucket(3, 1, 0), strikes };
    carried.keep('teal-otter', 'Ann', owed, 0);
    expect(carried.take('teal-otter', 'Ann', 500)).toBe(owed);
  });

  it('sweeps refilled entries of names that never come back', () => {
    const carried = new CarriedLimits();
    carried.keep('teal-otter', 'Ann', used(3, 20_000), 20_000);
    carried.keep('teal-otter', 'Bob', used(3, 20_000), 20_000);
    expect(carried.size).toBe(2);
    carried.keep('teal-otter', 'Cat', used(3, 40_000), 40_000);
    expect(carried.size).toBe(1);
  });
});
