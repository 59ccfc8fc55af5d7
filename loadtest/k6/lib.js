// Helpers shared by the k6 scripts: where the server is, credentials, the latency probe carried in
// message bodies, and loss accounting by seq. The bench (loadtest/bench) uses the same probe.
/* global __ENV */
import http from 'k6/http';
import { check } from 'k6';
import { ApiPath } from './protocol.js';

/** http://host:port of nginx (or one replica). */
export const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/$/, '');
export const WS_URL = BASE_URL.replace(/^http/, 'ws');

/** Unique per run, so rooms of two runs never mix. */
export const RUN_ID = __ENV.RUN_ID || `k6${Date.now().toString(36)}`;

/** POST /api/room/:room_id → token, or null (the check records the failure). */
export function credentials(room, name) {
  const res = http.post(
    `${BASE_URL}${ApiPath.roomCredentials(room)}`,
    JSON.stringify({ sender_id: name }),
    {
      headers: { 'Content-Type': 'application/json' },
      tags: { name: 'POST /api/room/:room_id' },
    },
  );
  const ok = check(res, { 'credentials 200': (r) => r.status === 200 });
  if (!ok) return null;
  return res.json('token');
}

/** The socket URL for a room and token. */
export function socketUrl(room, token) {
  return `${WS_URL}${ApiPath.roomSocket(room, token)}`;
}

/** A message body carrying its send time (ms) and a number, padded to `bytes`. */
export function probeBody(n, bytes) {
  const t = Date.now();
  const pad = Math.max(0, bytes - JSON.stringify({ t, n, p: '' }).length);
  return JSON.stringify({ t, n, p: 'x'.repeat(pad) });
}

/** The send time of a probe body, or null for a body that is not one. */
export function probeSentAt(body) {
  if (typeof body !== 'string' || body.charAt(0) !== '{') return null;
  try {
    const probe = JSON.parse(body);
    return typeof probe.t === 'number' ? probe.t : null;
  } catch {
    return null;
  }
}

/**
 * Counts messages a connection missed: seq is per room and strictly increasing, and every message
 * goes to every member, so a gap between the first and last seq seen is a lost message.
 */
export function seqTracker() {
  let first = -1;
  let last = -1;
  let seen = 0;
  return {
    see(seq) {
      if (first < 0) first = seq;
      if (seq > last) last = seq;
      seen += 1;
    },
    lost() {
      return first < 0 ? 0 : Math.max(0, last - first + 1 - seen);
    },
  };
}

/** A whole number of milliseconds between min and max. */
export function between(min, max) {
  return Math.floor(min + Math.random() * (max - min));
}
