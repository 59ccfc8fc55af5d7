import {
  type ClientFrame,
  FrameType,
  RATE_LIMITS,
  TYPING_IDLE_MS,
  TYPING_THROTTLE_MS,
} from '@taco/protocol';
import type { ReconnectClock, TimerId } from './reconnectMachine';

/** Sends a frame on the current connection if it is open; says whether it did. */
export type SendFrame = (frame: ClientFrame) => boolean;

/** Time, injected so tests drive it. */
export type OutboxClock = Pick<ReconnectClock, 'setTimeout' | 'clearTimeout'> & {
  /** Milliseconds since the epoch. */
  now: () => number;
};

/** An own message waiting to go out. */
export interface OutgoingMessage {
  clientId: string;
  message: string;
}

/** The server's message bucket per connection (protocol `RATE_LIMITS`), mirrored here. */
export interface MessageBucket {
  burst: number;
  perSecond: number;
}

export const DEFAULT_MESSAGE_BUCKET: MessageBucket = {
  burst: RATE_LIMITS.messageBurst,
  perSecond: RATE_LIMITS.messagesPerSecond,
};

/** Waited on top of the time the bucket needs, so the server's bucket has surely refilled. */
export const REFILL_MARGIN_MS = 100;

/**
 * Tokens kept in hand besides the one a message takes: the server counts time from when frames
 * arrive, and one that arrived late leaves it less refilled than this mirror, counting from when
 * they left. With the defaults, 0.3 tokens is 150 ms of network jitter.
 */
export const SLACK_TOKENS = 0.3;

/** A message refused as rate limited this many times is reported as not sent. */
export const RATE_LIMITED_TRIES = 4;

/**
 * Own messages going out on one connection, in the order typed. They wait until the connection's
 * history has caught up (so a message the server already stored before a drop is recognised, not
 * sent twice); then each goes out once per connection, paced by a mirror of the server's message
 * bucket so a fast burst waits its turn instead of being refused. A message the server still
 * refused as rate limited goes back to the head of the line and is sent again, in order, once the
 * bucket has refilled; only after `RATE_LIMITED_TRIES` refusals is it given up.
 */
export class Outbox {
  private synced = false;
  private readonly sent = new Set<string>();
  private readonly refusals = new Map<string, number>();
  private tokens: number;
  private refilledAt: number;
  private timer: TimerId | null = null;

  /** `pending` lists the own messages not stored yet and not given up, in order. */
  constructor(
    private readonly sendFrame: SendFrame,
    private readonly pending: () => ReadonlyArray<OutgoingMessage>,
    private readonly clock: OutboxClock,
    private readonly bucket: MessageBucket = DEFAULT_MESSAGE_BUCKET,
  ) {
    this.tokens = bucket.burst;
    this.refilledAt = clock.now();
  }

  /**
   * A new connection: nothing is sent on it yet and its history has not caught up. The bucket
   * carries on as it was: the server hands a socket reopened under the same name what the last
   * one had used, so a reconnect is no fresh burst.
   */
  reset(): void {
    this.synced = false;
    this.sent.clear();
    this.cancel();
  }

  /** History caught up: sends the pending messages this connection has not sent. */
  flush(): void {
    this.synced = true;
    this.pump();
  }

  /** A message was added to the pending ones: sends it when its turn comes. */
  send(): void {
    this.pump();
  }

  /** The user retried a message that was not stored: it goes out again. */
  resend(clientId: string): void {
    this.sent.delete(clientId);
    this.refusals.delete(clientId);
    this.pump();
  }

  /** Another frame that counts against the message bucket (a clear, a rename) was sent. */
  spend(): void {
    this.refill();
    this.tokens -= 1;
  }

  /**
   * The server refused a message as rate limited: its bucket is empty. The message waits for the
   * refill, ahead of the later ones. Returns false when it was refused too often and is given up.
   */
  refused(clientId: string): boolean {
    this.sent.delete(clientId);
    const refusals = (this.refusals.get(clientId) ?? 0) + 1;
    this.refusals.set(clientId, refusals);
    this.tokens = Math.min(this.tokens, 0);
    this.refilledAt = this.clock.now();
    this.cancel();
    if (refusals >= RATE_LIMITED_TRIES) {
      this.refusals.delete(clientId);
      this.pump();
      return false;
    }
    this.pump();
    return true;
  }

  /** The server stored a message (or it went away): its refusals are forgotten. */
  settled(clientId: string): void {
    this.refusals.delete(clientId);
  }

  private refill() {
    const now = this.clock.now();
    const { burst, perSecond } = this.bucket;
    this.tokens = Math.min(burst, this.tokens + ((now - this.refilledAt) * perSecond) / 1000);
    this.refilledAt = now;
  }

  private cancel() {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Sends what the bucket allows, in order; schedules itself for the rest. */
  private pump(): void {
    if (!this.synced) return;
    this.refill();
    for (const { clientId, message } of this.pending()) {
      if (this.sent.has(clientId)) continue;
      if (this.tokens < 1 + SLACK_TOKENS) {
        this.schedule();
        return;
      }
      if (!this.sendFrame({ type: FrameType.Message, body: message, client_id: clientId })) return;
      this.tokens -= 1;
      this.sent.add(clientId);
    }
  }

  private schedule() {
    if (this.timer !== null) return;
    const missing = 1 + SLACK_TOKENS - this.tokens;
    const due = Math.ceil((missing * 1000) / this.bucket.perSecond) + REFILL_MARGIN_MS;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.pump();
    }, due);
  }
}

/**
 * The user's typing as others see it: typing=true at most once per `TYPING_THROTTLE_MS` (leading
 * edge); typing=false when the input is emptied or the message sent, and when the user has not
 * edited for `TYPING_IDLE_MS` with text still in the box; typing=false only while others may
 * still see the user typing (typing frames are rate limited).
 */
export class TypingSignal {
  private lastSentAt = Number.NEGATIVE_INFINITY;
  /** The last typing frame sent said `true`. */
  private shown = false;
  private idle: TimerId | null = null;

  constructor(
    private readonly sendFrame: SendFrame,
    private readonly clock: OutboxClock,
  ) {}

  /** A new connection: nobody there sees this user typing. */
  reset(): void {
    this.shown = false;
    this.cancelIdle();
  }

  /** The message input changed. */
  edited(empty: boolean): void {
    if (empty) {
      this.stopped();
      return;
    }
    this.cancelIdle();
    this.idle = this.clock.setTimeout(() => {
      this.idle = null;
      this.stopped();
    }, TYPING_IDLE_MS);
    const now = this.clock.now();
    if (now - this.lastSentAt < TYPING_THROTTLE_MS) return;
    if (this.sendFrame({ type: FrameType.Typing, typing: true })) {
      this.lastSentAt = now;
      this.shown = true;
    }
  }

  /** The user stopped typing (cleared the input, sent the message, or paused). */
  stopped(): void {
    this.cancelIdle();
    if (this.shown && this.sendFrame({ type: FrameType.Typing, typing: false })) {
      this.shown = false;
    }
  }

  private cancelIdle() {
    if (this.idle !== null) this.clock.clearTimeout(this.idle);
    this.idle = null;
  }
}
