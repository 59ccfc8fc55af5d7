import { type Writable } from 'node:stream';

/**
 * What a socket may hold back in one turn before it is sent anyway. Held bytes count in the
 * socket's `bufferedAmount`, so this keeps a burst to a healthy reader from looking like the
 * backlog of a slow one (the 1 MiB limit).
 */
const MAX_HELD_BYTES = 64 * 1024;

/**
 * Holds sockets corked for the rest of the current turn of the event loop: every frame written to
 * one socket meanwhile leaves in a single system call when the turn ends (at the next check
 * phase), instead of one call per frame. When Redis hands a replica a burst of a room's events in
 * one read, each member gets the burst in one write. Nothing waits longer than the current turn.
 */
export class WriteTurn {
  private held: Writable[] = [];
  private readonly release = () => {
    const held = this.held;
    this.held = [];
    for (const stream of held) stream.uncork();
  };

  /**
   * Corks `stream` until the end of this turn, once per turn; sends what it holds as soon as
   * that reaches `MAX_HELD_BYTES`.
   */
  hold(stream: Writable): void {
    if (stream.writableCorked > 0) {
      if (stream.writableLength >= MAX_HELD_BYTES) {
        stream.uncork();
        stream.cork();
      }
      return;
    }
    if (this.held.length === 0) setImmediate(this.release);
    stream.cork();
    this.held.push(stream);
  }
}
