import { type Writable } from 'node:stream';

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

  /** Corks `stream` until the end of this turn, once per turn. */
  hold(stream: Writable): void {
    if (stream.writableCorked > 0) return;
    if (this.held.length === 0) setImmediate(this.release);
    stream.cork();
    this.held.push(stream);
  }
}
