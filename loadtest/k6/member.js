// `Member`: one chat participant that joins a room, sends, receives and accounts exactly for what
// it should have received; `checkSession` records the usual checks of a finished one.
import { check } from 'k6';
import { ErrorCode, FrameType, HISTORY_COUNT_MAX, HISTORY_REQUEST_COUNT } from './protocol.js';
import { TIMING } from './config.js';
import { metrics } from './chat-metrics.js';
import { parseProbe } from './plan.js';
import { RoomSocket } from './room-socket.js';

/** Error codes that answer a message frame. */
const MESSAGE_ERRORS = new Set([
  ErrorCode.RateLimited,
  ErrorCode.Unavailable,
  ErrorCode.EmptyMessage,
  ErrorCode.TooLong,
  ErrorCode.BadFrame,
]);

/**
 * One member of one room: its connection (RoomSocket) and exact accounting of what it should have
 * received.
 *
 * Accounting. `seq` is per room, strictly increasing and gap-free (one INCR per stored message),
 * and a message is stored and published in one step. A member's window is (base, end]: `base` is
 * the last seq of the history reply it asks for right after joining (the server answers it only
 * once the socket is subscribed, so every message stored after that read is delivered live), and
 * `end` is the last seq of a history read it makes when its session is over (after its own
 * messages came back). Every seq in the window is an expected delivery: whoever sent it, and
 * whoever joined or left meanwhile, because all of that happened while this member was in the
 * room. `lost` = seqs in the window neither delivered live nor recovered from history after a
 * reconnect, plus own messages the server neither echoed, refused (error frame) nor stored.
 * Messages stored after the end read are not expected of this member. So a late join or an early
 * leave never counts as loss, and nothing is counted twice.
 *
 * Seqs count within the room's `epoch`, which the member compares with every message and history
 * reply, never `seq` alone. When the epoch changes (the room's sequence started again), the window
 * of the old epoch closes where the member last saw it, its gaps are counted as lost, and a new
 * window opens at 0 in the new epoch.
 */
export class Member extends RoomSocket {
  constructor(room, name, options) {
    super(room, name, options);
    /** Senders whose last message (`l: 1`) arrived. */
    this.lastFrom = new Set();
    /** The epoch `base` and every seq below belong to; null until the first history reply. */
    this.epoch = null;
    /** Start of the window (exclusive); null until the first join's history reply. */
    this.base = null;
    /** Windows of earlier epochs, closed when the epoch changed: their length and their gaps. */
    this.closedWindows = 0;
    this.closedMissing = 0;
    this.maxSeq = 0;
    /** Seqs delivered live on any socket, and seqs fetched after a reconnect. */
    this.live = new Set();
    this.fetched = new Set();
    this.ownSeqs = new Set();
    this.refused = 0;
    /** Message errors that named no client_id (the api leaves it out): refusals of someone. */
    this.unattributedErrors = 0;
  }

  /**
   * The join read: on the first join the last messages (its last seq starts the window); after a
   * reconnect, everything after the last seq this member has (in pages), which it missed while
   * away, so a reconnect is recovery, not loss.
   */
  async loadRoom(ws) {
    const first = this.base === null;
    let after = first ? undefined : this.maxSeq;
    for (let page = 0; page < 4; page += 1) {
      const query =
        after === undefined
          ? { count: HISTORY_REQUEST_COUNT }
          : { count: HISTORY_COUNT_MAX, after, epoch: this.epoch };
      const reply = await this.requestHistory(query);
      if (ws !== this.ws) return;
      if (reply === null) {
        // No history. First join: the window cannot be placed, so this member gives up. After a
        // reconnect: carry on; what it missed stays missing and counts as lost at the end.
        if (first) {
          this.gone = true;
          this.close();
          return;
        }
        break;
      }
      const messages = reply.messages;
      if (first) {
        this.epoch = reply.epoch;
        this.base = messages.length > 0 ? messages[messages.length - 1].seq : 0;
        this.maxSeq = Math.max(this.maxSeq, this.base);
        break;
      }
      // Another epoch: the room started again while this member was away. Its messages before
      // this page (if the page does not start at 1) are gone, and count as lost.
      if (reply.epoch !== this.epoch) this.restartWindow(reply.epoch);
      for (const message of messages) this.onFetched(message);
      if (messages.length < HISTORY_COUNT_MAX) break;
      after = messages[messages.length - 1].seq;
    }
    this.historyLoaded = true;
    this.checkJoined();
  }

  // --- frames --------------------------------------------------------------------------------

  onFrame(data) {
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      metrics.errorFrames.add(1, { code: 'not_json' });
      return;
    }
    switch (frame.type) {
      case FrameType.Message:
        if (Array.isArray(frame.messages)) this.onHistory(frame);
        else this.onMessage(frame);
        break;
      case FrameType.Presence:
        if (frame.connecting) this.roster.add(frame.sender);
        else this.roster.delete(frame.sender);
        this.checkJoined();
        break;
      case FrameType.Heartbeat:
        if (this.heartbeatSentAt > 0) {
          metrics.heartbeatRtt.add(Date.now() - this.heartbeatSentAt);
          this.heartbeatSentAt = 0;
        }
        break;
      case FrameType.Error:
        this.onError(frame);
        break;
      default:
        break;
    }
  }

  onMessage(frame) {
    if (this.epoch !== null && frame.epoch !== this.epoch) this.restartWindow(frame.epoch);
    const seq = frame.seq;
    if (this.live.has(seq)) {
      metrics.duplicated.add(1);
      return;
    }
    this.live.add(seq);
    if (seq > this.maxSeq) this.maxSeq = seq;
    const own = frame.sender === this.name;
    metrics.received.add(1, { from: own ? 'self' : 'others' });
    const probe = parseProbe(frame.body);
    if (probe !== null) {
      metrics.deliveryLatency.add(Date.now() - probe.t);
      if (probe.l === 1) this.lastFrom.add(frame.sender);
    }
    if (own) {
      this.ownSeqs.add(seq);
      if (frame.client_id !== undefined) this.pending.delete(frame.client_id);
    }
  }

  /** A message fetched after a reconnect (history `after`). */
  onFetched(message) {
    const seq = message.seq;
    if (seq > this.maxSeq) this.maxSeq = seq;
    if (this.live.has(seq) || this.fetched.has(seq)) return;
    this.fetched.add(seq);
    metrics.recovered.add(1);
    const probe = parseProbe(message.body);
    if (probe !== null && probe.l === 1) this.lastFrom.add(message.sender);
    if (message.sender === this.name) {
      this.ownSeqs.add(seq);
      if (probe !== null) this.pending.delete(probe.c);
    }
  }

  /**
   * The room's sequence started again (a new epoch): the old window closes at the last seq seen
   * (its gaps are lost), and a new one opens at 0, since this member was in the room throughout.
   */
  restartWindow(epoch) {
    if (this.base !== null) {
      this.closedWindows += this.maxSeq - this.base;
      this.closedMissing += this.missingUpTo(this.maxSeq);
    }
    metrics.epochChanges.add(1);
    console.warn(`${this.name} in ${this.room}: the room's sequence started again (new epoch)`);
    this.epoch = epoch;
    this.base = 0;
    this.maxSeq = 0;
    this.live = new Set();
    this.fetched = new Set();
    this.ownSeqs = new Set();
  }

  onError(frame) {
    const code = typeof frame.code === 'string' ? frame.code : 'unknown';
    metrics.errorFrames.add(1, { code });
    if (code === ErrorCode.RateLimited) {
      console.error(
        `${this.name} in ${this.room}: rate_limited (${frame.message}). The script stays ` +
          'within the default per-connection limits; see loadtest/README.md.',
      );
    }
    if (frame.client_id !== undefined && this.pending.delete(frame.client_id)) {
      this.refused += 1;
    } else if (this.historyWaiter !== null) {
      // An error without a client_id while a history request is out answers that request.
      this.onHistory(null);
    } else if (MESSAGE_ERRORS.has(code) && this.pending.size > 0) {
      // It refused one of the pending messages, which one it does not say; finish() counts it.
      this.unattributedErrors += 1;
    }
  }

  // --- the end -------------------------------------------------------------------------------

  /** Seqs in (base, end] neither delivered live nor fetched. */
  missingUpTo(end) {
    let missing = 0;
    for (let seq = this.base + 1; seq <= end; seq += 1) {
      if (!this.live.has(seq) && !this.fetched.has(seq)) missing += 1;
    }
    return missing;
  }

  /**
   * Ends the session: waits (bounded) for its own messages to come back, reads the room's last
   * seq, waits (bounded) for every message up to it, records what is missing as lost, and
   * leaves. Call it once every sender this member waits for is done.
   */
  async finish() {
    const result = {
      joined: this.joinedOnce,
      window: 0,
      missing: 0,
      silent: 0,
      lost: 0,
      unechoed: 0,
      fromOthers: 0,
      othersInWindow: 0,
    };
    if (!this.joinedOnce || this.base === null) {
      this.close();
      return result;
    }
    await this.waitUntil(
      () => this.pending.size <= this.unattributedErrors || this.gone,
      TIMING.drainMs,
    );
    // Mid-reconnect: give it the time a reconnect takes to come back.
    await this.waitUntil(() => this.joined || this.gone, TIMING.drainMs);
    let end = null;
    if (this.joined) {
      const reply = await this.requestHistory({ count: 1 });
      if (reply !== null) {
        if (reply.epoch !== this.epoch) this.restartWindow(reply.epoch);
        end = reply.messages.length > 0 ? reply.messages[reply.messages.length - 1].seq : 0;
      }
    }
    if (end === null) {
      // The end of the window is unknown: count the gaps below the last seq seen.
      console.warn(`${this.name} in ${this.room}: no end read; counting gaps only`);
      end = this.maxSeq;
    }
    end = Math.max(end, this.base);
    await this.waitUntil(() => this.missingUpTo(end) === 0, TIMING.settleMs);
    result.window = this.closedWindows + end - this.base;
    result.missing = this.closedMissing + this.missingUpTo(end);
    result.unechoed = Math.max(0, this.pending.size - this.unattributedErrors);
    // Own messages neither echoed nor refused: stored ones are already among the missing seqs
    // (their echo never came); the rest were dropped without a word. History tells them apart;
    // refusals that named no client_id account for as many of the rest.
    if (this.pending.size > 0) {
      let silent = this.pending.size - this.unattributedErrors;
      if (this.joined) {
        const reply = await this.requestHistory({
          count: HISTORY_COUNT_MAX,
          after: Math.max(this.base, end - HISTORY_COUNT_MAX),
          epoch: this.epoch,
        });
        for (const message of reply === null ? [] : reply.messages) {
          const probe = message.sender === this.name ? parseProbe(message.body) : null;
          if (probe !== null && this.pending.has(probe.c)) silent -= 1;
        }
      }
      result.silent = Math.max(0, silent);
    }
    result.lost = result.missing + result.silent;
    for (let seq = this.base + 1; seq <= end; seq += 1) {
      if (this.ownSeqs.has(seq)) continue;
      result.othersInWindow += 1;
      if (this.live.has(seq) || this.fetched.has(seq)) result.fromOthers += 1;
    }
    // Always add, so the metric is in the summary (as 0) even when nothing was lost.
    metrics.lost.add(result.lost);
    if (result.lost > 0) {
      console.error(
        `${this.name} in ${this.room}: lost ${result.lost} (window ${this.base}..${end}, ` +
          `missing ${result.missing}, own never echoed nor stored ${result.silent})`,
      );
    }
    this.close();
    await this.waitUntil(() => this.ws === null || this.ws.readyState === 3, 2000);
    return result;
  }
}

/** Records the usual checks of a finished member. */
export function checkSession(prefix, result) {
  check(result, {
    [`${prefix}: joined the room`]: (r) => r.joined,
    [`${prefix}: every own message came back`]: (r) => !r.joined || r.unechoed === 0,
    [`${prefix}: every message in the window arrived`]: (r) => !r.joined || r.missing === 0,
  });
  if (result.joined && result.othersInWindow > 0) {
    check(result, {
      [`${prefix}: received the other members' messages`]: (r) => r.fromOthers === r.othersInWindow,
    });
  }
}
