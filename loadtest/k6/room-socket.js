// One member's connection to its room: credentials over HTTP (with bounded, jittered backoff), the
// socket (with the room token, or a single-use ticket), history requests, sending, and reconnects
// as the contract's decideReconnect says. `Member` (member.js) adds what it receives and the
// exact accounting of it.
import http from 'k6/http';
import { clearTimeout, setTimeout } from 'k6/timers';
import { WebSocket } from 'k6/websockets';
import {
  ApiPath,
  CLIENT_ID_MAX_LENGTH,
  CloseCode,
  FrameType,
  decideReconnect,
} from './protocol.js';
import {
  BASE_URL,
  BODY_BYTES,
  MIN_SEND_GAP_MS,
  SOCKET_AUTH,
  TICKET_CALL,
  TIMING,
  WS_URL,
} from './config.js';
import { metrics } from './chat-metrics.js';
import { jittered, probeBody, sleep, userName } from './plan.js';

/** POST /api/room/:room_id (no room id in the metric tags). */
function credentialRequest(room, name) {
  return http.asyncRequest(
    'POST',
    `${BASE_URL}${ApiPath.roomCredentials(room)}`,
    JSON.stringify({ sender_id: name }),
    {
      headers: { 'Content-Type': 'application/json' },
      tags: { name: 'POST /api/room/:room_id' },
      timeout: '10s',
    },
  );
}

/** Fails setup() with a clear message when BASE_URL is not a ready Taco Chat. */
export function assertReady() {
  const res = http.get(`${BASE_URL}/api/health/ready`, { tags: { name: 'GET /api/health/ready' } });
  if (res.status !== 200) {
    throw new Error(`${BASE_URL}/api/health/ready answered ${res.status}: is BASE_URL right?`);
  }
}

/**
 * The socket side of one member. Subclasses handle `onFrame(data)` (every frame) and
 * `loadRoom(ws)` (called once the socket is open; it sets `historyLoaded` and calls
 * `checkJoined()`).
 */
export class RoomSocket {
  constructor(room, name, { deadline = Infinity } = {}) {
    this.room = room;
    this.name = userName(name);
    /** No reconnect is started after this time (ms). */
    this.deadline = deadline;
    this.token = null;
    this.ws = null;
    this.open = false;
    this.joined = false;
    this.joinedOnce = false;
    this.historyLoaded = false;
    /** We closed the socket on purpose. */
    this.closing = false;
    /** Gave up: no socket and no reconnect coming. */
    this.gone = false;
    this.roster = new Set();
    /** Own messages sent and not yet echoed, refused or fetched: client_id → send time. */
    this.pending = new Map();
    this.sentCount = 0;
    this.lastSentAt = 0;
    this.historyWaiter = null;
    this.waiters = [];
    this.heartbeatSentAt = 0;
    this.reconnectAttempts = 0;
    this.reconnectsTotal = 0;
    this.reconnectTimer = null;
    this.socketOpenedAt = 0;
  }

  // --- waiting -------------------------------------------------------------------------------

  /** Resolves true as soon as `condition()` holds (checked after every event), false at timeout. */
  waitUntil(condition, timeoutMs) {
    if (condition()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { condition, resolve: null };
      const timer = setTimeout(
        () => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(condition());
        },
        Math.max(0, timeoutMs),
      );
      waiter.resolve = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(waiter);
    });
  }

  wake() {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.condition());
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve();
  }

  // --- joining -------------------------------------------------------------------------------

  /** Credentials (bounded retries with backoff and jitter), or null. */
  async credentials() {
    for (let attempt = 1; attempt <= TIMING.credentialAttempts; attempt += 1) {
      let res;
      try {
        res = await credentialRequest(this.room, this.name);
      } catch (error) {
        res = { status: 0, error: String(error), headers: {} };
      }
      if (res.status === 200) {
        let token = null;
        try {
          token = res.json('token');
        } catch {
          // Not JSON: counted as a failure below.
        }
        if (typeof token === 'string') return token;
      }
      metrics.credentialFailures.add(1, { status: String(res.status) });
      if (res.status === 400) {
        console.error(`credentials for ${this.name} in ${this.room}: 400 ${res.body}`);
        return null;
      }
      if (attempt === TIMING.credentialAttempts) break;
      const retryAfter = Number(res.headers && res.headers['Retry-After']);
      const delay =
        res.status === 429 && retryAfter > 0
          ? retryAfter * 1000 * (1 + Math.random() * 0.2)
          : jittered(
              Math.min(
                TIMING.credentialBackoffMaxMs,
                TIMING.credentialBackoffMs * 2 ** (attempt - 1),
              ),
            );
      await sleep(delay);
    }
    return null;
  }

  /** Joins the room; true once the room is loaded, false if that did not happen in time. */
  async join(timeoutMs = TIMING.joinTimeoutMs) {
    const started = Date.now();
    this.token = await this.credentials();
    if (this.token === null) {
      this.gone = true;
      return false;
    }
    this.openSocket();
    const ok = await this.waitUntil(
      () => this.joined || this.gone,
      timeoutMs - (Date.now() - started),
    );
    return ok && this.joined;
  }

  openSocket() {
    if (SOCKET_AUTH === 'ticket') void this.openWithTicket();
    else this.openAt(ApiPath.roomSocket(this.room, this.token));
  }

  /**
   * Asks for a single-use ticket, then opens the socket with it. A ticket refused with 401 counts
   * as a 4401 close (new credentials follow); any other failure as a socket that never opened.
   */
  async openWithTicket() {
    let res;
    try {
      res = await http.asyncRequest('POST', `${BASE_URL}${ApiPath.roomTicket(this.room)}`, null, {
        headers: { Authorization: `Bearer ${this.token}` },
        tags: { name: TICKET_CALL },
        timeout: '10s',
      });
    } catch (error) {
      res = { status: 0, error: String(error) };
    }
    if (this.closing) return;
    let ticket = null;
    if (res.status === 201) {
      try {
        ticket = res.json('ticket');
      } catch {
        // Not JSON: a failed call, below.
      }
    }
    if (typeof ticket === 'string') {
      this.openAt(ApiPath.roomSocketWithTicket(this.room, ticket));
      return;
    }
    metrics.ticketFailures.add(1, { status: String(res.status) });
    this.onClose(res.status === 401 ? CloseCode.Unauthorized : undefined);
    this.wake();
  }

  openAt(path) {
    const ws = new WebSocket(`${WS_URL}${path}`, null, {
      tags: { name: 'WS /api/room/:room_id/ws' },
    });
    this.ws = ws;
    this.open = false;
    this.joined = false;
    this.historyLoaded = false;
    this.roster = new Set();
    this.socketOpenedAt = Date.now();
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.open = true;
      void this.loadRoom(ws);
    };
    ws.onmessage = (event) => {
      if (ws !== this.ws) return;
      this.onFrame(event.data);
      this.wake();
    };
    // k6 reports every close with a code other than 1000 as an error event too; onclose counts.
    ws.onerror = () => {};
    ws.onclose = (event) => {
      if (ws !== this.ws) return;
      this.onClose(event.code);
      this.wake();
    };
  }

  checkJoined() {
    if (this.joined || !this.historyLoaded || !this.roster.has(this.name)) return;
    this.joined = true;
    this.joinedOnce = true;
    this.reconnectAttempts = 0;
    metrics.connectLatency.add(Date.now() - this.socketOpenedAt);
    this.wake();
  }

  onHistory(frame) {
    const waiter = this.historyWaiter;
    this.historyWaiter = null;
    if (waiter) waiter(frame);
  }

  /** One history request at a time; resolves with the reply, or null (error, close, timeout). */
  requestHistory(query) {
    if (!this.open || this.historyWaiter !== null) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.historyWaiter === waiter) this.historyWaiter = null;
        resolve(null);
      }, TIMING.replyTimeoutMs);
      const waiter = (frame) => {
        clearTimeout(timer);
        resolve(frame);
      };
      this.historyWaiter = waiter;
      this.ws.send(JSON.stringify({ type: FrameType.History, ...query }));
    });
  }

  // --- sending -------------------------------------------------------------------------------

  /**
   * Sends one message (the last one of this member when `last`), never sooner than the api's
   * refill interval after the previous one, so catching up after a stall never bursts; false
   * when not in the room.
   */
  async send(last = false) {
    const wait = this.lastSentAt + MIN_SEND_GAP_MS - Date.now();
    if (wait > 0) await sleep(wait);
    if (!this.joined) return false;
    this.lastSentAt = Date.now();
    this.sentCount += 1;
    const clientId = `${this.name}-${this.sentCount}`;
    if (clientId.length > CLIENT_ID_MAX_LENGTH) throw new Error(`client_id ${clientId} too long`);
    this.pending.set(clientId, Date.now());
    this.ws.send(
      JSON.stringify({
        type: FrameType.Message,
        body: probeBody(clientId, BODY_BYTES, last),
        client_id: clientId,
      }),
    );
    metrics.sent.add(1);
    return true;
  }

  typing(on) {
    if (this.joined) this.ws.send(JSON.stringify({ type: FrameType.Typing, typing: on }));
  }

  /** Sends a heartbeat (frame 6); one still unanswered when the next is due counts as missed. */
  heartbeat() {
    if (!this.joined) return;
    if (this.heartbeatSentAt > 0) metrics.heartbeatsMissed.add(1);
    this.heartbeatSentAt = Date.now();
    this.ws.send(JSON.stringify({ type: FrameType.Heartbeat }));
  }

  // --- closing and reconnecting ------------------------------------------------------------------

  onClose(code) {
    this.open = false;
    this.joined = false;
    this.heartbeatSentAt = 0;
    if (this.historyWaiter !== null) this.onHistory(null);
    if (this.closing) return;
    metrics.unexpectedCloses.add(1, { code: String(code === undefined ? 'none' : code) });
    // A member that never had a window cannot account for anything: it simply failed to join.
    const decision = decideReconnect(code, this.reconnectAttempts, Math.random);
    if (
      decision.action === 'stop' ||
      this.reconnectsTotal >= TIMING.maxReconnects ||
      Date.now() >= this.deadline
    ) {
      this.gone = true;
      return;
    }
    let delay;
    if (decision.action === 'reauthenticate') {
      this.token = null;
      this.reconnectAttempts += 1;
      delay = jittered(TIMING.credentialBackoffMs);
    } else {
      this.reconnectAttempts = decision.attempt;
      delay = decision.delayMs;
    }
    this.reconnectsTotal += 1;
    metrics.reconnects.add(1);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.reopen();
    }, delay);
  }

  async reopen() {
    if (this.closing) return;
    if (this.token === null) this.token = await this.credentials();
    if (this.closing) return;
    if (this.token === null) {
      this.gone = true;
      this.wake();
      return;
    }
    this.openSocket();
  }

  /** Closes the socket on purpose (1000); no reconnect follows. */
  close() {
    this.closing = true;
    if (this.reconnectTimer !== null) {
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = null;
    }
    if (this.ws !== null && this.open) this.ws.close();
    this.open = false;
    this.joined = false;
  }
}
