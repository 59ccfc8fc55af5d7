// What the scripts and their members share: the metrics every script records under the same
// names (their meaning: loadtest/README.md, "Metrics and thresholds"), the options and thresholds
// every script has, the run plan (setup() only: readiness, run id, rooms, sizes and seating), small
// timing helpers, and the latency probe carried in message bodies.
/* global __ENV */
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
import { setTimeout } from 'k6/timers';
import { BASE_URL, PROFILE_NAME, SLO, SOCKET_AUTH, TICKET_CALL } from './config.js';
import { NAME_MIN_LENGTH, ROOM_NAME_MAX_LENGTH, USER_NAME_MAX_LENGTH } from './protocol.js';

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

/** One iteration per VU, stopped after `maxMs` (fanout.js, soak.js). */
export const oncePerVu = (vus, maxMs) => ({
  executor: 'per-vu-iterations',
  vus,
  iterations: 1,
  maxDuration: `${Math.ceil(maxMs / 1000)}s`,
  gracefulStop: '10s',
});

/**
 * Fails when BASE_URL is not a ready Taco Chat; else the run id (`-e RUN_ID=…`, or new), `rooms`
 * room ids of this run (checked against the contract's length limit) and the run's start, logged
 * with `about`. Call it in setup(), never in init code.
 */
export function newPlan(kind, rooms, about) {
  const res = http.get(`${BASE_URL}/api/health/ready`, { tags: { name: 'GET /api/health/ready' } });
  if (res.status !== 200) {
    throw new Error(`${BASE_URL}/api/health/ready answered ${res.status}: is BASE_URL right?`);
  }
  const given = __ENV.RUN_ID;
  if (given !== undefined && given !== '' && !/^[A-Za-z0-9-]{1,20}$/.test(given)) {
    throw new Error('-e RUN_ID must be 1–20 letters, digits or dashes');
  }
  const random = Math.floor(Math.random() * 36 ** 3).toString(36);
  const runId = given || `k6${Date.now().toString(36)}${random}`;
  const names = Array.from({ length: rooms }, (_, index) => `${runId}-${kind}-${index}`);
  for (const name of names) checkLength('Room id', name, ROOM_NAME_MAX_LENGTH);
  console.log(`${kind} ${PROFILE_NAME}: run ${runId}, ${about}`);
  return { runId, rooms: names, startedAt: Date.now() };
}

/** `name`, or an error when it is not NAME_MIN_LENGTH–`max` characters long (the contract's). */
export function checkLength(what, name, max = USER_NAME_MAX_LENGTH) {
  if (name.length < NAME_MIN_LENGTH || name.length > max) {
    throw new Error(`${what} "${name}" is not ${NAME_MIN_LENGTH}–${max} characters`);
  }
  return name;
}

/**
 * Room sizes between `min` and `max` (inclusive) adding up to `people`: as many rooms as the average
 * size gives, each at least `min`, the rest spread at random (fewer than `min`: one room of all).
 */
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

/**
 * Seats people in rooms round-robin: person k goes to the next room in turn that still has a
 * free seat, so rooms fill side by side as VUs ramp up. Returns the room index of each person.
 */
export const roundRobin = (sizes) =>
  Array.from({ length: Math.max(...sizes) }, (_, seat) =>
    sizes.flatMap((size, room) => (seat < size ? [room] : [])),
  ).flat();

/** A whole number of milliseconds between min and max. */
export const between = (min, max) => Math.floor(min + Math.random() * (max - min));

/**
 * A promise that settles after `ms` (a k6 timer keeps the VU's event loop alive meanwhile); at
 * once, with no timer, when `ms` ≤ 0: in k6 1.8 a 0 ms timer can make the next timer fire at once.
 */
export const sleep = (ms) =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

/** `ms` ± 20 %. */
export const jittered = (ms) => Math.round(ms * (0.8 + Math.random() * 0.4));

/**
 * A message body carrying its send time (`t`, ms), the sender's client id (`c`) and, on a
 * sender's last message, `l: 1`; padded to `bytes`. The bench carries the same `t`.
 */
export function probeBody(clientId, bytes, last) {
  const probe = { t: Date.now(), c: clientId, ...(last ? { l: 1 } : {}) };
  const pad = Math.max(0, bytes - JSON.stringify({ ...probe, p: '' }).length);
  return JSON.stringify({ ...probe, p: 'x'.repeat(pad) });
}

/** The value of the JSON `text`, or undefined when it is not JSON. */
export function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The probe in a message body, or null for a body that is not one. */
export function parseProbe(body) {
  const probe = typeof body === 'string' && body.charAt(0) === '{' ? parseJson(body) : undefined;
  return typeof probe?.t === 'number' ? probe : null;
}
