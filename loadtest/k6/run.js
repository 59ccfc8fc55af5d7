// What the scripts and their members share: the settings (profile, URLs, `-e` options), the
// metrics (loadtest/README.md, "Metrics and thresholds"), options and thresholds, the run plan,
// the latency probe and the HTTP calls. What all VUs must agree on (run id, rooms) comes from
// setup(), never init code: k6 runs init code once per VU.
/* global __ENV, open */
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
import { setTimeout } from 'k6/timers';
import { ApiPath, RATE_LIMITS } from './protocol.js';

const WORKLOADS = JSON.parse(open('../workloads/workloads.json'));
export const TIMING = WORKLOADS.k6.timing;
export const BODY_BYTES = WORKLOADS.message.bodyBytes;

/** 80 % of the api's default rate: a stalled, then hurried event loop still finds tokens. */
export const MAX_MEMBER_RATE = 0.8 * RATE_LIMITS.messagesPerSecond;
/** Two messages of one member never go out closer together than the api's refill interval. */
export const MIN_SEND_GAP_MS = 1000 / RATE_LIMITS.messagesPerSecond;

const PROFILE_NAME = envChoice('PROFILE', Object.keys(WORKLOADS.k6.profiles), 'load');
export const PROFILE = WORKLOADS.k6.profiles[PROFILE_NAME];

/** nginx (or one replica). */
export const BASE_URL = (__ENV.BASE_URL || 'http://localhost:8080').replace(/\/+$/, '');
export const WS_URL = BASE_URL.replace(/^http/, 'ws');

/** `token` (in the socket URL) or `ticket` (a single-use ticket per socket, as the web client). */
const SOCKET_AUTH = envChoice('SOCKET_AUTH', ['token', 'ticket'], 'token');
const TICKET_CALL = 'POST /api/room/:room_id/ticket';

/** A number ≥ `min` from `-e NAME=…` (whole if `integer`), or `fallback`; else the run stops. */
export function envNumber(name, fallback, min = 0, integer = false) {
  if (!__ENV[name]) return fallback;
  const value = Number(__ENV[name]);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`-e ${name} must be ${integer ? 'a whole number' : 'a number'} ≥ ${min}`);
  }
  return value;
}

export const envCount = (name, fallback, min = 1) => envNumber(name, fallback, min, true);

/** `-e NAME=…`, one of `choices`, or `fallback`; anything else stops the run. */
export function envChoice(name, choices, fallback) {
  const value = __ENV[name] || fallback;
  if (!choices.includes(value)) {
    throw new Error(`${name} must be one of ${choices.join(', ')} (got "${value}")`);
  }
  return value;
}

/** Latency limits of the profile; `-e P95_MS` / `-e P99_MS` override the delivery ones. */
export const SLO = {
  ...PROFILE.slo,
  p95Ms: envNumber('P95_MS', PROFILE.slo.p95Ms, 1),
  p99Ms: envNumber('P99_MS', PROFILE.slo.p99Ms, 1),
};

export const metrics = {
  sent: new Counter('chat_messages_sent'),
  received: new Counter('chat_messages_received'),
  lost: new Counter('chat_messages_lost'),
  duplicated: new Counter('chat_messages_duplicated'),
  recovered: new Counter('chat_messages_recovered'),
  epochChanges: new Counter('chat_epoch_changes'),
  deliveryLatency: new Trend('chat_delivery_latency', true),
  connectLatency: new Trend('chat_connect_latency', true),
  errorFrames: new Counter('chat_error_frames'),
  unexpectedCloses: new Counter('chat_unexpected_closes'),
  reconnects: new Counter('chat_reconnects'),
  credentialFailures: new Counter('chat_credential_failures'),
  ticketFailures: new Counter('chat_ticket_failures'),
  heartbeatRtt: new Trend('chat_heartbeat_rtt', true),
  heartbeatsMissed: new Counter('chat_heartbeats_missed'),
};

/** A script's options: its one scenario, `name`; every script's thresholds and `extraThresholds`. */
export function scriptOptions(name, scenario, extraThresholds) {
  return {
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'],
    // Every system tag except `url`: socket URLs carry the room token, which must not land in
    // metrics outputs (and would give every socket its own time series).
    systemTags: (
      'proto subproto status method name group check error error_code tls_version scenario ' +
      'service expected_response'
    ).split(' '),
    setupTimeout: '30s',
    scenarios: { [name]: scenario },
    thresholds: {
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
      ...extraThresholds,
    },
  };
}

/** One iteration per VU (the executor's default), stopped after `maxMs` (fanout.js, soak.js). */
export const oncePerVu = (vus, maxMs) => ({
  executor: 'per-vu-iterations',
  vus,
  maxDuration: `${Math.ceil(maxMs / 1000)}s`,
  gracefulStop: '10s',
});

/** setup(): fails unless BASE_URL is ready; the run id, `rooms` room ids, the start; logs `about`. */
export function newPlan(kind, rooms, about) {
  const ready = BASE_URL + ApiPath.healthReady;
  const res = http.get(ready, { tags: { name: `GET ${ApiPath.healthReady}` } });
  if (res.status !== 200) throw new Error(`${ready} answered ${res.status}: is BASE_URL right?`);
  const random = Math.floor(Math.random() * 36 ** 3).toString(36);
  const runId = __ENV.RUN_ID || `k6${Date.now().toString(36)}${random}`;
  if (!/^[A-Za-z0-9-]{1,20}$/.test(runId)) {
    throw new Error('-e RUN_ID must be 1–20 letters, digits or dashes');
  }
  const names = Array.from({ length: rooms }, (_, index) => `${runId}-${kind}-${index}`);
  console.log(`${kind} ${PROFILE_NAME}: run ${runId}, ${about}`);
  return { runId, rooms: names, startedAt: Date.now() };
}

/** Sizes of `min`–`max` adding up to `people`, as many as the average gives, spread at random. */
export function roomSizes(people, min, max) {
  if (people <= min) return [people];
  const rooms = Math.min(
    Math.floor(people / min),
    Math.max(Math.ceil(people / max), Math.round(people / ((min + max) / 2))),
  );
  const sizes = new Array(rooms).fill(min);
  // Every room can take up to max, since rooms × max ≥ people.
  for (let left = people - rooms * min; left > 0; left -= 1) {
    const open = sizes.map((size, index) => (size < max ? index : -1)).filter((i) => i >= 0);
    sizes[open[Math.floor(Math.random() * open.length)]] += 1;
  }
  return sizes;
}

/** Each person's room, seated round-robin so that rooms fill side by side as VUs ramp up. */
export const roundRobin = (sizes) =>
  Array.from({ length: Math.max(...sizes) }, (_, seat) =>
    sizes.flatMap((size, room) => (seat < size ? [room] : [])),
  ).flat();

/** A whole number of milliseconds between min and max. */
export const between = (min, max) => Math.floor(min + Math.random() * (max - min));

/** Settles after `ms`; at once when ≤ 0 (in k6 1.8 a 0 ms timer can fire the next timer early). */
export const sleep = (ms) =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

export const jittered = (ms) => Math.round(ms * (0.8 + Math.random() * 0.4));

/** A body of `bytes`: the send time `t` (ms, as the bench's), client id `c`, `l: 1` if last. */
export function probeBody(clientId, bytes, last) {
  const probe = { t: Date.now(), c: clientId, ...(last ? { l: 1 } : {}) };
  const pad = Math.max(0, bytes - JSON.stringify({ ...probe, p: '' }).length);
  return JSON.stringify({ ...probe, p: 'x'.repeat(pad) });
}

export function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The probe in a message body, or null. */
export function parseProbe(body) {
  const probe = typeof body === 'string' && body.charAt(0) === '{' ? parseJson(body) : undefined;
  return typeof probe?.t === 'number' ? probe : null;
}

/** A token or null: a 400 at once, else `credentialAttempts` calls backing off 1, 2, 4 … s. */
export async function credentials(room, name) {
  const url = BASE_URL + ApiPath.roomCredentials(room);
  const body = JSON.stringify({ sender_id: name });
  const headers = { 'Content-Type': 'application/json' };
  // Tagged by route, never room id. k6 resolves with status 0 when no answer came.
  const params = { headers, tags: { name: 'POST /api/room/:room_id' }, timeout: '10s' };
  for (let attempt = 1; attempt <= TIMING.credentialAttempts; attempt += 1) {
    const res = await http.asyncRequest('POST', url, body, params);
    const token = res.status === 200 ? parseJson(res.body)?.token : null;
    if (typeof token === 'string') return token;
    metrics.credentialFailures.add(1, { status: String(res.status) });
    if (res.status === 400) console.error(`credentials for ${name} in ${room}: 400 ${res.body}`);
    if (res.status === 400 || attempt === TIMING.credentialAttempts) break;
    const retryAfter = Number(res.headers['Retry-After']);
    const backoff = TIMING.credentialBackoffMs * 2 ** (attempt - 1);
    await sleep(
      res.status === 429 && retryAfter > 0
        ? retryAfter * 1000 * (1 + Math.random() * 0.2)
        : jittered(Math.min(TIMING.credentialBackoffMaxMs, backoff)),
    );
  }
  return null;
}

/** The socket's path: with the token, or a new ticket (null when the ticket call failed). */
export async function socketPath(room, token) {
  if (SOCKET_AUTH === 'token') return { path: ApiPath.roomSocket(room, token) };
  const headers = { Authorization: `Bearer ${token}` };
  const params = { headers, tags: { name: TICKET_CALL }, timeout: '10s' };
  const res = await http.asyncRequest('POST', BASE_URL + ApiPath.roomTicket(room), null, params);
  const ticket = res.status === 201 ? parseJson(res.body)?.ticket : null;
  if (typeof ticket === 'string') return { path: ApiPath.roomSocketWithTicket(room, ticket) };
  metrics.ticketFailures.add(1, { status: String(res.status) });
  return { path: null, status: res.status };
}
