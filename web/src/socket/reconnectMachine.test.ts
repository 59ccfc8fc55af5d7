import {
  CloseCode,
  RECONNECT_ATTEMPTS,
  RECONNECT_INTERVAL_MS,
  RECONNECT_JITTER,
  RECONNECT_NOW_MAX_DELAY_MS,
} from '@taco/protocol';
import { createReconnectMachine } from './reconnectMachine';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** A machine on Jest's fake clock; `random` returns the given values in turn (the last repeats). */
function setup(...randoms: number[]) {
  const connects: number[] = [];
  const values = randoms.length > 0 ? randoms : [0.5];
  let draw = 0;
  const machine = createReconnectMachine(
    {
      random: () => values[Math.min(draw++, values.length - 1)]!,
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (id) => clearTimeout(id),
    },
    (attempt) => connects.push(attempt),
  );
  return { machine, connects };
}

describe('reconnect machine (DESIGN.md §3)', () => {
  it('connects at once when started, from attempt 0', () => {
    const { machine, connects } = setup();
    expect(machine.phase).toBe('idle');
    machine.start();
    expect(connects).toEqual([0]);
    expect(machine.phase).toBe('connecting');
    machine.opened();
    expect(machine.phase).toBe('open');
  });

  it('tries 10 times, 5 s apart, then gives up', () => {
    const { machine, connects } = setup();
    machine.start();
    machine.opened();
    for (let attempt = 1; attempt <= RECONNECT_ATTEMPTS; attempt++) {
      expect(machine.closed(CloseCode.Abnormal)).toEqual({
        action: 'reconnect',
        attempt,
        delayMs: RECONNECT_INTERVAL_MS,
      });
      expect(machine.phase).toBe('waiting');
      jest.advanceTimersByTime(RECONNECT_INTERVAL_MS - 1);
      expect(connects).toHaveLength(attempt);
      jest.advanceTimersByTime(1);
      expect(connects).toHaveLength(attempt + 1);
      expect(connects.at(-1)).toBe(attempt);
      expect(machine.phase).toBe('connecting');
    }
    expect(machine.closed(CloseCode.Abnormal)).toEqual({ action: 'stop', reason: 'exhausted' });
    expect(machine.phase).toBe('stopped');
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 10);
    expect(connects).toHaveLength(RECONNECT_ATTEMPTS + 1);
  });

  it('spaces attempts by the injected random: 5 s ± 20 %', () => {
    const { machine, connects } = setup(0, 0.999, 0.5);
    machine.start();
    const spreads = [-1, 0.998, 0].map((s) =>
      Math.round(RECONNECT_INTERVAL_MS * (1 + s * RECONNECT_JITTER)),
    );
    for (const [index, delayMs] of spreads.entries()) {
      expect(machine.closed(CloseCode.Abnormal)).toMatchObject({ delayMs });
      jest.advanceTimersByTime(delayMs - 1);
      expect(connects).toHaveLength(index + 1);
      jest.advanceTimersByTime(1);
      expect(connects).toHaveLength(index + 2);
    }
    expect(spreads).toEqual([4000, 5998, 5000]);
  });

  it('reconnects at once, within a second, when the server restarts (1012)', () => {
    const { machine, connects } = setup(0.25);
    machine.start();
    machine.opened();
    const decision = machine.closed(CloseCode.Restart);
    expect(decision).toEqual({
      action: 'reconnect',
      attempt: 1,
      delayMs: RECONNECT_NOW_MAX_DELAY_MS * 0.25,
    });
    jest.advanceTimersByTime(RECONNECT_NOW_MAX_DELAY_MS * 0.25);
    expect(connects).toEqual([0, 1]);
  });

  it('never retries blindly after 4401: the caller gets new credentials', () => {
    const { machine, connects } = setup();
    machine.start();
    machine.opened();
    expect(machine.closed(CloseCode.Unauthorized)).toEqual({ action: 'reauthenticate' });
    expect(machine.phase).toBe('stopped');
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 20);
    expect(connects).toEqual([0]);
  });

  it('stops on a normal or policy close', () => {
    const { machine, connects } = setup();
    machine.start();
    expect(machine.closed(CloseCode.Normal)).toEqual({ action: 'stop', reason: 'closed' });
    machine.start();
    expect(machine.closed(CloseCode.Policy)).toEqual({ action: 'stop', reason: 'policy' });
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 3);
    expect(connects).toEqual([0, 0]);
  });

  it('counts attempts from the last successful open', () => {
    const { machine, connects } = setup();
    machine.start();
    machine.closed(CloseCode.Abnormal);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    expect(machine.closed(CloseCode.Abnormal)).toMatchObject({ attempt: 2 });
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    machine.opened();
    expect(machine.attempts).toBe(0);
    expect(machine.closed(CloseCode.Abnormal)).toMatchObject({ attempt: 1 });
    expect(connects).toEqual([0, 1, 2]);
  });

  it('reconnects now from attempt 0 when asked while down, and drops the scheduled attempt', () => {
    const { machine, connects } = setup();
    machine.start();
    machine.closed(CloseCode.Abnormal);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    machine.closed(CloseCode.Abnormal);
    expect(machine.retry()).toBe(true);
    expect(connects).toEqual([0, 1, 0]);
    expect(machine.attempts).toBe(0);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 3);
    expect(connects).toEqual([0, 1, 0]);
    expect(machine.closed(CloseCode.Abnormal)).toMatchObject({ attempt: 1 });
  });

  it('reconnects when asked after giving up, but not while connecting or open', () => {
    const { machine, connects } = setup();
    machine.start();
    expect(machine.retry()).toBe(false);
    machine.opened();
    expect(machine.retry()).toBe(false);
    machine.closed(CloseCode.Policy);
    expect(machine.retry()).toBe(true);
    expect(connects).toEqual([0, 0]);
  });

  it('forgets the scheduled attempt when the room is left', () => {
    const { machine, connects } = setup();
    machine.start();
    machine.closed(CloseCode.Abnormal);
    machine.stop();
    expect(machine.phase).toBe('idle');
    expect(machine.retry()).toBe(false);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 3);
    expect(connects).toEqual([0]);
  });

  it('takes a close reported while connecting, as when the socket cannot even be created', () => {
    const connects: number[] = [];
    const machine = createReconnectMachine(
      { random: () => 0.5, setTimeout, clearTimeout },
      (attempt) => {
        connects.push(attempt);
        if (connects.length === 1) machine.closed(CloseCode.Abnormal);
      },
    );
    machine.start();
    expect(machine.phase).toBe('waiting');
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    expect(connects).toEqual([0, 1]);
    expect(machine.phase).toBe('connecting');
  });
});
