import { type ClientFrame, FrameType, TYPING_THROTTLE_MS } from '@taco/protocol';

/** Sends a frame on the current connection if it is open; says whether it did. */
export type SendFrame = (frame: ClientFrame) => boolean;

/**
 * Own messages going out on one connection. They wait until the connection's history has caught
 * up (so a message the server already stored before a drop is recognised, not sent twice), then
 * each goes out once per connection.
 */
export class Outbox {
  private synced = false;
  private readonly sent = new Set<string>();

  constructor(private readonly sendFrame: SendFrame) {}

  /** A new connection: nothing is sent on it yet, and its history has not caught up. */
  reset(): void {
    this.synced = false;
    this.sent.clear();
  }

  /** History caught up: sends the pending messages this connection has not sent. */
  flush(pending: ReadonlyArray<{ clientId: string; message: string }>): void {
    this.synced = true;
    for (const { clientId, message } of pending) {
      if (!this.sent.has(clientId)) this.send(clientId, message);
    }
  }

  /** Sends a message now if the connection is ready; otherwise it waits for `flush`. */
  send(clientId: string, body: string): void {
    if (!this.synced || !this.sendFrame({ type: FrameType.Message, body, client_id: clientId })) {
      return;
    }
    this.sent.add(clientId);
  }

  /** Sends a message again (the user retried it after the server did not store it). */
  resend(clientId: string, body: string): void {
    this.sent.delete(clientId);
    this.send(clientId, body);
  }
}

/**
 * The user's typing as others see it: typing=true at most once per `TYPING_THROTTLE_MS` (leading
 * edge), typing=false only while others may still see the user typing (typing frames are rate
 * limited).
 */
export class TypingSignal {
  private lastSentAt = Number.NEGATIVE_INFINITY;
  /** The last typing frame sent said `true`. */
  private shown = false;

  constructor(
    private readonly sendFrame: SendFrame,
    private readonly now: () => number,
  ) {}

  /** A new connection: nobody there sees this user typing. */
  reset(): void {
    this.shown = false;
  }

  /** The message input changed. */
  edited(empty: boolean): void {
    if (empty) {
      this.stopped();
      return;
    }
    const now = this.now();
    if (now - this.lastSentAt < TYPING_THROTTLE_MS) return;
    if (this.sendFrame({ type: FrameType.Typing, typing: true })) {
      this.lastSentAt = now;
      this.shown = true;
    }
  }

  /** The user stopped typing (cleared the input, or sent the message). */
  stopped(): void {
    if (this.shown && this.sendFrame({ type: FrameType.Typing, typing: false })) this.shown = false;
  }
}
