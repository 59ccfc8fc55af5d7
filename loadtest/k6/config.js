// The run's settings: the shared workload file, the profile (smoke, load, stress) and its sizes,
// the target's URLs, how sockets authenticate, `-e NAME=…` numbers and the latency limits.
//
// Nothing here that all VUs must agree on is computed in init code: k6 runs init code once per VU,
// so a run id or a room plan made there would differ between VUs. Those come from setup() (whose
// return value every VU gets) or from __ENV.
/* global __ENV, open */
import { RATE_LIMITS } from './protocol.js';

export const WORKLOADS = JSON.parse(open('../workloads/workloads.json'));
export const TIMING = WORKLOADS.k6.timing;
export const BODY_BYTES = WORKLOADS.message.bodyBytes;

/**
 * The fastest a script lets one member send, sustained: 80 % of the api's default
 * MESSAGES_PER_SECOND, so a stalled and then hurried event loop (the load generator's or a
 * replica's) still finds tokens in the bucket.
 */
export const MAX_MEMBER_RATE = 0.8 * RATE_LIMITS.messagesPerSecond;
/** Two messages of one member never go out closer together than the api's refill interval. */
export const MIN_SEND_GAP_MS = 1000 / RATE_LIMITS.messagesPerSecond;

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
export const TICKET_CALL = 'POST /api/room/:room_id/ticket';
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
