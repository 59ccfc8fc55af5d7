// What the k6 scripts share: the profile (smoke, load, stress) and its sizes, the common metrics
// and thresholds, the run plan helpers, the latency probe carried in message bodies, and `Member`,
// one chat participant that joins a room, sends, receives and accounts exactly for what it should
// have received.
//
// Nothing here that all VUs must agree on is computed in init code: k6 runs init code once per VU,
// so a run id or a room plan made there would differ between VUs. Those come from setup() (whose
// return value every VU gets) or from __ENV.
/* global __ENV, open */
import http from 'k6/http';
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import { clearTimeout, setTimeout } from 'k6/timers';
import { WebSocket } from 'k6/websockets';
import {
  ApiPath,
  CLIENT_ID_MAX_LENGTH,
  CloseCode,
  ErrorCode,
  FrameType,
  HISTORY_COUNT_MAX,
  HISTORY_REQUEST_COUNT,
  NAME_MIN_LENGTH,
  RATE_LIMITS,
  ROOM_NAME_MAX_LENGTH,
  USER_NAME_MAX_LENGTH,
  decideReconnect,
} from './protocol.js';

export const WORKLOADS = JSON.parse(open('../workloads/workloads.json'));
export const TIMING = WORKLOADS.k6.timing;
const BODY_BYTES = WORKLOADS.message.bodyBytes;

/**
 * The fastest a script lets one member send, sustained: 80 % of the api's default
 * MESSAGES_PER_SECOND, so a stalled and then hurried event loop (the load generator's or a
 * replica's) still finds tokens in the bucket.
 */
export const MAX_MEMBER_RATE = 0.8 * RATE_LIMITS.messagesPerSecond;
/** Two messages of one member never go out closer together than the api's refill interval. */
const MIN_SEND_GAP_MS = 1000 / RATE_LIMITS.messagesPerSecond;
/** Error codes that answer a message frame. */
const MESSAGE_ERRORS = new Set([
  ErrorCode.RateLimited,
  ErrorCode.Unavailable,
  ErrorCode.EmptyMessage,
  ErrorCode.TooLong,
  ErrorCode.BadFrame,
]);

/** `-e PROFILE=smoke|load|stress` (default load). */
export const PROFILE_NAME = __ENV.PROFILE || 'load';
const PROFILES = WORKLOADS.k6.profiles;
if (!Object.prototype.hasOwnProperty.call(PROFILES, PROFILE_NAME)) {
  throw new Error(
    `PROFILE must be one of ${Object.keys(PROFILES).join(', ')} (got "${PROFILE_NAME}")`,
  );
}
export const PROFILE = PROFILES[PROFILE_NAME];

/** http://host:port of nginx (or one replica); the socket URL is derived from it. */
export const BASE_URL = (__ENV.BASE_URL || 'http://localhost:8080').replace(/\/+$/, '');
export const WS_URL = BASE_URL.replace(/^http/, 'ws');

/**
 * How a socket authenticates: `token` (the room token in its URL) or `ticket` (a single-use
 * ticket from `POST /api/room/:room_id/ticket` for every socket, as the web client does, so a
 * proxy's log never holds the token; one more HTTP call and Redis round trip per connect).
 */
export const SOCKET_AUTH = __ENV.SOCKET_AUTH || 'token';
const TICKET_CALL = 'POST /api/room/:room_id/ticket';
if (SOCKET_AUTH !== 'token' && SOCKET_AUTH !== 'ticket') {
  throw new Error(`SOCKET_AUTH must be token or ticket (got "${SOCKET_AUTH}")`);
}

/** A number from `-e NAME=…`, or `fallback`; anything else stops the run with a clear message. */
export function envNumber(name, fallback, { min = 0, integer = false } = {}) {
  const text = __ENV[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`-e ${name} must be ${integer ? 'a whole number' : 'a number'} ≥ ${min}`);
  }
  return value;
}

/** Latency limits of the profile; `-e P95_MS` / `-e P99_MS` override the delivery ones. */
export const SLO = {
  ...PROFILE.slo,
  p95Ms: envNumber('P95_MS', PROFILE.slo.p95Ms, { min: 1 }),
  p99Ms: envNumber('P99_MS', PROFILE.slo.p99Ms, { min: 1 }),
};

/** Seconds in a k6 duration such as "90s", "2m" or "1m30s". */
export function durationSeconds(text) {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(String(text));
  if (!match || String(text) === '') throw new Error(`Not a duration: "${text}"`);
  return Number(match[1] || 0) * 3600 + Number(match[2] || 0) * 60 + Number(match[3] || 0);
}

// ---------------------------------------------------------------------------------------------
// Metrics: the same names in every script.

export const metrics = {
  /** Message frames sent. */
  sent: new Counter('chat_messages_sent'),
  /** Messages delivered live (each copy to each member counts once), tagged from:self|others. */
  received: new Counter('chat_messages_received'),
  /** Expected deliveries that never arrived by the end of the member's session (see Member). */
  lost: new Counter('chat_messages_lost'),
  /** The same seq delivered live twice to one member. */
  duplicated: new Counter('chat_messages_duplicated'),
  /** Messages missed while reconnecting and fetched with history `after` the last seq. */
  recovered: new Counter('chat_messages_recovered'),
  /**
   * Times a member saw its room's sequence start again (a new `epoch`: an embedded server
   * restarted, Redis lost the room's data): what it had not received of the old one counts as lost.
   */
  epochChanges: new Counter('chat_epoch_changes'),
  /** Sender's send → a member's receipt, from the send time in the body. */
  deliveryLatency: new Trend('chat_delivery_latency', true),
  /** Opening the socket → the room is loaded (own presence and the history reply arrived). */
  connectLatency: new Trend('chat_connect_latency', true),
  /** Error frames (type 7), tagged with their code. */
  errorFrames: new Counter('chat_error_frames'),
  /** Sockets closed by anyone but this script (or that never opened), tagged with the code. */
  unexpectedCloses: new Counter('chat_unexpected_closes'),
  /** Reconnects started after an unexpected close. */
  reconnects: new Counter('chat_reconnects'),
  /** Credential calls that did not answer 200, tagged with the status. */
  credentialFailures: new Counter('chat_credential_failures'),
  /** Ticket calls (`SOCKET_AUTH=ticket`) that did not answer 201, tagged with the status. */
  ticketFailures: new Counter('chat_ticket_failures'),
  /** Heartbeat (frame 6) round trip. */
  heartbeatRtt: new Trend('chat_heartbeat_rtt', true),
  /** Heartbeats with no reply by the time the next one was due. */
  heartbeatsMissed: new Counter('chat_heartbeats_missed'),
};

/** The thresholds every script has; a failed one makes k6 exit non-zero. */
export function commonThresholds(extra = {}) {
  return {
    chat_messages_lost: ['count==0'],
    chat_messages_received: ['count>0'],
    chat_messages_duplicated: ['count==0'],
    chat_delivery_latency: [`p(95)<${SLO.p95Ms}`, `p(99)<${SLO.p99Ms}`],
    chat_connect_latency: [`p(95)<${SLO.connectP95Ms}`, `p(99)<${SLO.connectP99Ms}`],
    chat_error_frames: ['count==0'],
    // Listed on its own so a rate-limited run says so by name in the summary.
    'chat_error_frames{code:rate_limited}': ['count==0'],
    chat_unexpected_closes: ['count==0'],
    chat_credential_failures: ['count==0'],
    chat_ticket_failures: ['count==0'],
    // With tickets, every socket opened with one (so the summary shows how many calls).
    ...(SOCKET_AUTH === 'ticket' ? { [`http_reqs{name:${TICKET_CALL}}`]: ['count>0'] } : {}),
    checks: ['rate>0.99'],
    ...extra,
  };
}

/** Options every script shares. */
export const COMMON_OPTIONS = {
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'],
  // Every system tag except `url`: socket URLs carry the room token, which must not land in
  // metrics outputs (and would give every socket its own time series).
  systemTags: [
    'proto',
    'subproto',
    'status',
    'method',
    'name',
    'group',
    'check',
    'error',
    'error_code',
    'tls_version',
    'scenario',
    'service',
    'expected_response',
  ],
  setupTimeout: '30s',
};

// ---------------------------------------------------------------------------------------------
// The run plan (called from setup() only).

/** A run id: `-e RUN_ID=…`, or new. Call it in setup(), never in init code. */
export function newRunId() {
  const given = __ENV.RUN_ID;
  if (given !== undefined && given !== '') {
    if (!/^[A-Za-z0-9-]{1,20}$/.test(given)) {
      throw new Error('-e RUN_ID must be 1–20 letters, digits or dashes');
    }
    return given;
  }
  const random = Math.floor(Math.random() * 36 ** 3).toString(36);
  return `k6${Date.now().toString(36)}${random}`;
}

/** A room id of this run; checked against the contract's length limit. */
export function roomName(runId, kind, index) {
  const name = `${runId}-${kind}-${index}`;
  if (name.length < NAME_MIN_LENGTH || name.length > ROOM_NAME_MAX_LENGTH) {
    throw new Error(`Room id "${name}" is not 3–${ROOM_NAME_MAX_LENGTH} characters`);
  }
  return name;
}

/** A user name, checked against the contract's limits (3–32 characters). */
export function userName(name) {
  if (name.length < NAME_MIN_LENGTH || name.length > USER_NAME_MAX_LENGTH) {
    throw new Error(`User name "${name}" is not ${NAME_MIN_LENGTH}–${USER_NAME_MAX_LENGTH} long`);
  }
  return name;
}

/**
 * Room sizes between `min` and `max` (inclusive) adding up to `people`: as many rooms as the
 * average size gives, each at least `min`, the rest spread at random. Fewer people than `min`:
 * one room of all of them.
 */
export function roomSizes(people, min, max, random = Math.random) {
  if (people <= min) return [people];
  const rooms = Math.min(
    Math.floor(people / min),
    Math.max(Math.ceil(people / max), Math.round(people / ((min + max) / 2))),
  );
  const sizes = new Array(rooms).fill(min);
  let left = people - rooms * min;
  // Every room can take up to max, since rooms × max ≥ people.
  while (left > 0) {
    const open = sizes.map((size, index) => (size < max ? index : -1)).filter((i) => i >= 0);
    const index = open[Math.floor(random() * open.length)];
    sizes[index] += 1;
    left -= 1;
  }
  return sizes;
}

/**
 * Seats people in rooms round-robin: person k goes to the next room in turn that still has a
 * free seat, so rooms fill side by side as VUs ramp up. Returns the room index of each person.
 */
export function roundRobin(sizes) {
  const free = sizes.slice();
  const seats = [];
  const total = sizes.reduce((sum, size) => sum + size, 0);
  let room = 0;
  while (seats.length < total) {
    if (free[room] > 0) {
      seats.push(room);
      free[room] -= 1;
    }
    room = (room + 1) % sizes.length;
  }
  return seats;
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

/** A whole number of milliseconds between min and max. */
export function between(min, max) {
  return Math.floor(min + Math.random() * (max - min));
}

/** A promise that settles after `ms` (a k6 timer keeps the VU's event loop alive meanwhile). */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** `ms` ± `jitter` (a fraction). */
function jittered(ms, jitter = 0.2) {
  return Math.round(ms * (1 + (Math.random() * 2 - 1) * jitter));
}

/**
 * A message body carrying its send time (`t`, ms), the sender's client id (`c`) and, on a
 * sender's last message, `l: 1`; padded to `bytes`. The bench carries the same `t`.
 */
export function probeBody(clientId, bytes, last) {
  const probe = { t: Date.now(), c: clientId };
  if (last) probe.l = 1;
  const pad = Math.max(0, bytes - JSON.stringify({ ...probe, p: '' }).length);
  probe.p = 'x'.repeat(pad);
  return JSON.stringify(probe);
}

/** The probe in a message body, or null for a body that is not one. */
export function parseProbe(body) {
  if (typeof body !== 'string' || body.charAt(0) !== '{') return null;
  try {
    const probe = JSON.parse(body);
    return typeof probe.t === 'number' ? probe : null;
  } catch {
    return null;
  }
}

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

// ---------------------------------------------------------------------------------------------
// One participant.

/**
 * One member of one room: credentials over HTTP (with bounded, jittered backoff), the socket, and
 * exact accounting of what it should have received.
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
export class Member {
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
    /** We closed the socket on purpose. */
    this.closing = false;
    /** Gave up: no socket and no reconnect coming. */
    this.gone = false;
    this.roster = new Set();
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
    /** Own messages sent and not yet echoed, refused or fetched: client_id → send time. */
    this.pending = new Map();
    this.ownSeqs = new Set();
    this.sentCount = 0;
    this.lastSentAt = 0;
    this.refused = 0;
    /** Message errors that named no client_id (the api leaves it out): refusals of someone. */
    this.unattributedErrors = 0;
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

  checkJoined() {
    if (this.joined || !this.historyLoaded || !this.roster.has(this.name)) return;
    this.joined = true;
    this.joinedOnce = true;
    this.reconnectAttempts = 0;
    metrics.connectLatency.add(Date.now() - this.socketOpenedAt);
    this.wake();
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

  onHistory(frame) {
    const waiter = this.historyWaiter;
    this.historyWaiter = null;
    if (waiter) waiter(frame);
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
