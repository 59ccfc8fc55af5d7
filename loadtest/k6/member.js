import { check } from 'k6';
import exec from 'k6/execution';
import { clearTimeout, setTimeout } from 'k6/timers';
import { WebSocket } from 'k6/websockets';
import {
  CloseCode,
  decideReconnect,
  ErrorCode,
  FrameType,
  HISTORY_COUNT_MAX,
  HISTORY_REQUEST_COUNT,
} from './protocol.js';
import { BODY_BYTES, credentials, jittered, metrics, MIN_SEND_GAP_MS } from './run.js';
import { parseJson, parseProbe, probeBody, sleep, socketPath, TIMING, WS_URL } from './run.js';

const { RateLimited, Unavailable, EmptyMessage, TooLong, BadFrame } = ErrorCode;
/** Error codes that answer a message frame. */
const MESSAGE_ERRORS = new Set([RateLimited, Unavailable, EmptyMessage, TooLong, BadFrame]);
/** History pages (of HISTORY_COUNT_MAX) a resume reads at most. */
const RESUME_PAGES = 4;

/** The longest `finish()` takes: two drains, two history reads, the settle wait, the close. */
export const FINISH_MAX_MS = 2 * (TIMING.drainMs + TIMING.replyTimeoutMs) + TIMING.settleMs + 2000;

const lastSeq = (messages) => (messages.length > 0 ? messages[messages.length - 1].seq : 0);

/**
 * A chat participant that behaves as the web client does and accounts exactly for what it should
 * have received. `state`: connecting (credentials, ticket, socket) → loading (join read, own
 * presence) → joined → away after a close it did not ask for (decideReconnect) → connecting …;
 * gone once it closed or gave up. Its window (base, end] per epoch: README, "Loss, exactly".
 */
export class Member {
  /** `deadline` (ms): no reconnect is started after it. */
  constructor(room, name, { deadline = Infinity } = {}) {
    this.room = room;
    this.name = name;
    this.deadline = deadline;
    this.state = 'connecting';
    this.token = null;
    this.ws = null;
    this.joinedOnce = false;
    this.reconnectAttempts = 0;
    this.reconnectsTotal = 0;
    this.reconnectTimer = null;
    this.waiters = new Set();
    /** The client_id of the history request out (one at a time); `historyReply` its reply. */
    this.historyId = null;
    this.heartbeatSentAt = 0;
    this.roster = new Set();
    /** Senders whose last message (`l: 1`) arrived. */
    this.lastFrom = new Set();
    this.clientIds = 0;
    this.lastSentAt = 0;
    /** client_ids of own messages not yet echoed, refused or fetched. */
    this.pending = new Set();
    /** Message errors that named no client_id: refusals of one of the pending messages. */
    this.unattributedErrors = 0;
    /** The window's epoch and base (null until the first join read), and the last seq seen. */
    this.epoch = null;
    this.base = null;
    this.maxSeq = 0;
    /** Gaps of the windows of earlier epochs, closed when the epoch changed. */
    this.closedMissing = 0;
    /** Seqs of the epoch delivered live, or fetched only (false), and own seqs. */
    this.seqs = new Map();
    this.ownSeqs = new Set();
  }

  get gone() {
    return this.state === 'gone';
  }

  get open() {
    return this.state === 'loading' || this.state === 'joined';
  }

  /** Resolves true as soon as `condition()` holds (checked after every event), false at timeout. */
  waitUntil(condition, timeoutMs) {
    if (condition() || timeoutMs <= 0) return Promise.resolve(condition());
    return new Promise((resolve) => {
      const settle = (ok) => {
        clearTimeout(timer);
        this.waiters.delete(poll);
        resolve(ok);
      };
      const poll = () => condition() && settle(true);
      const timer = setTimeout(() => settle(condition()), timeoutMs);
      this.waiters.add(poll);
    });
  }

  wake() {
    for (const poll of this.waiters) poll();
  }

  /** True once the room is loaded, false if that did not happen in time. */
  async join(timeoutMs = TIMING.joinTimeoutMs) {
    const deadline = Date.now() + timeoutMs;
    await this.connect();
    await this.waitUntil(() => this.state === 'joined' || this.gone, deadline - Date.now());
    return this.state === 'joined';
  }

  /** Credentials if it has none (none to be had: gone), then the socket (a 401 ticket: 4401). */
  async connect() {
    this.reconnectTimer = null;
    if (this.gone) return;
    this.state = 'connecting';
    if (this.token === null) this.token = await credentials(this.room, this.name);
    if (this.token === null) this.state = 'gone';
    if (this.gone) return this.wake();
    const { path, status } = await socketPath(this.room, this.token);
    if (this.gone) return;
    if (path === null) {
      this.onClose(status === 401 ? CloseCode.Unauthorized : undefined);
      return this.wake();
    }
    const ws = new WebSocket(WS_URL + path, null, { tags: { name: 'WS /api/room/:room_id/ws' } });
    this.ws = ws;
    this.roster = new Set();
    this.openedAt = Date.now();
    // Events of a socket this member no longer uses are ignored; every other one wakes waiters.
    const current = (handle) => (event) => {
      if (ws !== this.ws) return;
      handle(event);
      this.wake();
    };
    ws.onopen = current(() => {
      if (this.gone) return ws.close();
      this.state = 'loading';
      return this.loadRoom(ws);
    });
    ws.onmessage = current((event) => this.onFrame(event.data));
    // k6 reports every close with a code other than 1000 as an error event too; onclose counts.
    ws.onerror = () => {};
    ws.onclose = current((event) => this.onClose(event.code));
  }

  /**
   * loading → joined: the join read (first: the last messages, whose last seq is the base; after a
   * reconnect: pages after its last (epoch, seq), recovery, not loss), then its own presence.
   */
  async loadRoom(ws) {
    const first = this.base === null;
    let after = this.maxSeq;
    for (let page = 0; page < RESUME_PAGES; page += 1) {
      const resume = { count: HISTORY_COUNT_MAX, after, epoch: this.epoch };
      const reply = await this.requestHistory(first ? { count: HISTORY_REQUEST_COUNT } : resume);
      if (ws !== this.ws) return undefined;
      // No history. First join: the window cannot be placed, so this member gives up. After a
      // reconnect: carry on; what it missed stays missing and counts as lost at the end.
      if (reply === null && first) return this.close();
      if (reply === null) break;
      after = lastSeq(reply.messages);
      if (first) {
        [this.epoch, this.base, this.maxSeq] = [reply.epoch, after, Math.max(this.maxSeq, after)];
        break;
      }
      // The room started again while it was away: what it missed before this page is lost.
      if (reply.epoch !== this.epoch) this.restartWindow(reply.epoch);
      for (const message of reply.messages) this.take(message, false);
      if (reply.messages.length < HISTORY_COUNT_MAX) break;
    }
    const settled = () => ws !== this.ws || this.state !== 'loading' || this.roster.has(this.name);
    await this.waitUntil(settled, TIMING.joinTimeoutMs);
    if (ws !== this.ws || this.state !== 'loading' || !this.roster.has(this.name)) return undefined;
    this.state = 'joined';
    this.joinedOnce = true;
    this.reconnectAttempts = 0;
    metrics.connectLatency.add(Date.now() - this.openedAt);
    return this.wake();
  }

  /** One history request at a time (its client_id tells its error frame): the reply, or null. */
  async requestHistory(query) {
    if (!this.open || this.historyId !== null) return null;
    const id = `${this.name}-${(this.clientIds += 1)}`;
    [this.historyId, this.historyReply] = [id, null];
    this.ws.send(JSON.stringify({ type: FrameType.History, ...query, client_id: id }));
    const answered = () => this.historyId !== id || this.historyReply !== null;
    await this.waitUntil(answered, TIMING.replyTimeoutMs);
    if (this.historyId === id) this.historyId = null;
    return this.historyReply;
  }

  /** After a close it did not ask for: away (a reconnect as decideReconnect says) or gone. */
  onClose(code) {
    this.historyId = null;
    this.heartbeatSentAt = 0;
    if (this.gone) return;
    metrics.unexpectedCloses.add(1, { code: String(code === undefined ? 'none' : code) });
    const decision = decideReconnect(code, this.reconnectAttempts, Math.random);
    const stop = decision.action === 'stop' || this.reconnectsTotal >= TIMING.maxReconnects;
    this.state = stop || Date.now() >= this.deadline ? 'gone' : 'away';
    if (this.gone) return;
    const reauthenticate = decision.action === 'reauthenticate';
    if (reauthenticate) this.token = null;
    this.reconnectAttempts = reauthenticate ? this.reconnectAttempts + 1 : decision.attempt;
    this.reconnectsTotal += 1;
    metrics.reconnects.add(1);
    const delay = reauthenticate ? jittered(TIMING.credentialBackoffMs) : decision.delayMs;
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  /** Closes on purpose (1000): gone. */
  close() {
    if (this.open) this.ws.close();
    this.state = 'gone';
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.wake();
  }

  /** One message, never within the api's refill interval of the last (no burst after a stall). */
  async send(last = false) {
    await sleep(this.lastSentAt + MIN_SEND_GAP_MS - Date.now());
    if (this.state !== 'joined') return;
    this.lastSentAt = Date.now();
    const clientId = `${this.name}-${(this.clientIds += 1)}`;
    this.pending.add(clientId);
    const body = probeBody(clientId, BODY_BYTES, last);
    this.ws.send(JSON.stringify({ type: FrameType.Message, body, client_id: clientId }));
    metrics.sent.add(1);
  }

  typing(on) {
    if (this.state === 'joined')
      this.ws.send(JSON.stringify({ type: FrameType.Typing, typing: on }));
  }

  /** One still unanswered when the next is due counts as missed. */
  heartbeat() {
    if (this.state !== 'joined') return;
    if (this.heartbeatSentAt > 0) metrics.heartbeatsMissed.add(1);
    this.heartbeatSentAt = Date.now();
    this.ws.send(JSON.stringify({ type: FrameType.Heartbeat }));
  }

  onFrame(data) {
    const frame = parseJson(data);
    if (frame === undefined) return metrics.errorFrames.add(1, { code: 'not_json' });
    if (frame.type === FrameType.Message && Array.isArray(frame.messages)) {
      if (this.historyId !== null) this.historyReply = frame;
    } else if (frame.type === FrameType.Message) {
      if (this.epoch !== null && frame.epoch !== this.epoch) this.restartWindow(frame.epoch);
      this.take(frame, true);
    } else if (frame.type === FrameType.Presence) {
      this.roster[frame.connecting ? 'add' : 'delete'](frame.sender);
    } else if (frame.type === FrameType.Heartbeat && this.heartbeatSentAt > 0) {
      metrics.heartbeatRtt.add(Date.now() - this.heartbeatSentAt);
      this.heartbeatSentAt = 0;
    } else if (frame.type === FrameType.Error) {
      this.onError(frame);
    }
  }

  /** Counts a seq once, live (twice live: a duplicate) or fetched; settles an own one's client_id. */
  take(message, live) {
    const { seq, sender } = message;
    if (seq > this.maxSeq) this.maxSeq = seq;
    const had = this.seqs.get(seq);
    if (live && had === true) metrics.duplicated.add(1);
    if (had === true || (!live && had === false)) return;
    this.seqs.set(seq, live);
    const own = sender === this.name;
    if (live) metrics.received.add(1, { from: own ? 'self' : 'others' });
    else metrics.recovered.add(1);
    const probe = parseProbe(message.body);
    if (probe !== null && live) metrics.deliveryLatency.add(Date.now() - probe.t);
    if (probe !== null && probe.l === 1) this.lastFrom.add(sender);
    if (own) this.ownSeqs.add(seq);
    if (own) this.pending.delete(live ? message.client_id : probe === null ? undefined : probe.c);
  }

  /** A new epoch: the window closes at the last seq seen (gaps lost), a new one opens at 0. */
  restartWindow(epoch) {
    if (this.base !== null) this.closedMissing += this.missingUpTo(this.maxSeq);
    metrics.epochChanges.add(1);
    console.warn(`${this.name} in ${this.room}: the room's sequence started again (new epoch)`);
    [this.epoch, this.base, this.maxSeq] = [epoch, 0, 0];
    this.seqs = new Map();
    this.ownSeqs = new Set();
  }

  /** An error frame answers, by its client_id, the history request out or a pending message. */
  onError(frame) {
    const code = typeof frame.code === 'string' ? frame.code : 'unknown';
    metrics.errorFrames.add(1, { code });
    // The scripts stay within the default per-connection limits (loadtest/README.md).
    if (code === RateLimited) console.error(`${this.name} in ${this.room}: rate_limited`);
    if (frame.client_id !== undefined && frame.client_id === this.historyId) {
      this.historyId = null;
    } else if (!this.pending.delete(frame.client_id) && MESSAGE_ERRORS.has(code)) {
      // It refused one of the pending messages, which one it does not say; finish() counts it.
      if (this.pending.size > 0) this.unattributedErrors += 1;
    }
  }

  /** Seqs in (base, end] neither delivered live nor fetched. */
  missingUpTo(end) {
    let missing = 0;
    for (let seq = this.base + 1; seq <= end; seq += 1) if (!this.seqs.has(seq)) missing += 1;
    return missing;
  }

  /** Waits (bounded) for its own messages, reads the last seq, waits for all up to it, leaves. */
  async finish() {
    if (!this.joinedOnce) {
      this.close();
      return checkSession(false);
    }
    const unsettled = () => this.pending.size - this.unattributedErrors;
    await this.waitUntil(() => unsettled() <= 0 || this.gone, TIMING.drainMs);
    // Mid-reconnect: give it the time a reconnect takes to come back.
    await this.waitUntil(() => this.state === 'joined' || this.gone, TIMING.drainMs);
    const reply = this.state === 'joined' ? await this.requestHistory({ count: 1 }) : null;
    if (reply !== null && reply.epoch !== this.epoch) this.restartWindow(reply.epoch);
    // No end read: the end of the window is unknown; count the gaps below the last seq seen.
    if (reply === null) console.warn(`${this.name} in ${this.room}: no end read; gaps only`);
    const end = Math.max(reply === null ? this.maxSeq : lastSeq(reply.messages), this.base);
    await this.waitUntil(() => this.missingUpTo(end) === 0, TIMING.settleMs);
    const missing = this.closedMissing + this.missingUpTo(end);
    // Own messages neither echoed nor refused: stored ones are among the missing seqs, the rest
    // dropped without a word (history tells them apart), less refusals that named no client_id.
    let silent = unsettled();
    if (this.pending.size > 0 && this.state === 'joined') {
      const after = Math.max(this.base, end - HISTORY_COUNT_MAX);
      const query = { count: HISTORY_COUNT_MAX, after, epoch: this.epoch };
      const stored = await this.requestHistory(query);
      for (const message of stored === null ? [] : stored.messages) {
        const probe = message.sender === this.name ? parseProbe(message.body) : null;
        if (probe !== null && this.pending.has(probe.c)) silent -= 1;
      }
    }
    const lost = missing + Math.max(0, silent);
    // Own seqs are all delivered or fetched: every seq of the window still missing is another's.
    const own = [...this.ownSeqs].filter((seq) => seq > this.base && seq <= end).length;
    const othersMissing = end - this.base > own ? this.missingUpTo(end) : null;
    // Always add, so the metric is in the summary (as 0) even when nothing was lost.
    metrics.lost.add(lost);
    if (lost > 0) {
      console.error(
        `${this.name} in ${this.room}: lost ${lost} (window ${this.base}..${end}, missing ` +
          `${missing}, own never echoed nor stored ${lost - missing})`,
      );
    }
    const unechoed = Math.max(0, unsettled());
    this.close();
    await this.waitUntil(() => this.ws === null || this.ws.readyState === 3, 2000); // CLOSED
    return checkSession(true, unechoed, missing, othersMissing);
  }
}

/** A finished member's checks, by scenario (`othersMissing` null: no message was another's). */
function checkSession(joined, unechoed = 0, missing = 0, othersMissing = null) {
  const at = exec.scenario.name;
  const others = `${at}: received the other members' messages`;
  check(null, {
    [`${at}: joined the room`]: () => joined,
    [`${at}: every own message came back`]: () => unechoed === 0,
    [`${at}: every message in the window arrived`]: () => missing === 0,
    ...(othersMissing === null ? {} : { [others]: () => othersMissing === 0 }),
  });
}
