import { CloseCode } from './close-codes';
import {
  DEFAULT_RECONNECT_POLICY,
  type ReconnectDecision,
  type ReconnectPolicy,
  decideReconnect,
} from './reconnect';

const JUST_BELOW_ONE = 1 - Number.EPSILON / 2;

function delayOf(decision: ReconnectDecision): number {
  if (decision.action !== 'reconnect') {
    throw new Error(`expected a reconnect, got ${JSON.stringify(decision)}`);
  }
  return decision.delayMs;
}

describe('DEFAULT_RECONNECT_POLICY', () => {
  test('is 10 attempts, 5000 ms apart, ±20 %, immediate reconnects within 1000 ms', () => {
    expect(DEFAULT_RECONNECT_POLICY).toEqual({
      attempts: 10,
      intervalMs: 5000,
      jitter: 0.2,
      immediateMaxDelayMs: 1000,
    });
  });
});

describe('decideReconnect', () => {
  const retryable = [
    CloseCode.GoingAway,
    CloseCode.Abnormal,
    CloseCode.TooBig,
    1011,
    CloseCode.TryAgainLater,
    CloseCode.RateLimited,
  ];

  test.each(retryable)('after close %i reconnects 10 times, then stops as exhausted', (code) => {
    const decisions = Array.from({ length: 12 }, (_, attemptsSoFar) =>
      decideReconnect(code, attemptsSoFar, () => 0.5),
    );
    for (let attemptsSoFar = 0; attemptsSoFar < 10; attemptsSoFar++) {
      expect(decisions[attemptsSoFar]).toEqual({
        action: 'reconnect',
        attempt: attemptsSoFar + 1,
        delayMs: 5000,
      });
    }
    expect(decisions[10]).toEqual({ action: 'stop', reason: 'exhausted' });
    expect(decisions[11]).toEqual({ action: 'stop', reason: 'exhausted' });
  });

  test('attempts are numbered from 1 to 10', () => {
    const attempts = Array.from({ length: 10 }, (_, attemptsSoFar) => {
      const decision = decideReconnect(CloseCode.Abnormal, attemptsSoFar, () => 0.5);
      return decision.action === 'reconnect' ? decision.attempt : null;
    });
    expect(attempts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  describe('delay of the usual back-off: 5000 ms ±20 %', () => {
    test.each([
      [0, 4000],
      [0.25, 4500],
      [0.5, 5000],
      [0.75, 5500],
      [JUST_BELOW_ONE, 6000],
      [0.999999, 6000],
    ])('random %d gives %i ms', (random, delay) => {
      expect(delayOf(decideReconnect(CloseCode.Abnormal, 0, () => random))).toBe(delay);
    });

    test('is always a whole number of milliseconds within 4000–6000', () => {
      const delays = Array.from({ length: 1001 }, (_, i) =>
        delayOf(decideReconnect(CloseCode.Abnormal, 3, () => Math.min(i / 1000, JUST_BELOW_ONE))),
      );
      expect(delays.filter((delay) => !Number.isInteger(delay))).toEqual([]);
      expect(Math.min(...delays)).toBe(4000);
      expect(Math.max(...delays)).toBe(6000);
    });

    test('varies with the random value, so clients do not reconnect in lockstep', () => {
      const delays = new Set(
        [0, 0.2, 0.4, 0.6, 0.8].map((r) => delayOf(decideReconnect(1006, 0, () => r))),
      );
      expect(delays.size).toBe(5);
    });

    test('uses the random value once per decision', () => {
      const random = jest.fn(() => 0.5);
      decideReconnect(CloseCode.Abnormal, 0, random);
      expect(random).toHaveBeenCalledTimes(1);
    });
  });

  describe('close 1012: reconnect at once, with jitter', () => {
    test.each([0, 0.1, 0.5, 0.9, JUST_BELOW_ONE])(
      'random %d gives a delay of at most 1000 ms',
      (random) => {
        const decision = decideReconnect(CloseCode.Restart, 0, () => random);
        expect(decision).toMatchObject({ action: 'reconnect', attempt: 1 });
        const delay = delayOf(decision);
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(1000);
      },
    );

    test('the delay is spread by the random value', () => {
      expect(delayOf(decideReconnect(CloseCode.Restart, 0, () => 0))).toBe(0);
      expect(delayOf(decideReconnect(CloseCode.Restart, 0, () => 0.5))).toBe(500);
      expect(delayOf(decideReconnect(CloseCode.Restart, 0, () => JUST_BELOW_ONE))).toBe(1000);
    });

    test('counts as an attempt', () => {
      expect(decideReconnect(CloseCode.Restart, 4, () => 0.5)).toMatchObject({ attempt: 5 });
      expect(decideReconnect(CloseCode.Restart, 10, () => 0.5)).toEqual({
        action: 'stop',
        reason: 'exhausted',
      });
    });
  });

  test.each([0, 1, 9, 10, 100])(
    'close 4401 asks for new credentials whatever the attempt count (%i)',
    (attemptsSoFar) => {
      const random = jest.fn(() => 0.5);
      expect(decideReconnect(CloseCode.Unauthorized, attemptsSoFar, random)).toEqual({
        action: 'reauthenticate',
      });
      expect(random).not.toHaveBeenCalled();
    },
  );

  test.each([0, 5, 10])('close 1000 stops as closed (%i attempts so far)', (attemptsSoFar) => {
    expect(decideReconnect(CloseCode.Normal, attemptsSoFar, () => 0.5)).toEqual({
      action: 'stop',
      reason: 'closed',
    });
  });

  test.each([0, 5, 10])('close 1008 stops as policy (%i attempts so far)', (attemptsSoFar) => {
    expect(decideReconnect(CloseCode.Policy, attemptsSoFar, () => 0.5)).toEqual({
      action: 'stop',
      reason: 'policy',
    });
  });

  test.each([0, 5, 10])('close 4403 stops as removed (%i attempts so far)', (attemptsSoFar) => {
    const random = jest.fn(() => 0.5);
    expect(decideReconnect(CloseCode.Removed, attemptsSoFar, random)).toEqual({
      action: 'stop',
      reason: 'removed',
    });
    expect(random).not.toHaveBeenCalled();
  });

  test('an unknown close code reconnects with the usual back-off', () => {
    expect(decideReconnect(4000, 0, () => 0.5)).toEqual({
      action: 'reconnect',
      attempt: 1,
      delayMs: 5000,
    });
  });

  test('honours a custom policy', () => {
    const policy: ReconnectPolicy = {
      attempts: 2,
      intervalMs: 1000,
      jitter: 0.5,
      immediateMaxDelayMs: 100,
    };
    expect(decideReconnect(1006, 0, () => 0, policy)).toEqual({
      action: 'reconnect',
      attempt: 1,
      delayMs: 500,
    });
    expect(decideReconnect(1006, 1, () => JUST_BELOW_ONE, policy)).toEqual({
      action: 'reconnect',
      attempt: 2,
      delayMs: 1500,
    });
    expect(decideReconnect(1006, 2, () => 0.5, policy)).toEqual({
      action: 'stop',
      reason: 'exhausted',
    });
    expect(delayOf(decideReconnect(1012, 0, () => JUST_BELOW_ONE, policy))).toBe(100);
  });

  test('with no jitter the delay is exactly the interval', () => {
    const policy = { ...DEFAULT_RECONNECT_POLICY, jitter: 0 };
    expect(delayOf(decideReconnect(1006, 0, () => 0, policy))).toBe(5000);
    expect(delayOf(decideReconnect(1006, 0, () => JUST_BELOW_ONE, policy))).toBe(5000);
  });
});
