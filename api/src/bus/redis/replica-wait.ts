import { performance } from 'node:perf_hooks';
import { type Redis } from 'ioredis';

/**
 * The longest one `WAIT` blocks its connection. Appends sent meanwhile queue behind it on that
 * connection, so a wait that runs long (no replica in sync) is made of short ones, and what
 * queued runs between them.
 */
export const WAIT_SLICE_MS = 250;

/**
 * How waiting for a write's replicas ended: `confirmed` (`WAIT` counted enough replicas),
 * `timed-out` (the deadline passed first), or `lost` (the connection broke before a `WAIT`
 * answered: whether a replica got the write is unknown, and no `WAIT` on another connection can
 * tell, since `WAIT` only covers the writes of the connection it is sent on).
 */
export type WaitOutcome = 'confirmed' | 'timed-out' | 'lost';

interface Waiter {
  deadline: number;
  /** The connection's socket when the write was answered: a reconnect makes a new one. */
  stream: unknown;
  resolve: (outcome: WaitOutcome) => void;
}

interface ConnectionWaits {
  queued: Waiter[];
  inFlight: boolean;
}

/**
 * `WAIT replicas timeout` for the writes of one connection, shared: every write answered before a
 * `WAIT` is sent is covered by it, so one `WAIT` at a time per connection confirms every message
 * stored on it meanwhile. A write that is not confirmed yet is waited for again, in slices of at
 * most `WAIT_SLICE_MS`, until its deadline.
 */
export class ReplicaWait {
  private readonly waits = new WeakMap<Redis, ConnectionWaits>();

  constructor(private readonly replicas: number) {}

  /**
   * Resolves once `replicas` Redis replicas hold every write `connection` has answered so far, or
   * at `deadline` (a `performance.now()` time). Call it after the write's reply, never before.
   */
  confirm(connection: Redis, deadline: number): Promise<WaitOutcome> {
    let waits = this.waits.get(connection);
    if (!waits) {
      waits = { queued: [], inFlight: false };
      this.waits.set(connection, waits);
    }
    const state = waits;
    return new Promise<WaitOutcome>((resolve) => {
      state.queued.push({ deadline, stream: connection.stream, resolve });
      if (!state.inFlight) setImmediate(() => this.flush(connection, state));
    });
  }

  private flush(connection: Redis, state: ConnectionWaits): void {
    if (state.inFlight || state.queued.length === 0) return;
    const stream = connection.stream;
    const batch: Waiter[] = [];
    for (const waiter of state.queued) {
      // Written on a connection that has since been replaced: no WAIT can cover it any more.
      if (waiter.stream !== stream) waiter.resolve('lost');
      else batch.push(waiter);
    }
    state.queued = [];
    if (batch.length === 0) return;
    const soonest = Math.min(...batch.map((waiter) => waiter.deadline));
    const slice = Math.max(1, Math.min(WAIT_SLICE_MS, Math.ceil(soonest - performance.now())));
    state.inFlight = true;
    connection.wait(this.replicas, slice).then(
      (acknowledged) => {
        state.inFlight = false;
        const now = performance.now();
        for (const waiter of batch) {
          if (acknowledged >= this.replicas) waiter.resolve('confirmed');
          else if (now >= waiter.deadline) waiter.resolve('timed-out');
          else state.queued.push(waiter);
        }
        this.flush(connection, state);
      },
      () => {
        state.inFlight = false;
        for (const waiter of batch) waiter.resolve('lost');
        this.flush(connection, state);
      },
    );
  }
}
