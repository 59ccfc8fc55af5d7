/** How many `seq`s below the highest one it was sent a connection's window tells apart. */
export const DELIVERY_WINDOW = 1024;

const WORD_BITS = 32;

/**
 * The stored messages one connection was sent, so that it is sent none twice, whichever way a copy
 * comes: the room's fan-out, a gap fill from history, or its sender's acknowledgement (held back
 * until the message is durable, so it can come after later messages). An anti-replay window: the
 * highest `seq` sent in the connection's epoch, and which of the `DELIVERY_WINDOW` below it were
 * sent. A message in order costs two comparisons and a bit; nothing is kept per message.
 *
 * It does not put messages in order: a sender's acknowledgement, and a gap filled from history,
 * come after later messages by design, and go out when they come. What it cannot tell it lets
 * through: a message older than the window (an acknowledgement that waited behind more than
 * `DELIVERY_WINDOW` others), and one of another epoch, which starts the window again (the room's
 * sequence started again).
 */
export class DeliveryWindow {
  private epoch: string | undefined;
  /** The highest `seq` sent in `epoch`. */
  private top = 0;
  /** Bit `seq % DELIVERY_WINDOW` is set when that `seq`, one of the window's, was sent. */
  private sent: Uint32Array | undefined;

  /** True the first time a message is offered (send it); false for one that was sent already. */
  admit(epoch: string, seq: number): boolean {
    let sent = this.sent;
    if (sent === undefined || epoch !== this.epoch) {
      if (sent === undefined) sent = this.sent = new Uint32Array(DELIVERY_WINDOW / WORD_BITS);
      else sent.fill(0);
      this.epoch = epoch;
      this.top = seq;
      mark(sent, seq);
      return true;
    }
    if (seq > this.top) {
      // The window moves up: the bits of the seqs it leaves go to the ones it now covers.
      if (seq - this.top >= DELIVERY_WINDOW) sent.fill(0);
      else for (let skipped = this.top + 1; skipped < seq; skipped++) unmark(sent, skipped);
      this.top = seq;
      mark(sent, seq);
      return true;
    }
    if (this.top - seq >= DELIVERY_WINDOW) return true;
    if (isMarked(sent, seq)) return false;
    mark(sent, seq);
    return true;
  }
}

function mark(sent: Uint32Array, seq: number): void {
  const bit = seq % DELIVERY_WINDOW;
  sent[bit >>> 5] = (sent[bit >>> 5] ?? 0) | (1 << (bit & 31));
}

function unmark(sent: Uint32Array, seq: number): void {
  const bit = seq % DELIVERY_WINDOW;
  sent[bit >>> 5] = (sent[bit >>> 5] ?? 0) & ~(1 << (bit & 31));
}

function isMarked(sent: Uint32Array, seq: number): boolean {
  const bit = seq % DELIVERY_WINDOW;
  return ((sent[bit >>> 5] ?? 0) & (1 << (bit & 31))) !== 0;
}
