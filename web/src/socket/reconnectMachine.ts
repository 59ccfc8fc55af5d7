import {
  decideReconnect,
  DEFAULT_RECONNECT_POLICY,
  type ReconnectDecision,
  type ReconnectPolicy,
} from '@taco/protocol';

export type TimerId = ReturnType<typeof setTimeout>;

/** Time and chance, injected so tests drive them (Jest's fake timers, a fixed random). */
export interface ReconnectClock {
  /** A number in [0, 1). */
  random: () => number;
  setTimeout: (callback: () => void, ms: number) => TimerId;
  clearTimeout: (id: TimerId) => void;
}

/**
 * - `idle`: no room joined;
 * - `connecting`: a socket is being opened;
 * - `open`: the socket is open;
 * - `waiting`: the socket closed and a reconnect is scheduled;
 * - `stopped`: the socket closed and will not come back by itself (given up, refused for good,
 *   or refused with 4401 until new credentials join again).
 */
export type ReconnectPhase = 'idle' | 'connecting' | 'open' | 'waiting' | 'stopped';

/** When to open the room's socket again: DESIGN.md §3, around `decideReconnect`. */
export interface ReconnectMachine {
  readonly phase: ReconnectPhase;
  /** Reconnect attempts since the socket last opened. */
  readonly attempts: number;
  /** A room was joined: connect now, counting attempts from zero. */
  start(): void;
  /** The socket opened: attempts count from zero again. */
  opened(): void;
  /** The socket closed with `code`: schedules the next attempt, or says why there is none. */
  closed(code: number): ReconnectDecision;
  /** The user asked: while the socket is down, connect now from zero. Returns whether it did. */
  retry(): boolean;
  /** The room was left: forget any scheduled attempt. */
  stop(): void;
}

/**
 * `connect(attempt)` opens a socket (`attempt` 0 for a first connection or one the user asked
 * for); it is called at once by `start` and `retry`, and by the clock for scheduled attempts.
 */
export function createReconnectMachine(
  clock: ReconnectClock,
  connect: (attempt: number) => void,
  policy: ReconnectPolicy = DEFAULT_RECONNECT_POLICY,
): ReconnectMachine {
  let phase: ReconnectPhase = 'idle';
  let attempts = 0;
  let timer: TimerId | null = null;

  function cancel() {
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
  }

  function connectNow(attempt: number) {
    cancel();
    attempts = attempt;
    // The phase is set first: `connect` may report a close before it returns.
    phase = 'connecting';
    connect(attempt);
  }

  return {
    get phase() {
      return phase;
    },
    get attempts() {
      return attempts;
    },
    start: () => connectNow(0),
    opened() {
      attempts = 0;
      phase = 'open';
    },
    closed(code) {
      cancel();
      const decision = decideReconnect(code, attempts, clock.random, policy);
      if (decision.action !== 'reconnect') {
        phase = 'stopped';
        return decision;
      }
      attempts = decision.attempt;
      phase = 'waiting';
      timer = clock.setTimeout(() => {
        timer = null;
        connectNow(decision.attempt);
      }, decision.delayMs);
      return decision;
    },
    retry() {
      if (phase !== 'waiting' && phase !== 'stopped') return false;
      connectNow(0);
      return true;
    },
    stop() {
      cancel();
      attempts = 0;
      phase = 'idle';
    },
  };
}
