// The run's settings: the shared workload file, the profile (smoke, load, stress) and its sizes,
// the target's URLs, how sockets authenticate, `-e NAME=…` options and the latency limits. Nothing
// all VUs must agree on (a run id, a room plan) is made here: k6 runs init code once per VU.
/* global __ENV, open */
import { RATE_LIMITS } from './protocol.js';

const WORKLOADS = JSON.parse(open('../workloads/workloads.json'));
export const TIMING = WORKLOADS.k6.timing;
export const BODY_BYTES = WORKLOADS.message.bodyBytes;

/**
 * The fastest a script lets one member send, sustained: 80 % of the api's default rate, so a
 * stalled and then hurried event loop (the load generator's or a replica's) still finds tokens.
 */
export const MAX_MEMBER_RATE = 0.8 * RATE_LIMITS.messagesPerSecond;
/** Two messages of one member never go out closer together than the api's refill interval. */
export const MIN_SEND_GAP_MS = 1000 / RATE_LIMITS.messagesPerSecond;

const PROFILES = WORKLOADS.k6.profiles;
export const PROFILE_NAME = envChoice('PROFILE', Object.keys(PROFILES), 'load');
export const PROFILE = PROFILES[PROFILE_NAME];

/** http://host:port of nginx (or one replica); the socket URL is derived from it. */
export const BASE_URL = (__ENV.BASE_URL || 'http://localhost:8080').replace(/\/+$/, '');
export const WS_URL = BASE_URL.replace(/^http/, 'ws');

/**
 * How a socket authenticates: `token` (the room token in its URL) or `ticket` (a single-use ticket
 * per socket, as the web client does: no token in a proxy's log, one more call per connect).
 */
export const SOCKET_AUTH = envChoice('SOCKET_AUTH', ['token', 'ticket'], 'token');
export const TICKET_CALL = 'POST /api/room/:room_id/ticket';

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

/** A whole number ≥ `min` from `-e NAME=…`, or `fallback` (envNumber). */
export const envCount = (name, fallback, min = 1) =>
  envNumber(name, fallback, { min, integer: true });

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
  p95Ms: envNumber('P95_MS', PROFILE.slo.p95Ms, { min: 1 }),
  p99Ms: envNumber('P99_MS', PROFILE.slo.p99Ms, { min: 1 }),
};
