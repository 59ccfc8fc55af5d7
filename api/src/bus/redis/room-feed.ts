/** What to do with a message that came live (`RoomFeed.takeLive`). */
export type LiveTake = 'deliver' | 'drop' | 'late';

/**
 * What one replica's subscription to a room has delivered, so that after the subscription was
 * renewed (a reconnect, a failover, a slot move, or a subscription found gone) the messages it
 * missed can be delivered from history, and none twice: pub/sub is at most once, history is not.
 *
 * Stored messages are numbered by `(epoch, seq)`. The feed keeps `base`, the `seq` up to which
 * every message of `epoch` was delivered (or was already there when the replica subscribed, so
 * its members read it from history themselves), and the `seq`s delivered above a gap.
 */
export class RoomFeed {
  /** Messages above `base` delivered out of order (after a gap); empty in the usual flow. */
  private readonly above = new Set<number>();
  /** The highest `seq` delivered in `epoch` (`base` when nothing came out of order). */
  private top: number;
  /** When something last came through the subscription (`performance.now()`). */
  heardAt: number;
  /** A probe sent through the room's channel and not heard back yet: its token and send time. */
  probe: { token: string; sentAt: number } | null = null;

  constructor(
    /** The room's epoch when the replica subscribed; `null` when the room had no sequence yet. */
    private epoch: string | null,
    private base: number,
    now: number,
  ) {
    this.heardAt = now;
    this.top = base;
  }

  /** Where a gap fill resumes: history after this `seq`, in this epoch (`null`: from the start). */
  get resumePoint(): { epoch: string | null; after: number } {
    return { epoch: this.epoch, after: this.base };
  }

  /**
   * Moves the feed past messages no longer stored (trimmed, cleared, or of an earlier epoch): it
   * resumes after `seq` of `epoch`.
   */
  skipTo(epoch: string, seq: number): void {
    if (epoch !== this.epoch) this.restart(epoch);
    if (seq <= this.base) return;
    this.base = seq;
    this.top = Math.max(this.top, seq);
    for (const above of this.above) if (above <= seq) this.above.delete(above);
    while (this.above.delete(this.base + 1)) this.base += 1;
  }

  /**
   * Takes a message about to be delivered; false when it was delivered already (drop it). A new
   * epoch means the room's sequence started again: everything before it is forgotten.
   */
  take(epoch: string, seq: number): boolean {
    if (epoch !== this.epoch) this.restart(epoch);
    if (seq <= this.base || this.above.has(seq)) return false;
    if (seq > this.top) this.top = seq;
    if (seq !== this.base + 1) {
      this.above.add(seq);
      return true;
    }
    this.base = seq;
    while (this.above.delete(this.base + 1)) this.base += 1;
    return true;
  }

  /**
   * Takes a message that came through the subscription, as `take` does, except one that would
   * fill a gap below a message delivered already (`late`). Pub/sub keeps one connection's order
   * and a room's messages are published in `seq` order, so such a message came through another
   * connection: a subscription being replaced after a failover, whose master may have stored it
   * only for the cluster to discard it. History decides what fills the gap.
   */
  takeLive(epoch: string, seq: number): LiveTake {
    if (epoch === this.epoch && seq > this.base && seq < this.top && !this.above.has(seq)) {
      return 'late';
    }
    return this.take(epoch, seq) ? 'deliver' : 'drop';
  }

  /** A new epoch: the room's sequence started again, everything before it is forgotten. */
  private restart(epoch: string): void {
    this.epoch = epoch;
    this.base = 0;
    this.top = 0;
    this.above.clear();
  }
}

const MESSAGE_START = Buffer.from('{"type":1,');
const SEQ_KEY = Buffer.from('"seq":');
const EPOCH_KEY = Buffer.from(',"epoch":"');
const QUOTE = 0x22;

/**
 * The `(epoch, seq)` of a live message frame's JSON, or `null` for any other frame. A message
 * frame is written by `messageFrame` (and the append script) with `type` first and `seq` then
 * `epoch` after the body; a string value cannot hold `"seq":` unescaped, so the last one is the
 * key.
 */
export function messageNumber(payload: Buffer): { epoch: string; seq: number } | null {
  // Compared in place (no copies: this runs for every event a replica receives).
  const start = MESSAGE_START.length;
  if (payload.length < start || payload.compare(MESSAGE_START, 0, start, 0, start) !== 0) {
    return null;
  }
  const at = payload.lastIndexOf(SEQ_KEY);
  if (at === -1) return null;
  let end = at + SEQ_KEY.length;
  let seq = 0;
  for (let digit = payload[end]; digit !== undefined && digit >= 0x30 && digit <= 0x39;) {
    seq = seq * 10 + digit - 0x30;
    digit = payload[++end];
  }
  if (
    end === at + SEQ_KEY.length ||
    end + EPOCH_KEY.length > payload.length ||
    payload.compare(EPOCH_KEY, 0, EPOCH_KEY.length, end, end + EPOCH_KEY.length) !== 0
  ) {
    return null;
  }
  const from = end + EPOCH_KEY.length;
  const to = payload.indexOf(QUOTE, from);
  if (to === -1) return null;
  return { epoch: payload.toString('utf8', from, to), seq };
}
