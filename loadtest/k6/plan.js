// The run plan (called from setup() only: readiness, run id, rooms, room sizes and seating),
// small timing helpers, and the latency probe carried in message bodies.
/* global __ENV */
import http from 'k6/http';
import { setTimeout } from 'k6/timers';
import { BASE_URL, PROFILE_NAME } from './config.js';
import { NAME_MIN_LENGTH, ROOM_NAME_MAX_LENGTH, USER_NAME_MAX_LENGTH } from './protocol.js';

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
 * Room sizes between `min` and `max` (inclusive) adding up to `people`: as many rooms as the
 * average size gives, each at least `min`, the rest spread at random. Fewer people than `min`:
 * one room of all of them.
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
