import { userNameKey } from '@taco/protocol';
import { type TokenBucket } from '../common/token-bucket';

/**
 * The rate limits a closed connection had used up: its message bucket and its strikes. A new
 * connection of the same name in the same room takes them over, so closing and reopening a
 * socket does not hand a flood a fresh burst, nor an abuser closed with 4429 a clean record.
 */
export interface OwedLimits {
  messages: TokenBucket;
  strikes: TokenBucket | undefined;
}

/** Names remembered at most (each for a few seconds): bounds memory under a reconnect storm. */
const MAX_NAMES = 10_000;
/** How often the remembered limits are looked over for ones that have refilled. */
const SWEEP_MS = 10_000;

const isSettled = (owed: OwedLimits, now: number) =>
  owed.messages.isFull(now) && (owed.strikes?.isFull(now) ?? true);

/**
 * The limits closed connections still owe, per room and name (compared as names are, see
 * `userNameKey`), on this replica, kept only until they have refilled. Per-connection limits stay
 * per connection while connections are open: two tabs each have their own.
 */
export class CarriedLimits {
  private readonly owed = new Map<string, OwedLimits[]>();
  private sweptAt = 0;

  /** Keeps what a connection that just closed owes, if anything. */
  keep(room: string, name: string, owed: OwedLimits, now: number): void {
    if (now - this.sweptAt >= SWEEP_MS) this.sweep(now);
    if (isSettled(owed, now)) return;
    const key = keyOf(room, name);
    const list = this.owed.get(key);
    if (list) list.push(owed);
    else if (this.owed.size < MAX_NAMES) this.owed.set(key, [owed]);
  }

  /** What a new connection of `name` in `room` takes over, if an earlier one still owes it. */
  take(room: string, name: string, now: number): OwedLimits | undefined {
    const key = keyOf(room, name);
    const list = this.owed.get(key);
    if (!list) return undefined;
    let owed: OwedLimits | undefined;
    while (owed === undefined && list.length > 0) {
      const next = list.pop();
      if (next && !isSettled(next, now)) owed = next;
    }
    if (list.length === 0) this.owed.delete(key);
    return owed;
  }

  /** How many names have limits kept (for tests). */
  get size(): number {
    return this.owed.size;
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [key, list] of this.owed) {
      const open = list.filter((owed) => !isSettled(owed, now));
      if (open.length === 0) this.owed.delete(key);
      else if (open.length < list.length) this.owed.set(key, open);
    }
  }
}

function keyOf(room: string, name: string): string {
  return `${room}\n${userNameKey(name)}`;
}
